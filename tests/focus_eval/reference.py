#!/usr/bin/env python3
"""Reference crawlers for the focus evaluation: breadth-first and naive best-first.

Why: magpie's harvest needs yardsticks that share nothing with magpie. These two crawlers are
the classic baselines of topical crawling (Pant, Srinivasan & Menczer, "Crawling the Web",
2004; Srinivasan, Menczer & Pant 2005), written from their definitions with the standard
library only:

* ``bfs``: a FIFO frontier; outlinks are queued in the order they are found.
* ``best``: the naive best-first crawler. The topic vector is the keywords plus the seed pages:
  each seed page's term-frequency vector, scaled to length 1, is added as soon as the seed is
  fetched, and every keyword term weighs at least as much as the heaviest term that comes from
  the seed pages only (the same information magpie gets from ``topic.keywords`` and its seeds).
  Every outlink of a fetched page gets as priority the cosine between the parent page's
  term-frequency vector (its whole visible text: title, navigation, article, related links) and
  the topic vector; a URL found again keeps its highest priority; the globally best URL is
  always fetched next (ties: first found first). Seeds are fetched first.

Both fetch one page at a time with urllib (with ``--delay``, waiting that long between two
fetches from one host and taking the next URL from the hosts whose pause is over), obey robots.txt (urllib.robotparser, one robots.txt
per host, fetched before the host's first page and not counted), stay on the hosts of the
evaluation web, and stop after ``budget`` HTML pages (2xx, text/html). Non-HTML responses and
errors are not counted. Text is tokenised by ``textutil`` (lowercase words, English stopwords
removed, light suffix stripping, raw term frequencies).

Command line: ``reference.py --web DIR --topic LABEL --strategy best --budget 2000 --out FILE``
writes the fetched URLs, one per line, in fetch order.
"""

import argparse
import heapq
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import urllib.robotparser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import textutil  # noqa: E402

USER_AGENT = "focus-eval-reference/1.0"


class Fetcher:
    """HTTP GET with robots.txt, restricted to a set of hosts ("ip:port")."""

    def __init__(self, allowed_netlocs, timeout=10.0):
        self.allowed = set(allowed_netlocs)
        self.timeout = timeout
        self.robots = {}
        self.robots_fetches = 0

    def in_scope(self, url):
        p = urllib.parse.urlsplit(url)
        return p.scheme == "http" and p.netloc in self.allowed

    def allowed_by_robots(self, url):
        p = urllib.parse.urlsplit(url)
        rp = self.robots.get(p.netloc)
        if rp is None:
            rp = urllib.robotparser.RobotFileParser(f"http://{p.netloc}/robots.txt")
            try:
                rp.read()
            except (urllib.error.URLError, OSError):
                rp.allow_all = True  # unreachable robots.txt: treated as no restrictions
            self.robots_fetches += 1
            self.robots[p.netloc] = rp
        return rp.can_fetch(USER_AGENT, url)

    def get(self, url):
        """(final url, html text) for a 2xx text/html response, else None."""
        req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                ctype = resp.headers.get("Content-Type", "")
                if not (200 <= resp.status < 300) or "text/html" not in ctype:
                    return None
                charset = resp.headers.get_content_charset() or "utf-8"
                return resp.geturl(), resp.read().decode(charset, "replace")
        except (urllib.error.URLError, OSError, ValueError):
            return None


def outlinks(base, links):
    """Absolute http(s) URLs of the links, fragments removed, in document order, deduplicated."""
    out, seen = [], set()
    for href, anchor in links:
        u = urllib.parse.urljoin(base, href.strip())
        u = urllib.parse.urldefrag(u)[0]
        if u.startswith(("http://", "https://")) and u not in seen:
            seen.add(u)
            out.append((u, anchor))
    return out


def canonical(url):
    """The seen-test key: lowercase scheme and host, empty path as '/'."""
    p = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((p.scheme.lower(), p.netloc.lower(), p.path or "/", p.query, ""))


class Topic:
    """Keywords plus the seed pages added as they are fetched (see module docstring)."""

    def __init__(self, keywords):
        self.keyword_terms = {t for k in keywords for t in textutil.terms(k)}
        self.ref = {}
        self.vector = {}
        self._rebuild()

    def add_reference(self, text):
        for t, v in textutil.unit(textutil.tf_vector(text)).items():
            self.ref[t] = self.ref.get(t, 0.0) + v
        self._rebuild()

    def _rebuild(self):
        vec = dict(self.ref)
        heaviest = max([v for t, v in self.ref.items() if t not in self.keyword_terms] or [1.0])
        for t in self.keyword_terms:
            vec[t] = max(vec.get(t, 0.0), heaviest, 1.0)
        self.vector = vec


