//! Category evidence from conventions any blog, forum, wiki, news or documentation engine
//! follows: schema.org types, a `generator` meta tag that says what kind of engine it is, the
//! universal wiki edit link (`application/x-wiki`), feeds, dates, the texts of links (`Reply`,
//! `Edit`, `Older posts`, a mailing-list archive's `Thread Index`, replies named `Re: ...`), edit and history actions in links, links to the previous and next
//! page of a manual, the column headers of board indexes, and a page saying when it was last
//! changed.
//!
//! No application is named, and no class name is evidence of a category by itself (every theme
//! has a `page`, `post` or `history` class, and reading them made a documentation site a wiki):
//! a class marks a heading (`title`, for the API headings), and a byline's author and date
//! are read together, in one article (`byline.rs`).

use std::sync::LazyLock;

use ego_tree::NodeRef;
use regex::Regex;
use scraper::Node;

use super::engine::{credited_engine, engine_category};
use super::page::Page;
use super::{name, node_text};
use crate::aah::kb::Category;

/// Evidence per category (in [`Category::ALL`] order) and what gave it.
#[derive(Debug, Default)]
pub(super) struct Evidence {
    pub(super) points: [u32; 6],
    pub(super) signals: Vec<String>,
    /// The page's part of its host as its navigation marks it ([`super::part::current`]).
    pub(super) part: Option<String>,
}

impl Evidence {
    fn add(&mut self, c: Category, n: u32, why: impl Into<String>) {
        let i = Category::ALL.iter().position(|&x| x == c).unwrap_or(0);
        self.points[i] = self.points[i].saturating_add(n);
        self.signals.push(why.into());
    }
}

/// Whole link texts only one kind of engine writes.
const LINK_TEXTS: [(Category, &[&str]); 3] = [
    (
        Category::Wiki,
        &[
            "edit",
            "history",
            "recent changes",
            "recentchanges",
            "page history",
            "what links here",
            "backlinks",
            "old revisions",
            "changelog",
            "page index",
            "title index",
            "titleindex",
        ],
    ),
    (
        Category::Forum,
        &[
            "reply",
            "quote",
            "new topic",
            "post reply",
            "new thread",
            "mark forums read",
            // Mailing-list archives (MHonArc, Pipermail, Hypermail): a discussion's messages
            // listed and walked by thread.
            "thread",
            "thread index",
            "date index",
            "thread next",
            "thread prev",
            "next in thread",
            "previous in thread",
        ],
    ),
    (
        Category::Blog,
        &[
            "older posts",
            "newer posts",
            "leave a comment",
            "continue reading",
            "read more",
            "older entries",
            "newer entries",
            "archive",
            "archives",
        ],
    ),
];

/// Words of a `keywords` meta tag that say what kind of site it is.
const KEYWORD_WORDS: [(&str, Category); 5] = [
    ("wiki", Category::Wiki),
    ("forum", Category::Forum),
    ("blog", Category::Blog),
    ("documentation", Category::Docs),
    ("news", Category::News),
];

