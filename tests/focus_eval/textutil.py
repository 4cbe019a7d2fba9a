"""Plain text helpers shared by the web builder and the reference crawler.

Why a module of its own: the keywords of a topic (chosen by ``build_web.py``) and the cosine of
the reference best-first crawler (``reference.py``) must see text the same way, and neither may
borrow anything from magpie. Everything here is deliberately simple and documented, in the spirit
of the naive best-first crawler of Pant, Srinivasan & Menczer: lowercase words, an English
stopword list, a light suffix stripper, raw term frequencies (no IDF while crawling), cosine.
"""

import math
import re
from collections import Counter
from html.parser import HTMLParser

# A common English stopword list (the classic SMART/NLTK core), lowercase.
STOPWORDS = frozenset("""
a about above after again against all am an and any are aren as at be because been before being
below between both but by can cannot could couldn did didn do does doesn doing don down during each
few for from further had hadn has hasn have haven having he her here hers herself him himself his
how i if in into is isn it its itself just ll me might more most must mustn my myself needn no nor
not now o of off on once only or other ought our ours ourselves out over own re s same shan she
should shouldn so some such t than that the their theirs them themselves then there these they this
those through to too under until up us ve very was wasn we were weren what when where which while
who whom why will with won would wouldn y you your yours yourself yourselves also one two may
said says say like get got new
""".split())

WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)


def stem(word):
    """Strip a few English suffixes (plural s/es/ies, -ing, -ed).

    Deliberately light (an S-stemmer plus two verb endings): enough to match "planets" with
    "planet" and "elections" with "election", never clever enough to matter for one topic.
    """
    w = word
    if len(w) > 4 and w.endswith("ies") and not w.endswith(("eies", "aies")):
        w = w[:-3] + "y"
    elif len(w) > 3 and w.endswith("es") and not w.endswith(("aes", "ees", "oes", "ses")):
        w = w[:-1]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("us", "ss", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)]
            break
    return w


def words(text):
    """Lowercase letter runs of two or more letters, stopwords removed (not stemmed)."""
    return [w for w in WORD_RE.findall(text.lower()) if len(w) > 1 and w not in STOPWORDS]


def terms(text):
    """The stemmed content words of ``text``."""
    return [stem(w) for w in words(text)]


def tf_vector(text):
    """Raw term frequencies of the stemmed content words."""
    return Counter(terms(text))


def norm(vec):
    return math.sqrt(sum(v * v for v in vec.values()))


def unit(vec):
    n = norm(vec)
    return {t: v / n for t, v in vec.items()} if n else {}


def cosine(a, b):
    """Cosine similarity of two sparse vectors (dicts)."""
    if not a or not b:
        return 0.0
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(t, 0.0) for t, v in a.items())
    if not dot:
        return 0.0
    return dot / (norm(a) * norm(b))


class PageParser(HTMLParser):
    """Collects the visible text (title included, script/style left out) and the links of a page.

    ``links`` is a list of (href, anchor text) in document order; hrefs are as written.
    """

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = []
        self.links = []
        self.title = []
        self._skip = 0
        self._in_title = False
        self._anchor = None

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "noscript", "template"):
            self._skip += 1
        elif tag == "title":
            self._in_title = True
        elif tag == "a":
            href = dict(attrs).get("href")
            if href is not None:
                self._anchor = [href, []]
                self.links.append(self._anchor)

    def handle_endtag(self, tag):
        if tag in ("script", "style", "noscript", "template"):
            self._skip = max(0, self._skip - 1)
        elif tag == "title":
            self._in_title = False
        elif tag == "a":
            self._anchor = None

    def handle_data(self, data):
        if self._skip:
            return
        if self._in_title:
            self.title.append(data)
        self.text.append(data)
        if self._anchor is not None:
            self._anchor[1].append(data)

    def result(self):
        links = [(href, " ".join("".join(parts).split())) for href, parts in self.links]
        return " ".join(" ".join(self.text).split()), links


def parse_page(html):
    """(visible text, [(href, anchor text)]) of an HTML document."""
    parser = PageParser()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # html.parser is lenient; a broken page still yields what was read
        pass
    return parser.result()
