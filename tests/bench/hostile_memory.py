#!/usr/bin/env python3
"""Peak memory of `magpie crawl` on hostile pages (issue #13, D4).

Serves, on loopback, pages of 19 MiB of NUL bytes (plain and gzipped), 1 GiB gzip bombs
(about 1 MiB on the wire), 19 MiB of `<` and 19 MiB of unclosed `<div>`, plus 19 MiB of plain
text for comparison, and runs the real `magpie crawl` on each set, 8 fetches in flight, under
GNU time. Prints one Markdown table row per run: the peak resident set size and the wall time.

    python3 tests/bench/hostile_memory.py target/release/magpie
"""
import gzip
import http.server
import json
import os
import socketserver
import subprocess
import sys
import tempfile
import threading

N = 19 * 1024 * 1024
NUL = b"\0" * N
PAGES = {
    "/nul": (NUL, None),
    "/nulgz": (gzip.compress(NUL, 9), "gzip"),
    "/text": ((b"lorem ipsum dolor sit amet " * (N // 27 + 1))[:N], None),
    "/lt": (b"<" * N, None),
    "/deep": (b"<div>" * (N // 5), None),
}
BOMB = gzip.compress(b"\0" * (1 << 30), 9)
for i in range(4):
    PAGES[f"/bomb{i}"] = (BOMB, "gzip")

RUNS = [
    ("text (baseline)", ["/text"]),
    ("NUL bytes", ["/nul"]),
    ("NUL bytes, gzipped", ["/nulgz"]),
    ("8 hostile pages at once", ["/nul", "/nulgz", "/lt", "/deep"] + [f"/bomb{i}" for i in range(4)]),
]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path.startswith("/?p="):
            links = "".join(f'<a href="{p}">{p}</a> ' for p in self.path[4:].split(","))
            body, coding = f"<html><body>{links}</body></html>".encode(), None
        elif self.path in PAGES:
            body, coding = PAGES[self.path]
        else:
            body, coding = b"", None
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html")
        if coding:
            self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    magpie = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/magpie")
    server = Server(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("| pages | peak RSS | wall |")
    print("|---|---:|---:|")
    for label, paths in RUNS:
        with tempfile.TemporaryDirectory() as tmp:
            spec = {
                "name": "hostile",
                "seeds": [f"http://127.0.0.1:{port}/?p={','.join(paths)}"],
                "network": {"allow_private": True},
                "scope": {"sitemaps": False},
                "politeness": {"min_delay_ms": 0, "delay_factor": 0.0, "respect_robots": False,
                               "max_parallel_per_host": 8, "max_parallel_per_ip": 8},
                "limits": {"max_pages": 20, "max_concurrency": 8},
            }
            spec_path = os.path.join(tmp, "spec.json")
            with open(spec_path, "w") as f:
                json.dump(spec, f)
            out = subprocess.run(
                ["/usr/bin/time", "-f", "%M %e", magpie, "crawl", spec_path,
                 "--data", os.path.join(tmp, "data"), "--progress", "none"],
                capture_output=True, text=True, check=True)
            rss_kb, wall = out.stderr.strip().splitlines()[-1].split()
            print(f"| {label} | {int(rss_kb) / 1024:.0f} MiB | {float(wall):.1f} s |")


if __name__ == "__main__":
    main()
