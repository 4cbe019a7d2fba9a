#!/usr/bin/env python3
"""Side-by-side crawl throughput: magpie and its peers on one web served by nginx.

One command serves the crawl benchmark's web (50 hosts x 400 pages of 15-30 KB, about 40 links
a page, robots.txt, a stylesheet and 16 images on every host; written by `magpie sample-web`)
with nginx on 127.0.0.2-51, and crawls it from one seed with each crawler in turn, interleaved
over several rounds:

* magpie, archive only (`aah.enabled` and `index.enabled` false), the default spec (helper and
  live index on), and with a topic (analysis on); full WARC: gzip, request, response and
  metadata records, digests, revisits;
* GNU wget with `--warc-file` (gzip, digests; one connection at a time);
* wget2 (no WARC support), if installed;
* a small program on the `spider` crate with its WARC feature (`tests/bench/spider-warc`, a crate
  of its own, outside magpie's build), with `--spider build` (or `--spider PATH`).

For every run it reports pages/s (HTML pages nginx served with status 200, divided by the
crawler's wall time), CPU per page (user + system time of the crawler process and its children)
and peak RSS, both from GNU time. The pages are counted from nginx's access log, not from what the
crawlers say; for magpie it checks that all pages were fetched exactly once, robots.txt once per
host and before that host's first page, and fails otherwise.

    python3 tests/bench/peers.py                       # 3 rounds, builds magpie (release)
    python3 tests/bench/peers.py --rounds 5 --spider build
    python3 tests/bench/peers.py --write-docs          # also replace the table in docs/benchmarks.md

Needs nginx (Debian's nginx-light), wget; wget2 optional. Never touches the internet.
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOPIC = ["solar panel", "wind farm", "battery", "heat pump"]
PAGE = re.compile(r"^(/|/[a-z-]+/\d+\.html)$")


def log(msg):
    print(f"peers: {msg}", file=sys.stderr, flush=True)


def hosts(n):
    return [f"127.0.0.{2 + i}" for i in range(n)]


def nginx_conf(out, web, port, n):
    ng = os.path.join(out, "nginx")
    os.makedirs(os.path.join(ng, "tmp"), exist_ok=True)
    user = "user root root;\n" if os.geteuid() == 0 else ""
    servers = "\n".join(
        f"  server {{ listen {h}:{port}; server_name {h}; root {web}/{h}; index index.html; }}"
        for h in hosts(n))
    temps = "".join(f"  {k}_temp_path {ng}/tmp/{k};\n"
                    for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf = f"""# Written by tests/bench/peers.py: the sample web on loopback only.
{user}worker_processes 2;
pid {ng}/nginx.pid;
error_log {ng}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  types {{ text/html html; text/plain txt; text/css css; image/png png; application/xml xml; }}
  default_type application/octet-stream;
  charset utf-8;
  charset_types text/plain text/css;
  log_format peers '$server_addr $status $request_uri $msec $request_time';
  access_log {ng}/access.log peers;
{temps}  sendfile on;
  keepalive_requests 100000;
  keepalive_timeout 30;
  server_tokens off;
{servers}
}}
"""
    path = os.path.join(ng, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    return ng, path


def magpie_spec(port, variant, data):
    allow = r"^http://127\.0\.0\.\d+:%d/" % port
    spec = {
        "name": f"peers-{variant}",
        "seeds": [f"http://127.0.0.2:{port}/"],
        "scope": {"allow": [allow], "sitemaps": False},
        "politeness": {"min_delay_ms": 0, "max_delay_ms": 0, "delay_factor": 0.0,
                       "max_parallel_per_host": 4},
        "limits": {"max_pages": 1_000_000, "max_concurrency": 128},
        "warc": {"max_file_bytes": 1_000_000_000},
        "network": {"allow_private": True},
    }
    if variant == "magpie-archive":
        spec["aah"] = {"enabled": False}
        spec["index"] = {"enabled": False}
    if variant == "magpie-topic":
        spec["topic"] = {"keywords": TOPIC}
    path = os.path.join(data, "spec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


def command(name, args, port, n, work):
    """The command line of crawler `name`, run in the empty folder `work`."""
    seed = f"http://127.0.0.2:{port}/"
    domains = ",".join(hosts(n))
    if name.startswith("magpie"):
        base, alt = name.removesuffix("+alt"), name.endswith("+alt")
        spec = magpie_spec(port, base, work)
        binary = args.alt if alt else args.magpie
        return [binary, "crawl", spec, "--data", os.path.join(work, "data"), "--json"]
    if name == "wget":
        return ["wget", "-q", "-r", "-l", "inf", "-H", "-D", domains, "-p", "-nd",
                "--delete-after", "-e", "robots=on", "--warc-file", os.path.join(work, "wget"),
                seed]
    if name == "wget2":
        return ["wget2", "-q", "-r", "-l", "inf", "-H", "-D", domains, "-p", "-nd",
                "--delete-after", "--robots=on", seed]
    if name == "spider":
        return [args.spider, seed, os.path.join(work, "spider.warc"), "--hosts",
                ",".join(f"{h}:{port}" for h in hosts(n))]
    raise ValueError(name)


def run(cmd, cwd):
    """Runs `cmd` in `cwd`; returns (exit code, wall seconds, CPU seconds, peak RSS in MiB)."""
    # GNU time measures: a child forked from this Python process would inherit its peak RSS.
    errors, usage = os.path.join(cwd, "stderr.txt"), os.path.join(cwd, "time.txt")
    timed = ["/usr/bin/time", "-o", usage, "-f", "%U %S %M"] + cmd
    with open(errors, "wb") as err:
        t = time.monotonic()
        code = subprocess.run(timed, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err).returncode
        wall = time.monotonic() - t
    if code != 0:
        log(f"{cmd[0]} exited {code}: {open(errors, errors='replace').read()[-2000:]}")
    user, system, rss = open(usage).read().split()[-3:]
    return code, wall, float(user) + float(system), int(rss) / 1024


def read_log(path):
    """Per (host, path): how often nginx served it with 200, and when it was first requested.

    nginx logs a request when it ends, and its two workers write independently, so the order of
    lines is not the order of requests: a request's start is its log time less its duration."""
    counts, starts = {}, {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 5 or parts[1] != "200":
                continue
            key = (parts[0], parts[2])
            start = float(parts[3]) - float(parts[4])
            starts[key] = min(start, starts.get(key, start))
            counts[key] = counts.get(key, 0) + 1
    return counts, starts


def check(counts, starts, n, pages_per_host):
    """What is wrong with a crawl that should fetch every page once, obeying robots.txt."""
    problems = []
    pages = {k: c for k, c in counts.items() if PAGE.match(k[1])}
    if len(pages) != n * pages_per_host:
        problems.append(f"{len(pages)} distinct pages fetched, not {n * pages_per_host}")
    twice = [k for k, c in pages.items() if c > 1]
    if twice:
        problems.append(f"{len(twice)} pages fetched more than once, e.g. {twice[0]}")
    for h in hosts(n):
        robots = counts.get((h, "/robots.txt"), 0)
        if robots != 1:
            problems.append(f"robots.txt of {h} fetched {robots} times")
            continue
        first = min((t for k, t in starts.items() if k[0] == h and PAGE.match(k[1])), default=None)
        if first is not None and starts[(h, "/robots.txt")] > first:
            problems.append(f"{h}: a page was requested before robots.txt")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--port", type=int, default=8087)
    ap.add_argument("--hosts", type=int, default=50)
    ap.add_argument("--pages", type=int, default=400)
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "peers"))
    ap.add_argument("--magpie", default=None, help="a magpie binary (default: build release)")
    ap.add_argument("--alt", default=None,
                    help="a second magpie binary, run as magpie-*+alt beside the first (A/B)")
    ap.add_argument("--spider", default=None,
                    help="the spider-warc program, or `build` to build tests/bench/spider-warc")
    ap.add_argument("--only", default="", help="comma-separated crawler names to run")
    ap.add_argument("--write-docs", action="store_true",
                    help="replace the table between the peers markers in docs/benchmarks.md")
    args = ap.parse_args()
    if args.magpie is None:
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, check=True)
        args.magpie = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                                   "release", "magpie")
    args.magpie = os.path.abspath(args.magpie)
    if args.spider == "build":
        args.spider = build_spider()
    crawlers = ["magpie-archive", "magpie-default", "magpie-topic"]
    if args.alt:
        args.alt = os.path.abspath(args.alt)
        crawlers = [c for m in crawlers for c in (m, m + "+alt")]
    crawlers.append("wget")
    if shutil.which("wget2"):
        crawlers.append("wget2")
    else:
        log("wget2 is not installed: skipped")
    if args.spider:
        crawlers.append("spider")
    if args.only:
        crawlers = [c for c in crawlers if c in args.only.split(",")]
    out = os.path.abspath(args.out)
    web = os.path.join(out, "web")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run([args.magpie, "sample-web", "--out", web, "--port", str(args.port),
                    "--hosts", str(args.hosts), "--pages", str(args.pages)], check=True)
    ng, conf = nginx_conf(out, web, args.port, args.hosts)
    subprocess.run(["/usr/sbin/nginx", "-c", conf, "-p", ng], check=True)
    pid = int(open(os.path.join(ng, "nginx.pid")).read())
    results, failed = [], []
    try:
        for r in range(1, args.rounds + 1):
            for name in crawlers:
                work = os.path.join(out, "runs", f"{name}-{r}")
                os.makedirs(work)
                access = os.path.join(ng, "access.log")
                if os.path.exists(access):
                    os.replace(access, access + ".old")
                os.kill(pid, signal.SIGUSR1)  # reopen the access log
                time.sleep(0.5)
                code, wall, cpu, rss = run(command(name, args, args.port, args.hosts, work), work)
                time.sleep(0.5)
                counts, starts = read_log(access)
                pages = sum(1 for k in counts if PAGE.match(k[1]))
                row = {"round": r, "crawler": name, "exit": code, "pages": pages,
                       "seconds": round(wall, 2), "pages_per_s": round(pages / wall),
                       "cpu_ms_per_page": round(1000 * cpu / max(pages, 1), 3),
                       "peak_rss_mb": round(rss, 1),
                       "output_mb": round(du(work) / 1e6, 1)}
                if name.startswith("magpie"):
                    problems = check(counts, starts, args.hosts, args.pages)
                    if code != 0:
                        problems.append(f"exit code {code}")
                    row["problems"] = problems
                    if problems:
                        failed.append(row)
                print(json.dumps(row), flush=True)
                results.append(row)
                shutil.rmtree(work, ignore_errors=True)
    finally:
        subprocess.run(["/usr/sbin/nginx", "-c", conf, "-p", ng, "-s", "quit"], check=False)
    table = summary(results, crawlers)
    print(table)
    if args.write_docs:
        write_docs(table)
    if failed:
        log(f"magpie runs with problems: {json.dumps(failed)}")
        sys.exit(1)