def crawl(seeds, keywords, strategy, budget, allowed_netlocs, log_every=0, delay=0.0,
          duration=None, times=None):
    """Run one crawl; returns (fetched URLs in order, stats dict).

    ``delay``: politeness, the least number of seconds between two fetches from one host (as
    magpie's ``politeness.min_delay_ms``). With a delay the crawler is still sequential, but
    takes the next URL from the hosts whose pause is over (the best such URL for ``best``, the
    earliest found for ``bfs``) and sleeps only when no host with queued URLs may be fetched
    from. ``duration``: stop after this many seconds. ``budget`` None: no page limit.
    ``times``: a list that receives each fetched page's time, in seconds from the start."""
    fetcher = Fetcher(allowed_netlocs)
    topic = Topic(keywords)
    seed_keys = {canonical(s) for s in seeds}
    seen = set()
    fetched = []
    counter = 0
    if strategy not in ("bfs", "best"):
        raise ValueError(strategy)
    queues = {}    # netloc -> heap of (key, order, url); key: -priority (best) or order (bfs)
    best = {}      # canonical url -> best priority queued (best)
    next_at = {}   # netloc -> earliest time of its next fetch

    def push(url, priority):
        nonlocal counter
        key = canonical(url)
        counter += 1
        q = queues.setdefault(urllib.parse.urlsplit(url).netloc, [])
        if strategy == "bfs":
            if key not in seen:
                seen.add(key)
                heapq.heappush(q, (counter, counter, url))
            return
        if key in seen:
            return  # already fetched (or dropped)
        if priority > best.get(key, -1.0):
            best[key] = priority
            heapq.heappush(q, (-priority, counter, url))

    def top(q):
        """The head of a host queue, stale entries dropped."""
        while q:
            k, _, url = q[0]
            if strategy == "bfs" or (canonical(url) not in seen and best.get(canonical(url)) == -k):
                return q[0]
            heapq.heappop(q)
        return None

    def pop():
        """The next URL: the best (or earliest found) of the hosts that may be fetched from."""
        while True:
            now = time.time()
            ready, wake = None, None
            for host, q in queues.items():
                head = top(q)
                if head is None:
                    continue
                t = next_at.get(host, 0.0)
                if t <= now:
                    if ready is None or head[:2] < ready[0][:2]:
                        ready = (head, host)
                elif wake is None or t < wake:
                    wake = t
            if ready is not None:
                head, host = ready
                heapq.heappop(queues[host])
                if strategy == "best":
                    seen.add(canonical(head[2]))
                next_at[host] = now + delay
                return head[2]
            if wake is None:
                return None
            time.sleep(max(0.0, wake - now))

    for s in seeds:
        push(s, 2.0)  # seeds first (cosines are at most 1)
    started = time.time()
    pages_seen = 0
    while budget is None or len(fetched) < budget:
        if duration is not None and time.time() - started >= duration:
            break
        url = pop()
        if url is None:
            break
        if not fetcher.in_scope(url) or not fetcher.allowed_by_robots(url):
            continue
        got = fetcher.get(url)
        pages_seen += 1
        if got is None:
            continue
        final_url, body = got
        fetched.append(url)
        if times is not None:
            times.append(round(time.time() - started, 3))
        text, links = textutil.parse_page(body)
        if strategy == "best":
            if canonical(url) in seed_keys:
                topic.add_reference(text)
            score = textutil.cosine(textutil.tf_vector(text), topic.vector)
        else:
            score = 0.0
        for u, _anchor in outlinks(final_url, links):
            if fetcher.in_scope(u):
                push(u, score)
        if log_every and len(fetched) % log_every == 0:
            print(f"[reference {strategy}] {len(fetched)} pages", file=sys.stderr, flush=True)
    stats = {"strategy": strategy, "pages": len(fetched), "requests": pages_seen,
             "robots_fetches": fetcher.robots_fetches, "seconds": round(time.time() - started, 2)}
    return fetched, stats


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--web", required=True, help="the folder build_web.py wrote")
    p.add_argument("--topic", required=True, help="a topic label from topics.json")
    p.add_argument("--strategy", choices=["bfs", "best"], required=True)
    p.add_argument("--budget", type=int, default=2000)
    p.add_argument("--out", required=True, help="file for the fetched URLs, one per line")
    p.add_argument("--delay", type=float, default=0.0, help="seconds between fetches per host")
    p.add_argument("--duration", type=float, default=None, help="stop after this many seconds")
    args = p.parse_args(argv)
    web = json.load(open(os.path.join(args.web, "web.json")))
    topics = {t["label"]: t for t in json.load(open(os.path.join(args.web, "topics.json")))}
    t = topics[args.topic]
    netlocs = [f"{h}:{web['port']}" for h in web["hosts"]]
    fetched, stats = crawl(t["seeds"], t["keywords"], args.strategy, args.budget or None, netlocs,
                           log_every=500, delay=args.delay, duration=args.duration)
    with open(args.out, "w") as f:
        f.write("\n".join(fetched) + "\n")
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