static WIKI_ACTION: LazyLock<Regex> = LazyLock::new(|| {
    // `/_history/`, `/_source/`: an underscore marks a namespace of actions beside the
    // articles' names.
    Regex::new(
        r"[?&](action|do)=(edit|history|diff|revisions)|/(history|changelog|revisions?)(/|$)|/_(edit|source|history|revisions?|diff)(/|$)",
    )
    .expect("a valid literal pattern")
});
static LIST_PAGING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"page|index-\d|[?&]p=").expect("a valid literal pattern"));
/// Path words of each category, in the page's own URL or in the URLs of three or more of its
/// links (`/forum/`, `/topic/12/`, `/question/4/`, `/blog/`, `/wiki/`), alone or glued to a word
/// of what the page shows (Fossil's `/forumpost/` and `/wikihelp`, phpBB's `viewtopic.php`,
/// vBulletin's `showthread.php`).
pub(super) static CATEGORY_PATHS: LazyLock<[(Category, Regex); 4]> = LazyLock::new(|| {
    let re = |p: &str| Regex::new(p).expect("a valid literal pattern");
    [
        (
            Category::Forum,
            re(r"\b(view|show)?(forum|topic|thread|question)s?(post|display|list|view)?s?\b"),
        ),
        (
            Category::Blog,
            re(r"\bblogs?(post|entry|entries|list)?s?\b"),
        ),
        (Category::Wiki, re(r"\bwikis?(page|help|list|index)?s?\b")),
        (Category::Docs, re(r"\b(docs|documentation|manual)\b")),
    ]
});
/// A page saying when it was last changed, a date right after ("Last modified: 2023/06/01",
/// "This page was last edited on 12 November", "Last updated on 2nd Apr 2024"): a document
/// kept up to date, as a wiki's pages are, where a blog says when it was posted. A post's
/// editor ("last edited by"), a relative time ("5 minutes ago") and a count ("3 times") are
/// no date; a message saying so of itself ("This post was last modified: 04-02-2024", MyBB) is
/// a forum's, and does not count ([`POST_EDITED`]).
static LAST_CHANGED: LazyLock<Regex> = LazyLock::new(|| {
    use super::MONTH;
    Regex::new(&format!(
        r"(?i)\blast\s+(?:updated|modified|edited|changed)\s*(?:on\b|:)?\s*(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{MONTH}\b|{MONTH}\.?\s+\d{{1,2}}\b|\d{{4}}[-/.]\d{{1,2}}\b|\d{{1,2}}[-/.]\d{{1,2}}[-/.]\d{{2,4}}\b)"
    ))
    .expect("a valid literal pattern")
});

/// What comes before [`LAST_CHANGED`] when a message says it of itself.
static POST_EDITED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:post|reply|message|comment|answer)\s+(?:was\s+|is\s+)?$")
        .expect("a valid literal pattern")
});

/// Whether a visible text of the page says when the page was last changed ([`LAST_CHANGED`]).
fn says_when_last_changed(page: &Page<'_>) -> bool {
    page.body
        .descendants()
        .take(20_000)
        .any(|n| match n.value() {
            Node::Text(t) if t.len() < 200 => {
                LAST_CHANGED
                    .find(t)
                    .is_some_and(|m| !POST_EDITED.is_match(&t[..m.start()]))
                    && n.parent().is_some_and(|p| !page.is_hidden(p))
            }
            _ => false,
        })
}

static CHANGES_FEED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"change|history|revision").expect("a valid literal pattern"));

/// Header names of a mail message, as an archive shows them above its text (lowercased, with
/// the space after the colon).
const MAIL_HEADERS: [&str; 7] = [
    "from: ",
    "to: ",
    "subject: ",
    "date: ",
    "message-id: ",
    "in-reply-to: ",
    "references: ",
];

/// The [`MAIL_HEADERS`] shown together around the first `from: ` of `text` that has a
/// `subject: ` near it: each starts a word (`update: ` holds no `date: `) and lies within a
/// couple of kilobytes of that `from: `, as a message's headers do, long `To:` and `Cc:` lists
/// included; words scattered over prose are no header block.
fn mail_headers(text: &str) -> Vec<&'static str> {
    // How far before a `from: ` and after it the other headers are looked for.
    const BEFORE: usize = 500;
    // (After: long `To:` and `Cc:` lists fit.)
    const AFTER: usize = 2_000;
    // Where each header starts a word in `text` (a few at most on any page that has them).
    let at: Vec<Vec<usize>> = MAIL_HEADERS
        .iter()
        .map(|h| {
            text.match_indices(h)
                .map(|(i, _)| i)
                .filter(|&i| {
                    text[..i]
                        .chars()
                        .next_back()
                        .is_none_or(|c| !c.is_alphanumeric() && c != '-')
                })
                .take(50)
                .collect()
        })
        .collect();
    let near = |i: usize, j: usize| j + BEFORE >= i && j <= i + AFTER;
    let of = |h: &str| {
        MAIL_HEADERS
            .iter()
            .position(|m| *m == h)
            .map_or(&[][..], |k| &at[k])
    };
    let (from, subject) = (of("from: "), of("subject: "));
    for &i in from {
        if subject.iter().any(|&j| near(i, j)) {
            return MAIL_HEADERS
                .iter()
                .zip(&at)
                .filter(|(_, js)| js.iter().any(|&j| near(i, j)))
                .map(|(h, _)| *h)
                .collect();
        }
    }
    Vec::new()
}

