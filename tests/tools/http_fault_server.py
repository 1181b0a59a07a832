#!/usr/bin/env python3
"""A loopback HTTP server for the remote fault tests: serves the files of a directory with Range
support, and misbehaves on purpose according to the first path segment:

  /ok/F          206 ranges, 200 whole
  /flaky/F       500 to the first request for F, then like /ok (a retry must succeed)
  /short/F       range replies whose body stops halfway (Content-Length promises more)
  /cutonce/F     the first range reply from byte 0 after the probe (a streamed body) stops halfway,
                 then like /ok (a resume)
  /badrange/F    206 replies naming another range in Content-Range than the one asked for
  /stall/F       headers, a few bytes, then nothing (a client must time out)
  /loop/F        302 to itself
  /moved/F       301 to /ok/F
  /auth/F        401 unless "Authorization: Bearer s3cret" or Basic user:pw
  /simple/P/     a PEP 503 page listing the directory's wheels of project P, with PEP 658
                 data-core-metadata attributes (METADATA is served at F.metadata)
  /drip/F        the probe answered, then range replies dripping at 2 KiB/s (for 60 s at most)
  /drip200/F     Range ignored: 200 with a 1 GiB Content-Length, dripping at 2 KiB/s (60 s at most)
  /down/...      503 to everything
  /shortpage/P/  the /simple/P/ page with its body cut short (Content-Length promises more)
  /hugeindex/N/  a PEP 503 page with N links (N <= 2,000,000), one per line
  /jsonsimple/M/P/  a PEP 691 JSON page listing every file of the directory at /M/F (the form
                 tools/fetch_wheels.py reads, pointed here by WHEELCHECK_PYPI_SIMPLE)
  /slow/F        the whole file, 16 KiB every 5 ms (a download long enough for fetchers to overlap)
  /cut/F         200 promising the whole file, half of it sent, then the connection closed

Every request line is appended to LOG (one per line) so tests can tell what was fetched.
Usage: http_fault_server.py DIR PORT LOG"""
import base64, hashlib, http.server, json, os, re, sys, threading, time, zipfile

root, port, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lock = threading.Lock()
seen = set()


def metadata_of(path):
    with zipfile.ZipFile(path) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return z.read(name)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self):
        with lock, open(log_path, "a") as f:
            f.write(f"{self.command} {self.path} {self.headers.get('Range', '-')}\n")

    def send_bytes(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.record()
        parts = self.path.split("/", 2)
        if len(parts) < 3:
            return self.send_bytes(404, b"no")
        mode, rest = parts[1], parts[2]
        if mode == "simple":
            return self.index(rest.strip("/"))
        if mode == "jsonsimple":
            sub = rest.split("/", 1)[0]
            files = [{"filename": n, "url": f"/{sub}/{n}"} for n in sorted(os.listdir(root))
                     if os.path.isfile(os.path.join(root, n))]
            body = json.dumps({"meta": {"api-version": "1.0"}, "files": files}).encode()
            return self.send_bytes(200, body, [("Content-Type", "application/vnd.pypi.simple.v1+json")])
        if mode in ("slow", "cut"):
            path = os.path.join(root, os.path.basename(rest))
            if not os.path.isfile(path):
                return self.send_bytes(404, b"no such file")
            with open(path, "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                if mode == "cut":
                    self.wfile.write(body[: len(body) // 2])
                else:
                    for at in range(0, len(body), 16384):
                        self.wfile.write(body[at:at + 16384])
                        self.wfile.flush()
                        time.sleep(0.005)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        if mode == "down":
            return self.send_bytes(503, b"down for maintenance")
        if mode == "shortpage":
            return self.index(rest.strip("/"), cut=True)
        if mode == "hugeindex":
            n = min(int(rest.strip("/") or "0"), 2000000)
            body = "".join(f'<a href="/ok/p-{i}-py3-none-any.whl"></a>\n'
                           for i in range(n)).encode()
            return self.send_bytes(200, body, [("Content-Type", "text/html")])
        if mode == "drip200":
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 30))
            self.end_headers()
            return self.drip(1 << 30)
        if mode == "loop":
            return self.send_bytes(302, b"", [("Location", self.path)])
        if mode == "moved":
            return self.send_bytes(301, b"", [("Location", "/ok/" + rest)])
        if mode == "auth":
            auth = self.headers.get("Authorization", "")
            ok = auth == "Bearer s3cret" or auth == "Basic " + base64.b64encode(b"user:pw").decode()
            if not ok:
                return self.send_bytes(401, b"credentials please", [("WWW-Authenticate", 'Basic realm="x"')])
        if mode == "flaky":
            with lock:
                first = rest not in seen
                seen.add(rest)
            if first:
                return self.send_bytes(500, b"try again")
        if rest.endswith(".metadata"):
            path = os.path.join(root, rest[: -len(".metadata")])
            return self.send_bytes(200, metadata_of(path)) if os.path.isfile(path) else self.send_bytes(404, b"no")
        path = os.path.join(root, os.path.basename(rest))
        if not os.path.isfile(path):
            return self.send_bytes(404, b"no such file")
        size = os.path.getsize(path)
        m = re.match(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        with open(path, "rb") as f:
            if not m:
                return self.send_bytes(200, f.read())
            lo, hi = int(m.group(1)), min(int(m.group(2)), size - 1)
            f.seek(lo)
            body = f.read(hi - lo + 1)
        if mode == "drip" and hi > 0:
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {lo}-{hi}/{size}")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return self.drip(len(body), body)
        if mode == "stall":
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {lo}-{hi}/{size}")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[:1])
            self.wfile.flush()
            time.sleep(120)
            return
        cut_once = False
        if mode == "cutonce" and hi > 0 and lo == 0:
            with lock:
                cut_once = ("cut", rest) not in seen
                seen.add(("cut", rest))
        if (mode == "short" or cut_once) and hi > 0:  # the probe (0-0) works; real reads are cut off
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {lo}-{hi}/{size}")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        shown = (lo + 7, hi + 7) if mode == "badrange" and hi > 0 else (lo, hi)
        self.send_bytes(206, body, [("Content-Range", f"bytes {shown[0]}-{shown[1]}/{size}")])

    def drip(self, total, body=None):
        # 2 KiB a second, over curl's 1 KiB/s stall limit, for at most 60 s.
        sent, start = 0, time.time()
        try:
            while sent < total and time.time() - start < 60:
                chunk = body[sent:sent + 2048] if body is not None else b"\0" * min(2048, total - sent)
                self.wfile.write(chunk)
                self.wfile.flush()
                sent += len(chunk)
                time.sleep(1)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def index(self, project, cut=False):
        links = []
        for name in sorted(os.listdir(root)):
            if not name.endswith(".whl") or not name.startswith(project.replace("-", "_") + "-"):
                continue
            with open(os.path.join(root, name), "rb") as f:
                wheel_hash = hashlib.sha256(f.read()).hexdigest()
            md_hash = hashlib.sha256(metadata_of(os.path.join(root, name))).hexdigest()
            links.append(f'<a href="/ok/{name}#sha256={wheel_hash}" data-core-metadata="sha256={md_hash}" '
                         f'data-dist-info-metadata="sha256={md_hash}">{name}</a><br/>')
        body = ("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n").encode()
        if cut:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body) + 1000))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_bytes(200, body, [("Content-Type", "text/html")])


http.server.ThreadingHTTPServer.daemon_threads = True
http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
