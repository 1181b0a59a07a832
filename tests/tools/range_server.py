#!/usr/bin/env python3
"""A static file server over the current folder that honours Range (python3's http.server ignores
it), as package indexes and artifact stores do. Two paths misbehave on purpose, for the tests of
hostile replies: /redirect-loop/... redirects to itself forever, /endless-body/... sends a JSON body
that never ends (no Content-Length).

  range_server.py PORT     (0: a free port, printed as the first line of stdout)

Used by the tests (tests/support/test_support.cc: range_server_argv) and bench/nightly.py."""
import http.server, os, re, sys


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/redirect-loop/"):
            self.send_response(302)
            self.send_header("Location", self.path)
            self.end_headers()
            return
        if self.path.startswith("/endless-body/"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            try:
                self.wfile.write(b'{"attestation_bundles": [')
                while True:
                    self.wfile.write(b" " * 65536)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        path = self.translate_path(self.path)
        m = re.match(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if not m or not os.path.isfile(path):
            return super().do_GET()
        size = os.path.getsize(path)
        lo = int(m.group(1))
        hi = min(int(m.group(2)) if m.group(2) else size - 1, size - 1)
        with open(path, "rb") as f:
            f.seek(lo)
            body = f.read(hi - lo + 1)
        self.send_response(206)
        self.send_header("Content-Range", "bytes %d-%d/%d" % (lo, hi, size))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


if __name__ == "__main__":
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()