/// `<link rel>` types that HTML 4 defines for documents of a collection (section 6.12):
/// `next` and `prev` are left out, since lists page with them too.
const COLLECTION_LINK_TYPES: [&str; 7] = [
    "contents",
    "index",
    "glossary",
    "chapter",
    "section",
    "subsection",
    "appendix",
];

/// The page's category evidence.
pub(super) fn of(page: &Page<'_>) -> Evidence {
    let mut ev = Evidence::default();
    let root = page.doc.tree.root();
    // schema.org types, from microdata and JSON-LD.
    let mut typed = String::new();
    for n in root.descendants() {
        let Some(e) = n.value().as_element() else {
            continue;
        };
        if let Some(t) = e.attr("itemtype") {
            typed.push_str(t);
            typed.push(' ');
        }
        if e.name() == "script" && e.attr("type") == Some("application/ld+json") {
            typed.push_str(&node_text(n));
            typed.push(' ');
        }
    }
    for (ty, c, n) in [
        ("DiscussionForumPosting", Category::Forum, 4),
        ("BlogPosting", Category::Blog, 4),
        ("schema.org/Blog", Category::Blog, 3),
        ("\"Blog\"", Category::Blog, 3),
        ("NewsArticle", Category::News, 4),
        ("TechArticle", Category::Docs, 3),
    ] {
        if typed.contains(ty) {
            ev.add(c, n, format!("schema.org {}", ty.trim_matches('"')));
        }
    }
    let meta = |key: &str| page.meta(key).unwrap_or_default().to_lowercase();
    let generator = page.meta("generator").unwrap_or_default();
    if let Some((c, why)) = engine_category(&generator) {
        ev.add(c, 4, format!("generator {why}"));
    } else if let Some((c, why)) = credited_engine(page).as_deref().and_then(engine_category) {
        // A footer's credit ("Documentation generated by JSDoc", "Powered by DokuWiki") names
        // the engine as a generator tag would.
        ev.add(c, 4, format!("footer credits an engine that {why}"));
    }
    if meta("og:type") == "article" {
        ev.add(Category::Blog, 1, "og:type article");
    }
    // The universal edit button of wikis, and feeds.
    for e in root
        .descendants()
        .filter_map(|n| n.value().as_element())
        .filter(|e| e.name() == "link")
    {
        let rel = e.attr("rel").unwrap_or("").to_lowercase();
        let ty = e.attr("type").unwrap_or("").to_lowercase();
        let title = e.attr("title").unwrap_or("").to_lowercase();
        if !rel.split_whitespace().any(|r| r == "alternate") {
            continue;
        }
        if ty == "application/x-wiki" {
            ev.add(Category::Wiki, 4, "wiki edit link");
        } else if ty.contains("rss") || ty.contains("atom") {
            if CHANGES_FEED.is_match(&title) {
                ev.add(Category::Wiki, 2, "feed of changes");
            } else if !title.contains("comment") {
                ev.add(Category::Blog, 1, "feed");
            }
        }
    }
    // Dates.
    let dated = page.body.descendants().any(|n| {
        !page.is_hidden(n)
            && n.value()
                .as_element()
                .is_some_and(|e| e.name() == "time" && e.attr("datetime").is_some())
    });
    if dated || !meta("article:published_time").is_empty() {
        ev.add(Category::Blog, 1, "dated");
    }
    if super::byline::has_byline(page) {
        ev.add(
            Category::Blog,
            2,
            "a byline: one author and a date in the article",
        );
    }
    let path = page.url.path().to_lowercase();
    if path.split('/').any(is_year) {
        ev.add(Category::Blog, 1, "dated path");
    }
    for (c, re) in CATEGORY_PATHS.iter() {
        if re.is_match(&path) {
            ev.add(*c, 2, format!("{} words in the path", c.as_str()));
        }
    }
    if says_when_last_changed(page) {
        ev.add(Category::Wiki, 2, "says when it was last changed");
    }
    if names_a_mailbox(&path) {
        ev.add(Category::Forum, 2, "a mail address in the path");
    }
    // Words the site says of itself in its keywords.
    let keywords = meta("keywords");
    for (w, c) in KEYWORD_WORDS {
        if keywords
            .split(',')
            .any(|k| k.split_whitespace().any(|x| x == w))
        {
            ev.add(c, 2, format!("keywords say {w}"));
        }
    }
    // Links: their whole texts, edit and history actions, previous and next pages. A tag's
    // link says nothing of the engine: a blog's tag "history" is no wiki's history, its
    // `/blog/category/` no blog's page. (Tags are no evidence of a blog either: boards and
    // wikis have them too.)
    let links: Vec<_> = page
        .body
        .descendants()
        .filter(|n| name(*n) == "a" && !page.is_hidden(*n) && !is_tag_link(page, *n))
        .take(5_000)
        .collect();
    let texts: std::collections::HashSet<String> =
        links.iter().map(|a| page.text(*a).to_lowercase()).collect();
    for (c, phrases) in LINK_TEXTS {
        let hits: Vec<&str> = phrases
            .iter()
            .copied()
            .filter(|p| texts.contains(*p))
            .collect();
        if !hits.is_empty() {
            let n = (hits.len() as u32).min(3);
            ev.add(c, n, format!("links {}", hits.join(", ")));
        }
    }
    // Replies named as mail and news name them ("Re: Heron at dusk"): a discussion's messages.
    let replies = texts.iter().filter(|t| t.starts_with("re: ")).count();
    if replies >= 2 {
        ev.add(
            Category::Forum,
            2,
            format!("links to {replies} replies (Re:)"),
        );
    }
    let hrefs = || {
        links
            .iter()
            .filter_map(|a| a.value().as_element())
            .filter_map(|e| e.attr("href").map(|h| (e, h)))
    };
    if hrefs().any(|(_, h)| WIKI_ACTION.is_match(h)) {
        ev.add(Category::Wiki, 2, "edit or history links");
    }
    // Where the page's links go: a board's home links to its forums and topics before any
    // page of them is read.
    let targets: std::collections::HashSet<String> = hrefs()
        .filter_map(|(_, h)| page.url.join(h).ok())
        .filter(|u| u.host_str() == page.url.host_str())
        .map(|u| u.path().to_lowercase())
        .collect();
    // A blog's archive by month, linked from every page (`/archive/2023/06/`, `/2023/06/`).
    let months = targets.iter().filter(|p| names_a_month(p)).count();
    if months >= 3 {
        ev.add(
            Category::Blog,
            2,
            format!("links to {months} archives by month"),
        );
    }
    for (c, re) in CATEGORY_PATHS.iter() {
        if targets.iter().filter(|p| re.is_match(p)).count() >= 3 {
            ev.add(*c, 2, format!("links to {} paths", c.as_str()));
        }
    }
    let mailboxes = targets.iter().filter(|p| names_a_mailbox(p)).count();
    if mailboxes >= 3 {
        ev.add(
            Category::Forum,
            2,
            format!("links to {mailboxes} paths under mail addresses"),
        );
    }
    // Links to the previous and next page, in the body or the head, that are not a list's
    // paging: the reading order of a manual.
    let head_sequence = root
        .descendants()
        .filter_map(|n| n.value().as_element())
        .filter(|e| e.name() == "link" && matches!(e.attr("rel"), Some("next" | "prev")))
        .filter_map(|e| e.attr("href"));
    let sequence: Vec<&str> = hrefs()
        .filter(|(e, _)| matches!(e.attr("rel"), Some("next" | "prev")))
        .map(|(_, h)| h)
        .chain(head_sequence)
        .collect();
    // Paging stays on the page's own path (`index.php?topic=1.15`) or says so (`page/2`).
    let paging = |h: &&str| {
        LIST_PAGING.is_match(h) || page.url.join(h).is_ok_and(|u| u.path() == page.url.path())
    };
    if !sequence.is_empty() && !sequence.iter().any(paging) {
        ev.add(Category::Docs, 2, "links to the previous and next page");
    }
    // HTML 4's link types for a collection of documents (a manual's index, contents,
    // chapters), which documentation generators write in the head.
    let collection: Vec<&str> = root
        .descendants()
        .filter_map(|n| n.value().as_element())
        .filter(|e| e.name() == "link")
        .filter_map(|e| e.attr("rel"))
        .flat_map(str::split_ascii_whitespace)
        .filter(|r| {
            COLLECTION_LINK_TYPES
                .iter()
                .any(|t| r.eq_ignore_ascii_case(t))
        })
        .collect();
    // One point only: forum engines write `contents` and `index` too (Simple Machines links its
    // board index so); with a manual's `next` or `prev` it makes three.
    if !collection.is_empty() {
        ev.add(
            Category::Docs,
            1,
            format!("document-collection links ({})", collection.join(", ")),
        );
    }
    let text = page.text(page.body).to_lowercase();
    if text.contains("on this page") || text.contains("table of contents") {
        ev.add(Category::Docs, 1, "a table of contents of the page");
    }
    // A message shown with its mail headers: a mailing list's archive, a discussion.
    let headers = mail_headers(&text);
    if headers.len() >= 3 && headers.contains(&"from: ") && headers.contains(&"subject: ") {
        ev.add(
            Category::Forum,
            3,
            format!("mail headers ({})", headers.join("").trim_end()),
        );
    }
    // Column headers of a board index or topic list.
    let hits = super::columns::forum_columns(page, page.body, &|n| page.is_hidden(n));
    if hits >= 2 {
        ev.add(Category::Forum, 2, format!("{hits} forum column headers"));
    }
    // The navigation marks the page's part, and the part names a category.
    ev.part = super::part::current(page);
    if let Some(part) = ev.part.clone() {
        if let Some(c) = super::part::category_named(&part) {
            ev.add(c, 3, format!("the current menu item is {part}"));
        }
    }
    // Two headings of an API reference: one alone ("Documentation") is any page's.
    let api = super::api::headings(page);
    if api.len() >= 2 {
        ev.add(
            Category::Docs,
            3,
            format!("API reference headings ({})", api.join(", ")),
        );
    }
    if let Some(name) = super::api::code_title(page) {
        ev.add(
            Category::Docs,
            2,
            format!("the page's title is code ({name})"),
        );
    }
    ev
}

