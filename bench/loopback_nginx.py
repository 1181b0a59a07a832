"""A loopback nginx serving a folder for the remote benchmarks (remote.py, overlap.py): one server
per rate (None: full speed; a number: nginx's limit_rate, bytes a second per connection)."""
import os, socket, subprocess, time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LoopbackNginx:
    def __init__(self, work, www, rates=(None,)):
        self.ports = [free_port() for _ in rates]
        temps = " ".join(f"{k}_temp_path {work}/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        servers = "".join(
            f"  server {{ listen 127.0.0.1:{port}; root {www};{f' limit_rate {rate};' if rate else ''} }}\n"
            for port, rate in zip(self.ports, rates))
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"daemon off; master_process off; worker_processes 1; pid {work}/nginx.pid; "
                    f"error_log {work}/nginx.err;\nevents {{ worker_connections 256; }}\n"
                    f"http {{ access_log off; {temps}\n{servers}}}\n")
        self.process = subprocess.Popen(["nginx", "-c", conf, "-p", work])
        for port in self.ports:
            for _ in range(50):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
