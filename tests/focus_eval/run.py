#!/usr/bin/env python3
"""Run the real-text focused-crawling evaluation: nginx + reference crawlers + real magpie crawls.

Why: ``magpie eval topical`` scores magpie's analyzer on a simulated web. This harness runs the
real ``magpie crawl`` binary over HTTP against a loopback web of real, human-labelled documents
(``build_web.py``), next to two independent reference crawlers (``reference.py``), and measures
what each fetched against the labels, following Srinivasan, Menczer & Pant (2005):

* harvest@N: the fraction of the first N fetched HTML pages whose label is the topic;
* target recall@N: the fraction of the topic's targets (its pages on the web minus the seeds)
  among the first N fetched pages;
* relevance over the crawl: harvest in consecutive windows of ``--window`` pages.

One command does everything: builds the web if it is missing, starts nginx as a child process
(private prefix, pid, logs and temp paths under the web folder; stopped at the end), runs for
every topic the breadth-first (``bfs``) and naive best-first (``best``) reference crawlers and the
magpie variants asked for, reads magpie's fetch order from its WARC files (2xx text/html
``response``/``revisit`` records, in file and record order; robots.txt and other types left out),
prints a markdown table and writes the results as JSON.

magpie variants (``--variants``, comma-separated; ``all`` is every one of them):

* ``magpie``: the defaults (``frontier.update`` avg, ``balance_per_queue`` 1, default weights);
* ``first-bl1`` ... ``sum-bl5``: ``frontier.update`` first/last/max/avg/sum with
  ``balance_per_queue`` 1 and 5;
* ``no-document``, ``no-paragraph``, ``no-anchor``, ``no-url``: that weight set to 0;
* ``notopic``: no topic at all (magpie's depth-based, breadth-first-ish order);
* ``label-only``: the label's name as the only keyword; ``seeds-only``: no keywords, the seeds
  named as ``topic.reference_urls`` (the topic is the seed pages alone);
* ``no-learn``: ``scoring.learn`` false (fixed weights); ``no-best-n``: ``frontier.best_n`` 0;
* any variant followed by ``+path=value`` overrides of spec keys, values as JSON
  (``magpie+frontier.best_n=16``).

Every magpie spec has the same seeds and keywords as the reference crawlers (magpie adds the
seeds to its topic vector itself, docs/crawl-spec.md, so ``reference_urls`` stays empty), no
politeness delay, ``network.allow_private``, a ``scope.allow`` regex matching exactly the eval
hosts, ``limits.max_pages`` the budget, no index, no sitemaps (the web has none) and no depth
limit (the reference crawlers have none).

``--small`` is the CI mode: a web of about 3,000 pages, one topic, a budget of 300, the
variants ``bfs,best,magpie``. ``--assert`` exits 1 unless, on every topic, magpie's harvest at the
budget is at least 1.5 times breadth-first's and at least the reference best-first's.
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build_web  # noqa: E402
import reference  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

UPDATES = ["first", "last", "max", "avg", "sum"]
MAGPIE_VARIANTS = (["magpie"] + [f"{u}-bl{b}" for b in (1, 5) for u in UPDATES]
                   + ["no-document", "no-paragraph", "no-anchor", "no-url", "notopic",
                      "label-only", "seeds-only", "no-learn", "no-best-n"])
ALL_VARIANTS = ["bfs", "best"] + MAGPIE_VARIANTS


def log(*args):
    print("[focus-eval]", *args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# nginx
# ---------------------------------------------------------------------------------------------

class Nginx:
    """nginx in the foreground as our child, on the web's generated config."""

    def __init__(self, web_dir, meta):
        self.web_dir = web_dir
        self.conf = os.path.join(web_dir, "nginx.conf")
        self.prefix = os.path.join(web_dir, "nginx")
        self.meta = meta
        self.proc = None

    def probe(self, host):
        try:
            with urllib.request.urlopen(f"http://{host}:{self.meta['port']}/robots.txt",
                                        timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def stop_stale(self):
        """An nginx left by an earlier run of this harness (same config) is stopped first."""
        pidfile = os.path.join(self.prefix, "nginx.pid")
        try:
            pid = int(open(pidfile).read().strip())
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
        except (OSError, ValueError):
            return
        if "nginx" in cmdline and self.conf in cmdline:
            log(f"stopping nginx {pid} left by an earlier run")
            os.kill(pid, signal.SIGQUIT)
            for _ in range(50):
                if not os.path.exists(f"/proc/{pid}"):
                    break
                time.sleep(0.1)

    def start(self):
        exe = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(exe):
            raise SystemExit("focus-eval: nginx not found (apt-get install nginx-light)")
        self.stop_stale()
        os.makedirs(os.path.join(self.prefix, "tmp"), exist_ok=True)
        self.proc = subprocess.Popen([exe, "-p", self.prefix, "-c", self.conf,
                                      "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        hosts = self.meta["hosts"]
        for _ in range(100):
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace")
                raise SystemExit(f"focus-eval: nginx exited: {err}")
            if self.probe(hosts[0]) and self.probe(hosts[-1]):
                log(f"nginx {self.proc.pid} serving {len(hosts)} hosts on port {self.meta['port']}")
                return
            time.sleep(0.1)
        self.stop()
        raise SystemExit("focus-eval: nginx did not answer within 10 s")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


# ---------------------------------------------------------------------------------------------
# magpie
# ---------------------------------------------------------------------------------------------

def find_magpie(path):
    for p in ([path] if path else [os.path.join(REPO, "target/release/magpie"),
                                   os.path.join(REPO, "target/debug/magpie")]):
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.abspath(p)
    return None


def magpie_spec(name, topic, meta, budget, variant, delay_ms=0, duration=None):
    """The spec of one magpie run. A variant may end in ``+path=value`` overrides of any spec
    key (``magpie+frontier.best_n=0+politeness.min_delay_ms=1000``), values read as JSON."""
    variant, *overrides = variant.split("+")
    spec = base_spec(name, topic, meta, budget, variant, delay_ms, duration)
    for o in overrides:
        path, _, value = o.partition("=")
        *parents, leaf = path.split(".")
        node = spec
        for k in parents:
            node = node.setdefault(k, {})
        node[leaf] = json.loads(value)
    return spec


def base_spec(name, topic, meta, budget, variant, delay_ms=0, duration=None):
    """``delay_ms`` None: magpie's default politeness; a number: that minimum delay with no
    adaptive factor. ``budget`` None: no page limit (the largest ``max_pages``)."""
    hosts = "|".join(re.escape(h.split(".")[-1]) for h in meta["hosts"])
    spec = {
        "name": name,
        "seeds": topic["seeds"],
        "scope": {"allow": [rf"^http://127\.0\.1\.({hosts}):{meta['port']}/"],
                  "sitemaps": False, "max_depth": 10000},
        "politeness": {} if delay_ms is None else {"min_delay_ms": delay_ms,
                                                   "delay_factor": 0.0},
        "limits": {"max_pages": budget or 10**12},
        "network": {"allow_private": True},
        "index": {"enabled": False},
    }
    if duration:
        spec["limits"]["max_duration_s"] = duration
    if variant == "label-only":
        spec["topic"] = {"keywords": [topic["label"]]}
    elif variant == "seeds-only":
        spec["topic"] = {"reference_urls": topic["seeds"]}
    elif variant != "notopic":
        spec["topic"] = {"keywords": topic["keywords"]}
    m = re.match(r"^(first|last|max|avg|sum)-bl(\d+)$", variant)
    if m:
        spec["frontier"] = {"update": m.group(1), "balance_per_queue": int(m.group(2))}
    if variant == "no-learn":
        spec["scoring"] = {"learn": False}
    if variant == "no-best-n":
        spec["frontier"] = {"best_n": 0}
    m = re.match(r"^no-(document|paragraph|anchor|url)$", variant)
    if m:
        spec["scoring"] = {"weights": {m.group(1): 0.0}}
    return spec


def warc_fetch_order(crawl_dir, times=None):
    """URLs of 2xx text/html response (and revisit) records, in file and record order.
    ``times`` receives each one's WARC-Date in seconds after the first record of the crawl
    (its first robots.txt, written when the crawl's first fetch ended)."""
    from warcio.archiveiterator import ArchiveIterator  # pip install warcio
    import datetime

    def seconds(rec):
        d = rec.rec_headers.get_header("WARC-Date") or ""
        try:
            return datetime.datetime.fromisoformat(d.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None

    files = sorted(glob.glob(os.path.join(crawl_dir, "warc", "*.warc.gz*")))
    urls = []
    first = None
    for path in files:
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type in ("response", "revisit") and first is None:
                    first = seconds(rec)
                if rec.rec_type not in ("response", "revisit") or rec.http_headers is None:
                    continue
                try:
                    status = int(rec.http_headers.get_statuscode() or 0)
                except ValueError:
                    continue
                ctype = rec.http_headers.get_header("Content-Type") or ""
                url = rec.rec_headers.get_header("WARC-Target-URI")
                if 200 <= status < 300 and "text/html" in ctype and url:
                    urls.append(url)
                    if times is not None:
                        t = seconds(rec)
                        times.append(None if t is None or first is None else round(t - first, 3))
    return urls


def run_magpie(exe, run_dir, name, spec, timeout):
    data = os.path.join(run_dir, "data")
    if os.path.exists(data):
        shutil.rmtree(data)
    os.makedirs(run_dir, exist_ok=True)
    spec_path = os.path.join(run_dir, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f, indent=1)
    started = time.time()
    with open(os.path.join(run_dir, "stderr.log"), "wb") as err:
        proc = subprocess.Popen([exe, "crawl", spec_path, "--data", data, "--json"],
                                stdout=subprocess.PIPE, stderr=err)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            log(f"magpie {name} killed after {timeout} s")
    seconds = time.time() - started
    summary = None
    for line in reversed(out.decode(errors="replace").strip().splitlines()):
        try:
            summary = json.loads(line)
            break
        except ValueError:
            continue
    if proc.returncode != 0:
        log(f"magpie {name} exited {proc.returncode}; see {run_dir}/stderr.log")
    times = []
    fetched = warc_fetch_order(os.path.join(data, name), times)
    return fetched, {"exit": proc.returncode, "seconds": round(seconds, 2), "summary": summary,
                     "times": times}


# ---------------------------------------------------------------------------------------------
# Measures
# ---------------------------------------------------------------------------------------------

def canon(url):
    return reference.canonical(url)


def original_of(url):
    """The page a copy of the web's (build_web.py: ``?ref=``, ``?utm_source=``, ``?sid=``,
    ``/print/``) stands for: the URL without its query and ``/print`` prefix."""
    p = urllib.parse.urlsplit(url)
    path = p.path[len("/print"):] if p.path.startswith("/print/") else p.path
    return canon(urllib.parse.urlunsplit((p.scheme, p.netloc, path, "", "")))


def contents(keys, label_of):
    """Per fetched URL, the page of the web it serves (a copy serves its original's) and
    whether that page was fetched before, under another URL: a copy costs a fetch, brings
    nothing new and counts as not relevant."""
    seen, out = set(), []
    for k in keys:
        page = original_of(k) if k not in label_of and original_of(k) in label_of else k
        out.append((page, page in seen))
        seen.add(page)
    return out


def measure(fetched, label_of, topic, checkpoints, window, times=None, time_marks=()):
    """Harvest and recall at the checkpoints, the relevance windows, the relevant pages in all,
    and (given each page's fetch time) the relevant pages fetched by each time mark."""
    label = topic["label"]
    seeds = {canon(u) for u in topic["seeds"]}
    targets = {u for u, l in label_of.items() if l == label and u not in seeds}
    keys = [canon(u) for u in fetched]
    served = contents(keys, label_of)
    on = [label_of.get(page) == label and not again for page, again in served]
    res = {"pages": len(keys), "unknown_urls": sum(1 for k in keys if k not in label_of),
           "duplicates": len(keys) - len(set(keys)),
           "copies": sum(1 for _, again in served if again),
           "harvest": {}, "recall": {}}
    pages = [page for page, _ in served]
    for n in checkpoints:
        first = keys[:n]
        res["harvest"][n] = round(sum(on[:n]) / len(first), 4) if first else 0.0
        res["recall"][n] = round(len(targets & set(pages[:n])) / len(targets), 4) if targets else 0.0
    res["windows"] = [round(sum(on[i:i + window]) / len(on[i:i + window]), 3)
                      for i in range(0, len(on), window)]
    res["relevant"] = sum(on)
    res["harvest_all"] = round(sum(on) / len(on), 4) if on else 0.0
    if times and len(times) == len(on) and time_marks:
        res["relevant_at"] = {m: sum(1 for o, t in zip(on, times) if o and t is not None and t <= m)
                              for m in time_marks}
    return res


def topic_pages_per_host(web_dir, label):
    """How many pages of the topic each host of the web serves."""
    per = {}
    with open(os.path.join(web_dir, "truth.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            _, lab, host = line.rstrip("\n").split("\t")[:3]
            if lab == label:
                per[host] = per.get(host, 0) + 1
    return per


def ceiling(per_host, delay_ms, seconds):
    """The politeness ceiling: the most relevant pages any crawler can fetch in `seconds` when
    it waits `delay_ms` milliseconds between two fetches from a host, even one that knew every
    topic page's URL from the start and fetched nothing else (one fetch per host at 0 s, then
    one per delay). In whole milliseconds: 30 // 0.1 is 299.0 in floating point."""
    slots = round(seconds * 1000) // delay_ms + 1
    return sum(min(n, slots) for n in per_host.values())


def load_truth(web_dir):
    label_of = {}
    with open(os.path.join(web_dir, "truth.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            url, label = line.rstrip("\n").split("\t")[:2]
            label_of[canon(url)] = label
    return label_of


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------

def fmt(x):
    return f"{x:.3f}"


def rate_table(results, time_marks, ceilings=None):
    """Per topic: what each crawler collected in its time, for the politeness runs; with
    `ceilings` (per topic, per mark), the politeness ceiling as a last row."""
    lines = []
    topics = list(dict.fromkeys(r["topic"] for r in results))
    marks = [f"relevant@{m:g}s" for m in time_marks]
    for t in topics:
        lines.append(f"\n#### topic `{t}`: relevant pages over time\n")
        lines.append("| crawler | pages | seconds | harvest | relevant | relevant/s | "
                     + " | ".join(marks) + (" | " if marks else "")
                     + "reported harvest | regime |")
        lines.append("|---|---:|---:|---:|---:|---:|" + "---:|" * len(marks) + "---:|---|")
        for r in results:
            if r["topic"] != t:
                continue
            m = r["measures"]
            at = m.get("relevant_at", {})
            summ = r.get("summary") or {}
            reported = fmt(summ["harvest_ratio"]) if "harvest_ratio" in summ else "-"
            regime = (summ.get("pacing") or {}).get("regime", "-") if summ else "-"
            secs = r["seconds"] or 1e-9
            vals = [str(at.get(mk, "-")) for mk in time_marks]
            lines.append(f"| {r['variant']} | {m['pages']} | {r['seconds']} | "
                         f"{fmt(m['harvest_all'])} | {m['relevant']} | {m['relevant'] / secs:.2f} | "
                         + " | ".join(vals) + (" | " if vals else "")
                         + f"{reported} | {regime} |")
        if ceilings and t in ceilings:
            c = ceilings[t]
            lines.append("| ceiling (politeness) | - | - | - | - | - | "
                         + " | ".join(str(c[mk]) for mk in time_marks)
                         + (" | " if time_marks else "") + "- | - |")
    return "\n".join(lines) + "\n"


def markdown(results, checkpoints):
    cols = ([f"harvest@{n}" for n in checkpoints] + [f"recall@{n}" for n in checkpoints])
    lines = []
    topics = list(dict.fromkeys(r["topic"] for r in results))
    variants = list(dict.fromkeys(r["variant"] for r in results))
    for t in topics:
        lines.append(f"\n#### topic `{t}`\n")
        lines.append("| crawler | pages | copies | " + " | ".join(cols) + " | seconds |")
        lines.append("|---|---:|---:|" + "---:|" * len(cols) + "---:|")
        for r in results:
            if r["topic"] != t:
                continue
            m = r["measures"]
            vals = [fmt(m["harvest"][n]) for n in checkpoints] + [fmt(m["recall"][n]) for n in checkpoints]
            lines.append(f"| {r['variant']} | {m['pages']} | {m.get('copies', '-')} | " + " | ".join(vals)
                         + f" | {r['seconds']} |")
    if len(topics) > 1:
        lines.append(f"\n#### mean over {len(topics)} topics\n")
        lines.append("| crawler | " + " | ".join(cols) + " |")
        lines.append("|---|" + "---:|" * len(cols))
        for v in variants:
            rs = [r for r in results if r["variant"] == v]
            vals = []
            for kind in ("harvest", "recall"):
                for n in checkpoints:
                    vals.append(fmt(sum(r["measures"][kind][n] for r in rs) / len(rs)))
            lines.append(f"| {v} | " + " | ".join(vals) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--web", default=None, help="web folder (default target/focus-eval/web[-small])")
    p.add_argument("--small", action="store_true", help="CI mode (see the module docstring)")
    p.add_argument("--corpus", default="wordnet", help="corpus when the web must be built")
    p.add_argument("--seed", type=int, default=1, help="web seed when the web must be built")
    p.add_argument("--magpie", default=None,
                   help="magpie binary (default target/release/magpie, else target/debug/magpie)")
    p.add_argument("--budget", type=int, default=None, help="pages per crawl (default 2000; small 300)")
    p.add_argument("--variants", default=None,
                   help=f"comma-separated, or 'all': {','.join(ALL_VARIANTS)} "
                        "(default all; small bfs,best,magpie)")
    p.add_argument("--topics", default="", help="comma-separated topic labels (default: all in topics.json)")
    p.add_argument("--window", type=int, default=None, help="window of the relevance curve (200)")
    p.add_argument("--timeout", type=int, default=3600, help="seconds per magpie crawl")
    p.add_argument("--json", default=None, help="results file (default WEB/results.json)")
    p.add_argument("--keep-data", action="store_true", help="keep magpie's crawl folders")
    p.add_argument("--assert", dest="check", action="store_true",
                   help="exit 1 unless magpie >= 1.5x bfs and >= best in harvest at the budget")
    p.add_argument("--delay-ms", default="0",
                   help="politeness of every crawler: the least milliseconds between two fetches "
                        "from one host (magpie: politeness.min_delay_ms, delay_factor 0), or "
                        "'default' for magpie's defaults (1,000 ms, delay_factor 5; the "
                        "reference crawlers wait 1 s). Default 0: no politeness delay")
    p.add_argument("--duration", type=float, default=None,
                   help="seconds per crawl (magpie: limits.max_duration_s); with --budget 0, "
                        "a time-bound crawl")
    p.add_argument("--time-marks", default="",
                   help="comma-separated seconds at which relevant pages are counted "
                        "(default: quarters of --duration)")
    p.add_argument("--assert-rate", type=float, default=None, metavar="X",
                   help="exit 1 unless, on every topic, magpie's relevant pages per second are "
                        "at least X times those of notopic (magpie breadth-first, same politeness)")
    args = p.parse_args(argv)

    small = args.small
    web_dir = os.path.abspath(args.web or os.path.join(
        REPO, "target/focus-eval/web-small" if small else "target/focus-eval/web"))
    if args.delay_ms == "default":
        delay_ms, ref_delay = None, 1.0
    else:
        delay_ms = int(args.delay_ms)
        ref_delay = delay_ms / 1000.0
    duration = args.duration
    if args.time_marks:
        time_marks = [float(x) for x in args.time_marks.split(",") if x.strip()]
    elif duration:
        time_marks = [round(duration * q / 4, 1) for q in (1, 2, 3, 4)]
    else:
        time_marks = []
    timing = duration is not None or delay_ms != 0
    budget = (None if args.budget == 0 else args.budget) if args.budget is not None \
        else (300 if small else 2000)
    variants = args.variants or ("bfs,best,magpie" if small else "all")
    variants = ALL_VARIANTS if variants == "all" else [v.strip() for v in variants.split(",") if v.strip()]
    for v in variants:
        if v.split("+")[0] not in ALL_VARIANTS:
            raise SystemExit(f"focus-eval: unknown variant {v!r}; known: {', '.join(ALL_VARIANTS)}")
    if budget is None:
        checkpoints = []
    elif budget >= 1000:
        checkpoints = sorted({n for n in (500, 1000, 2000, 5000) if n <= budget} | {budget})
    else:
        checkpoints = sorted({budget // 3, 2 * budget // 3, budget})
    window = args.window or (200 if (budget or 2000) >= 1000 else max(25, budget // 6))

    if not os.path.exists(os.path.join(web_dir, "web.json")):
        bargs = ["--out", web_dir, "--corpus", args.corpus, "--seed", str(args.seed)]
        if small:
            bargs.append("--small")
        log("building the web: build_web.py " + " ".join(bargs))
        build_web.main(bargs)
    meta = json.load(open(os.path.join(web_dir, "web.json")))
    topics = json.load(open(os.path.join(web_dir, "topics.json")))
    if args.topics:
        wanted = [t.strip() for t in args.topics.split(",")]
        topics = [t for t in topics if t["label"] in wanted]
    label_of = load_truth(web_dir)
    netlocs = [f"{h}:{meta['port']}" for h in meta["hosts"]]

    exe = None
    if any(v.split("+")[0] in MAGPIE_VARIANTS for v in variants):
        exe = find_magpie(args.magpie)
        if exe is None:
            raise SystemExit("focus-eval: no magpie binary (cargo build --release --bin magpie, "
                             "or pass --magpie PATH)")
        log(f"magpie: {exe}")

    nginx = Nginx(web_dir, meta)
    nginx.start()
    results = []
    try:
        for topic in topics:
            label = topic["label"]
            log(f"topic {label}: {topic['pages_on_web']} pages, keywords {topic['keywords']}")
            for v in variants:
                run_dir = os.path.join(web_dir, "runs", label, re.sub(r"[^A-Za-z0-9_.=-]", "_", v))
                os.makedirs(run_dir, exist_ok=True)
                started = time.time()
                extra = {}
                times = []
                if v in ("bfs", "best"):
                    fetched, stats = reference.crawl(topic["seeds"], topic["keywords"], v, budget,
                                                     netlocs, delay=ref_delay, duration=duration,
                                                     times=times)
                    extra = {"reference": stats}
                else:
                    name = re.sub(r"[^A-Za-z0-9_.-]", "-", f"{label}-{v}")[:64]
                    spec = magpie_spec(name, topic, meta, budget, v, delay_ms,
                                       int(duration) if duration else None)
                    fetched, extra = run_magpie(exe, run_dir, name, spec, args.timeout)
                    times = extra.pop("times")
                    if not args.keep_data:
                        shutil.rmtree(os.path.join(run_dir, "data"), ignore_errors=True)
                seconds = round(time.time() - started, 2)
                with open(os.path.join(run_dir, "fetched.txt"), "w") as f:
                    f.write("\n".join(fetched) + "\n")
                m = measure(fetched, label_of, topic, checkpoints, window, times, time_marks)
                results.append({"topic": label, "variant": v, "seconds": seconds,
                                "measures": m, "times": times, **extra})
                reported = (extra.get("summary") or {}).get("harvest_ratio")
                log(f"  {v:13s} pages {m['pages']:5d} harvest {m['harvest_all']:.3f} relevant "
                    f"{m['relevant']} copies {m['copies']} ({seconds} s)"
                    + (f" reported harvest {reported:.3f}" if reported is not None else ""))
    finally:
        nginx.stop()

    table = markdown(results, checkpoints) if checkpoints else ""
    ceilings = {}
    if ref_delay > 0:
        for topic in topics:
            per = topic_pages_per_host(web_dir, topic["label"])
            ceilings[topic["label"]] = {m: ceiling(per, round(ref_delay * 1000), m)
                                        for m in time_marks}
    if timing or args.assert_rate is not None:
        table += rate_table(results, time_marks, ceilings)
    politeness = ("magpie's default politeness (1 s)" if delay_ms is None
                  else f"{delay_ms} ms between fetches per host")
    header = (f"Web: {meta['pages']} pages on {len(meta['hosts'])} hosts, corpus {meta['corpus']} "
              f"({meta['provenance'].get('package', '')} {meta['provenance'].get('version', '')}); "
              f"budget {budget or 'none'} pages; time {duration or 'no limit'} s; {politeness}; "
              f"relevance windows of {window} pages in the JSON.\n")
    print(header + table)
    out = args.json or os.path.join(web_dir, "results.json")
    with open(out, "w") as f:
        json.dump({"web": {k: meta[k] for k in ("corpus", "provenance", "pages", "pages_by_kind",
                                                 "hosts", "port", "labels")},
                   "budget": budget, "duration": duration, "delay_ms": delay_ms,
                   "checkpoints": checkpoints, "window": window, "time_marks": time_marks,
                   "ceilings": ceilings,
                   "topics": topics, "results": results}, f, indent=1)
    log(f"results: {out}")

    if args.check:
        failed = []
        for topic in topics:
            by = {r["variant"]: r["measures"]["harvest"][budget] for r in results
                  if r["topic"] == topic["label"]}
            missing = [v for v in ("bfs", "best", "magpie") if v not in by]
            if missing:
                raise SystemExit(f"focus-eval: --assert needs the variants bfs,best,magpie "
                                 f"(missing {missing})")
            if not (by["magpie"] >= 1.5 * by["bfs"] and by["magpie"] >= by["best"]):
                failed.append(f"{topic['label']}: magpie {by['magpie']:.3f}, bfs {by['bfs']:.3f} "
                              f"(x1.5 = {1.5 * by['bfs']:.3f}), best {by['best']:.3f}")
        if failed:
            print("ASSERTION FAILED: magpie harvest must be >= 1.5x breadth-first and >= "
                  "reference best-first:\n  " + "\n  ".join(failed))
            sys.exit(1)
        print("assertions passed: magpie >= 1.5x bfs and >= best on every topic")

    if args.assert_rate is not None:
        failed = []
        for topic in topics:
            by = {r["variant"]: r["measures"]["relevant"] / max(r["seconds"], 1e-9)
                  for r in results if r["topic"] == topic["label"]}
            if "magpie" not in by or "notopic" not in by:
                raise SystemExit("focus-eval: --assert-rate needs the variants magpie,notopic")
            if not by["magpie"] >= args.assert_rate * by["notopic"]:
                failed.append(f"{topic['label']}: magpie {by['magpie']:.2f} relevant pages/s, "
                              f"notopic {by['notopic']:.2f} (x{args.assert_rate:g} = "
                              f"{args.assert_rate * by['notopic']:.2f})")
        if failed:
            print(f"ASSERTION FAILED: magpie's relevant pages per second must be >= "
                  f"{args.assert_rate:g}x breadth-first's:\n  " + "\n  ".join(failed))
            sys.exit(1)
        print(f"assertions passed: magpie's relevant pages per second >= {args.assert_rate:g}x "
              f"breadth-first's on every topic")


if __name__ == "__main__":
    main()