/// Path segments under which a link names a tag or a category of posts.
const TAG_SEGMENTS: [&str; 6] = ["tag", "tags", "category", "categories", "label", "labels"];

/// Whether the link `a` leads to a tag or category of posts (`rel="tag"`, `/tags/history`).
fn is_tag_link(page: &Page<'_>, a: NodeRef<'_, Node>) -> bool {
    let Some(e) = a.value().as_element() else {
        return false;
    };
    if e.attr("rel")
        .is_some_and(|r| r.split_whitespace().any(|t| t.eq_ignore_ascii_case("tag")))
    {
        return true;
    }
    let Some(url) = e.attr("href").and_then(|h| page.url.join(h).ok()) else {
        return false;
    };
    // A segment before the last: `/tags` itself is the index of tags, no tag.
    url.path_segments().is_some_and(|segments| {
        segments
            .rev()
            .skip(1)
            .any(|s| TAG_SEGMENTS.iter().any(|t| s.eq_ignore_ascii_case(t)))
    })
}

/// Whether a path names a month: a year segment (19xx or 20xx), then a month number.
fn names_a_month(path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    segments.windows(2).any(|w| {
        let month = w[1].parse::<u8>().is_ok_and(|m| (1..=12).contains(&m)) && w[1].len() <= 2;
        is_year(w[0]) && month
    })
}