def build_spider():
    """Builds the spider peer (a crate of its own, outside magpie's build) into target/."""
    target = os.path.join(ROOT, "target", "peers-spider")
    subprocess.run(["cargo", "build", "--release", "--locked", "--manifest-path",
                    os.path.join(ROOT, "tests", "bench", "spider-warc", "Cargo.toml")],
                   env={**os.environ, "CARGO_TARGET_DIR": target}, check=True)
    return os.path.join(target, "release", "spider-warc")


def du(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def summary(results, crawlers):
    lines = ["| crawler | pages (each round) | pages/s (each round) | median pages/s | "
             "CPU ms/page (median) | peak RSS MB (max) |",
             "|---|---|---|---:|---:|---:|"]
    for name in crawlers:
        rows = [r for r in results if r["crawler"] == name]
        if not rows:
            continue
        rates = [r["pages_per_s"] for r in rows]
        lines.append(
            f"| {name} | {', '.join(str(r['pages']) for r in rows)} | "
            f"{', '.join(f'{x:,}' for x in rates)} | {statistics.median(rates):,.0f} | "
            f"{statistics.median(r['cpu_ms_per_page'] for r in rows):.3f} | "
            f"{max(r['peak_rss_mb'] for r in rows):.0f} |")
    return "\n".join(lines)


def write_docs(table):
    path = os.path.join(ROOT, "docs", "benchmarks.md")
    text = open(path).read()
    begin, end = "<!-- peers:begin -->", "<!-- peers:end -->"
    if begin not in text or end not in text:
        log(f"{path} has no {begin} ... {end} markers: table not written")
        return
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    stamp = time.strftime("%Y-%m-%d %H:%M")
    with open(path, "w") as f:
        f.write(f"{head}{begin}\n{table}\n\n(`tests/bench/peers.py`, {stamp})\n{end}{tail}")


if __name__ == "__main__":
    main()
