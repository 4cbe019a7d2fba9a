//! Category evidence from what any blog, forum, wiki or news engine exposes: schema.org types,
//! the `generator` meta tag, words of the URL, of class and id names and of link texts, and the
//! column headers of board indexes. No application is named.

use scraper::Html;
use url::Url;

use super::{name, node_text, Reading};
use crate::aah::kb::Category;

fn add(r: &mut Reading, c: Category, n: u32, why: String) {
    let i = Category::ALL.iter().position(|&x| x == c).unwrap_or(0);
    r.evidence[i] += n;
    r.signals.push(why);
}

/// Words that point at a category, in URL paths, class and id names and link texts.
const WORDS: [(Category, &[&str]); 4] = [
    (
        Category::Forum,
        &[
            "forum",
            "forums",
            "topic",
            "topics",
            "thread",
            "threads",
            "board",
            "boards",
            "viewtopic",
            "viewforum",
            "reply",
            "quote",
            "discussion",
            "discussions",
        ],
    ),
    (
        Category::Wiki,
        &[
            "wiki",
            "recentchanges",
            "history",
            "revisions",
            "backlinks",
            "editsection",
            "toc",
            "namespace",
            "special",
        ],
    ),
    (
        Category::Blog,
        &[
            "blog",
            "blogs",
            "post",
            "posts",
            "entry",
            "entries",
            "archives",
            "hentry",
            "byline",
            "permalink",
            "tags",
            "tag",
        ],
    ),
    (
        Category::News,
        &[
            "news",
            "newsroom",
            "headline",
            "headlines",
            "breaking",
            "dateline",
        ],
    ),
];

/// Link texts that only one kind of application writes.
const LINK_TEXTS: [(Category, &[&str]); 3] = [
    (
        Category::Forum,
        &[
            "reply",
            "quote",
            "new topic",
            "post reply",
            "new thread",
            "mark forums read",
        ],
    ),
    (
        Category::Wiki,
        &[
            "edit",
            "history",
            "recent changes",
            "page history",
            "what links here",
            "old revisions",
            "sitemap",
            "backlinks",
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
        ],
    ),
];

/// Adds the page's category evidence to `r`.
pub(super) fn category(doc: &Html, url: &Url, r: &mut Reading) {
    // schema.org types, from microdata and JSON-LD.
    let mut typed = String::new();
    for n in doc.tree.root().descendants() {
        if let Some(e) = n.value().as_element() {
            if let Some(t) = e.attr("itemtype") {
                typed.push_str(t);
                typed.push(' ');
            }
            if e.name() == "script" && e.attr("type") == Some("application/ld+json") {
                typed.push_str(&node_text(n));
                typed.push(' ');
            }
        }
    }
    for (ty, c, n) in [
        ("DiscussionForumPosting", Category::Forum, 4),
        ("BlogPosting", Category::Blog, 4),
        ("\"Blog\"", Category::Blog, 3),
        ("schema.org/Blog", Category::Blog, 3),
        ("NewsArticle", Category::News, 4),
        ("ReportageNewsArticle", Category::News, 2),
    ] {
        if typed.contains(ty) {
            add(r, c, n, format!("schema.org {}", ty.trim_matches('"')));
        }
    }
    // The generator meta tag.
    let generator = doc
        .tree
        .root()
        .descendants()
        .filter_map(|n| n.value().as_element())
        .find(|e| {
            e.name() == "meta"
                && e.attr("name")
                    .is_some_and(|v| v.eq_ignore_ascii_case("generator"))
        })
        .and_then(|e| e.attr("content"))
        .map(str::to_lowercase)
        .unwrap_or_default();
    for (needle, c) in [
        ("wiki", Category::Wiki),
        ("forum", Category::Forum),
        ("bb", Category::Forum),
        ("board", Category::Forum),
        ("discuss", Category::Forum),
        ("blog", Category::Blog),
        ("press", Category::Blog),
        ("pelican", Category::Blog),
        ("jekyll", Category::Blog),
        ("hugo", Category::Blog),
        ("hexo", Category::Blog),
        ("news", Category::News),
    ] {
        if generator.contains(needle) {
            add(r, c, 4, format!("generator {generator}"));
            break;
        }
    }
    // Words of the URL path and query.
    let path = format!("{}?{}", url.path(), url.query().unwrap_or("")).to_lowercase();
    let tokens: Vec<&str> = path
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    for (c, words) in WORDS {
        if let Some(w) = tokens.iter().find(|t| words.contains(t)) {
            add(r, c, 2, format!("url {w}"));
        }
    }
    if url
        .path()
        .split('/')
        .any(|s| s.len() == 4 && s.starts_with("20") && s.bytes().all(|b| b.is_ascii_digit()))
    {
        add(r, Category::Blog, 1, "url dated path".into());
    }
    // Class and id names, each distinct word once, at most 3 per category.
    // Sorted, so the evidence text is the same whatever the page order.
    let mut seen: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for e in doc
        .tree
        .root()
        .descendants()
        .filter_map(|n| n.value().as_element())
    {
        for v in [e.attr("class"), e.attr("id")].into_iter().flatten() {
            for t in v.split(|c: char| !c.is_ascii_alphanumeric()) {
                let t = t.to_ascii_lowercase();
                if !t.is_empty() && seen.len() < 4096 {
                    seen.insert(t);
                }
            }
        }
    }
    for (c, words) in WORDS {
        let hits: Vec<&String> = seen
            .iter()
            .filter(|t| words.contains(&t.as_str()))
            .collect();
        if !hits.is_empty() {
            let n = hits.len().min(3) as u32;
            add(
                r,
                c,
                n,
                format!(
                    "classes {}",
                    hits.iter()
                        .take(3)
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            );
        }
    }
    // Column headers of a board index or topic list.
    let columns: Vec<String> = doc
        .tree
        .root()
        .descendants()
        .filter(|n| name(*n) == "th")
        .take(200)
        .map(|n| node_text(n).to_lowercase())
        .collect();
    let forum_columns = [
        "topics",
        "posts",
        "replies",
        "views",
        "last post",
        "threads",
    ];
    let hits = forum_columns
        .iter()
        .filter(|c| columns.iter().any(|t| t == *c))
        .count();
    if hits >= 2 {
        add(
            r,
            Category::Forum,
            2,
            format!("{hits} forum column headers"),
        );
    }
    // Link texts.
    let mut texts: Vec<String> = Vec::new();
    for n in doc.tree.root().descendants() {
        if name(n) == "a" && texts.len() < 2000 {
            texts.push(node_text(n).to_lowercase());
        }
    }
    for (c, phrases) in LINK_TEXTS {
        let hits: Vec<&&str> = phrases
            .iter()
            .filter(|p| texts.iter().any(|t| t == **p))
            .collect();
        if !hits.is_empty() {
            let n = (hits.len() as u32).min(3);
            add(
                r,
                c,
                n,
                format!(
                    "links {}",
                    hits.iter().map(|s| **s).collect::<Vec<_>>().join(", ")
                ),
            );
        }
    }
}
