#!/usr/bin/env python3
"""What idle crawls cost `magpie serve` (issue #26, point 7).

Starts the real `magpie serve` on an empty data folder (loopback, a fixed test token), reads its
resident set size, threads and open file descriptors from /proc, creates N crawls through
`POST /api/v1/crawls` (never started; their seed is a closed loopback port), lists them once,
waits for the figures to settle, and reads them again. Prints one Markdown table row per
measurement. Linux only.

    python3 tests/bench/idle_crawls.py target/release/magpie 100
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

TOKEN = "bench-token-0123456789abcdef"
# Loopback only: no proxy from the environment.
HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def figures(pid):
    """RSS in MiB, threads, open file descriptors of process `pid`."""
    rss_kib = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kib = int(line.split()[1])
    threads = len(os.listdir(f"/proc/{pid}/task"))
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return rss_kib / 1024, threads, fds


def settled(pid):
    """The figures once threads and fds held still for a second (RSS read then)."""
    last = figures(pid)
    for _ in range(30):
        time.sleep(1)
        now = figures(pid)
        if now[1:] == last[1:]:
            return now
        last = now
    return last


def request(base, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {TOKEN}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with HTTP.open(req, timeout=60) as resp:
        return resp.status, resp.read()


def main():
    magpie = sys.argv[1] if len(sys.argv) > 1 else "target/release/magpie"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    with tempfile.TemporaryDirectory() as data:
        serve = subprocess.Popen(
            [magpie, "serve", "--data", data, "--bind", "127.0.0.1:0", "--token", TOKEN],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            base = None
            for line in serve.stderr:
                if "listening on http://" in line:
                    base = "http://" + line.split("listening on http://")[1].split("/")[0]
                    break
            if base is None:
                sys.exit("magpie serve did not start")
            # Keep reading its log, so a full pipe never stalls it.
            threading.Thread(target=lambda: [None for _ in serve.stderr], daemon=True).start()
            request(base, "GET", "/api/v1/crawls")
            before = settled(serve.pid)
            t0 = time.monotonic()
            for i in range(n):
                spec = {
                    "name": f"idle-{i:03}",
                    "seeds": ["http://127.0.0.1:9/"],
                    "network": {"allow_private": True},
                }
                status, _ = request(base, "POST", "/api/v1/crawls", spec)
                assert status == 201, status
            created_s = time.monotonic() - t0
            _, listing = request(base, "GET", "/api/v1/crawls")
            assert len(json.loads(listing)["crawls"]) == n
            after = settled(serve.pid)
        finally:
            serve.terminate()
            serve.wait(timeout=60)
    print("| | RSS (MiB) | threads | open fds |")
    print("|---|---:|---:|---:|")
    print(f"| no crawl | {before[0]:.0f} | {before[1]} | {before[2]} |")
    print(f"| {n} idle crawls | {after[0]:.0f} | {after[1]} | {after[2]} |")
    print(
        f"| per idle crawl | {(after[0] - before[0]) * 1024 / n:.0f} KiB "
        f"| {(after[1] - before[1]) / n:.2f} | {(after[2] - before[2]) / n:.2f} |"
    )
    print(f"\n{n} crawls created in {created_s:.1f} s")


if __name__ == "__main__":
    main()