/// Whether a segment of a (lower-cased) path is a mail address or a message ID: a mailing
/// list's archive files its threads under the list's address (HyperKitty's
/// `/list/birds@lists.example.org/`) or each message under its ID (public-inbox's
/// `/list/20230301.1234@host.example/`). A handle (`/@ann`) has nothing before its `@`; a
/// package's version and a search query are no address.
fn names_a_mailbox(path: &str) -> bool {
    if !path.contains('@') && !path.contains("%40") {
        return false; // nearly every path: no segment to look at
    }
    path.split('/').any(|seg| {
        let seg = seg.replace("%40", "@");
        // A package's version (`jquery@3.7.1`, `net@v0.17.0`) ends in digits; a query
        // (`owner:ann@example.org`) has a colon.
        !seg.contains(':')
            && seg.split_once('@').is_some_and(|(local, domain)| {
                let labels: Vec<&str> = domain.split('.').collect();
                !local.is_empty()
                    && labels.len() >= 2
                    && labels.iter().all(|l| !l.is_empty() && !l.contains('@'))
                    && labels.last().is_some_and(|tld| {
                        tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic())
                    })
            })
    })
}

/// Whether a path segment is a year (19xx or 20xx).
fn is_year(s: &str) -> bool {
    s.len() == 4
        && (s.starts_with("19") || s.starts_with("20"))
        && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
#[path = "evidence_tests.rs"]
mod tests;
