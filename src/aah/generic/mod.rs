//! Reading a page of an application the knowledge base does not know (ARCOMEM §4.1, second
//! relaxation scenario): its category from general evidence, list or single item from the
//! page's own structure, and the title and body of a single item.
//!
//! Nothing here names an application. The evidence is what any blog, forum, wiki or news engine
//! exposes: schema.org types (microdata and JSON-LD), the `generator` meta tag, words in the
//! URL path, in class and id names, and in the texts of links (`Reply`, `Edit`, `Older posts`).
//! The page kind comes from its layout: the content is found by descending from `<body>` into
//! the child that holds most of the text; it is a list when most of that content is a run of
//! sibling items each headed by a link (or several `<article>`s), and a single item when it is
//! mostly prose. Headers, navigation, footers, asides and forms are furniture: they count for
//! the category, not for the layout.

use std::collections::HashMap;

use ego_tree::{iter::Edge, NodeId, NodeRef};
use scraper::{Html, Node};
use url::Url;

use super::kb::{Category, LevelKind};

mod evidence;
mod item;

/// Characters of body text kept.
pub(super) const BODY_CHARS: usize = 8_000;
/// Least evidence for a category.
const MIN_EVIDENCE: u32 = 3;
/// Prose (text outside links) of a page that introduces a list of links, at most, in characters.
const MAX_LIST_INTRO: usize = 400;
/// Prose (text outside links) a single item has at least, in characters.
const MIN_PROSE: usize = 60;

/// What the page says about itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// Evidence per category (in [`Category::ALL`] order).
    pub evidence: [u32; 5],
    /// The signals that gave it, for the report (`schema.org BlogPosting`, `url /forum/`).
    pub signals: Vec<String>,
    /// List (intermediate) or single item (terminal); `None` for a page with no content.
    pub kind: Option<LevelKind>,
    /// Title of a single item.
    pub title: Option<String>,
    /// Text of a single item, whitespace-normalised, at most [`BODY_CHARS`] characters.
    pub body: Option<String>,
}

impl Reading {
    /// The category with the most evidence, if it has at least [`MIN_EVIDENCE`] and more than
    /// any other.
    pub fn category(&self) -> Option<Category> {
        best_category(&self.evidence)
    }
}

/// The category with the most evidence in `evidence` (a clear winner with enough of it).
pub fn best_category(evidence: &[u32; 5]) -> Option<Category> {
    let (i, &max) = evidence.iter().enumerate().max_by_key(|(_, &n)| n)?;
    let ties = evidence.iter().filter(|&&n| n == max).count();
    (max >= MIN_EVIDENCE && ties == 1).then(|| Category::ALL[i])
}

/// Parses a page's text (with the parse stage's guarded parser) and reads it.
pub fn read_html(text: &str, url: &Url) -> Reading {
    read(&crate::parse::parse_document(text), url)
}

/// Reads a parsed page fetched from `url`.
pub fn read(doc: &Html, url: &Url) -> Reading {
    let mut r = Reading::default();
    evidence::category(doc, url, &mut r);
    let stats = measure(doc);
    let Some(body) = find(doc.tree.root(), "body") else {
        return r;
    };
    let content = descend(body, &stats);
    let kind = kind_of(content, &stats, url);
    r.kind = kind;
    if kind == Some(LevelKind::Terminal) {
        r.title = item::title(doc, content, url);
        let mut text = String::new();
        item::collect_text(
            item::root(doc, content, r.title.as_deref()),
            &mut text,
            r.title.as_deref(),
        );
        r.body = Some(text).filter(|t| !t.is_empty());
    }
    r
}

/// Text measures of one element's subtree (furniture left out).
#[derive(Debug, Clone, Copy, Default)]
struct Stats {
    /// Characters of text, links included.
    text: usize,
    /// Characters of text inside links.
    link: usize,
    /// `<a href>` elements.
    links: usize,
    /// A heading (`h1`–`h6`) that is mostly a link: what heads an item of a list.
    heading_link: bool,
}

pub(super) fn is_skipped(name: &str) -> bool {
    matches!(
        name,
        "script" | "style" | "template" | "head" | "svg" | "math"
    )
}

pub(super) fn is_furniture(name: &str) -> bool {
    matches!(
        name,
        "nav" | "header" | "footer" | "aside" | "form" | "button" | "select"
    )
}

pub(super) fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Elements the content search descends into: containers, not paragraphs or list items.
fn is_container(name: &str) -> bool {
    matches!(
        name,
        "div" | "section" | "article" | "main" | "table" | "tbody" | "tr" | "td" | "center"
    )
}

pub(super) fn name(n: NodeRef<'_, Node>) -> &str {
    n.value().as_element().map_or("", |e| e.name())
}

/// Characters of a text node as whitespace-normalised text would count them.
fn text_chars(s: &str) -> usize {
    s.split_whitespace().map(|w| w.chars().count() + 1).sum()
}

/// One pass over the tree: [`Stats`] of every element, furniture counted for itself but not
/// for its ancestors. Iterative, so depth costs nothing.
fn measure(doc: &Html) -> HashMap<NodeId, Stats> {
    let mut out = HashMap::new();
    let mut stack: Vec<(NodeId, Stats, bool)> = Vec::new();
    let (mut skip, mut in_link) = (0usize, 0usize);
    for edge in doc.tree.root().traverse() {
        match edge {
            Edge::Open(n) => match n.value() {
                Node::Element(e) => {
                    if skip > 0 || is_skipped(e.name()) {
                        skip += 1;
                        continue;
                    }
                    let link = e.name() == "a" && e.attr("href").is_some();
                    in_link += usize::from(link);
                    let own = Stats {
                        links: usize::from(link),
                        ..Stats::default()
                    };
                    stack.push((n.id(), own, is_furniture(e.name())));
                }
                Node::Text(t) if skip == 0 => {
                    let c = text_chars(t);
                    if let Some((_, s, _)) = stack.last_mut() {
                        s.text += c;
                        if in_link > 0 {
                            s.link += c;
                        }
                    }
                }
                _ => {}
            },
            Edge::Close(n) => {
                let Node::Element(e) = n.value() else {
                    continue;
                };
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                if e.name() == "a" && e.attr("href").is_some() {
                    in_link -= 1;
                }
                let Some((id, mut s, furniture)) = stack.pop() else {
                    continue;
                };
                // The heading is the link (an item's title), not a heading with a permalink
                // mark or a count beside its text.
                s.heading_link |= is_heading(e.name()) && s.links > 0 && s.link * 2 >= s.text;
                out.insert(id, s);
                if let Some((_, parent, _)) = stack.last_mut().filter(|_| !furniture) {
                    parent.text += s.text;
                    parent.link += s.link;
                    parent.links += s.links;
                    parent.heading_link |= s.heading_link;
                }
            }
        }
    }
    out
}

pub(super) fn find<'a>(root: NodeRef<'a, Node>, tag: &str) -> Option<NodeRef<'a, Node>> {
    root.descendants().find(|n| name(*n) == tag)
}

fn elements<'a>(n: NodeRef<'a, Node>) -> impl Iterator<Item = NodeRef<'a, Node>> {
    n.children().filter(|c| c.value().is_element())
}

/// From `<body>`, into the child holding most of the text while one does.
fn descend<'a>(mut node: NodeRef<'a, Node>, stats: &HashMap<NodeId, Stats>) -> NodeRef<'a, Node> {
    let text = |n: NodeRef<'_, Node>| stats.get(&n.id()).map_or(0, |s| s.text);
    loop {
        let total = text(node);
        let next = elements(node)
            .filter(|c| !is_furniture(name(*c)))
            .max_by_key(|c| text(*c))
            .filter(|c| is_container(name(*c)));
        match next {
            Some(c) if total > 0 && text(c) * 10 >= total * 6 => node = c,
            _ => return node,
        }
    }
}

/// List or single item, from the content element's layout.
fn kind_of(
    content: NodeRef<'_, Node>,
    stats: &HashMap<NodeId, Stats>,
    url: &Url,
) -> Option<LevelKind> {
    let get = |n: NodeRef<'_, Node>| stats.get(&n.id()).copied().unwrap_or_default();
    let total = get(content);
    if total.text == 0 {
        return None;
    }
    // Several articles are a list; so is one whose heading links to another page (the last
    // page of a paginated list may hold a single item).
    let articles: Vec<_> = std::iter::once(content)
        .chain(content.ancestors())
        .chain(content.descendants())
        .filter(|n| name(*n) == "article")
        .filter(|n| !n.ancestors().any(|a| name(a) == "article"))
        .collect();
    if articles.len() >= 2 {
        return Some(LevelKind::Intermediate);
    }
    if let [only] = articles.as_slice() {
        if heading_links_elsewhere(*only, url) {
            return Some(LevelKind::Intermediate);
        }
    }
    // The largest set of similar elements (same parent tag, tag and first class) whose items
    // are each headed by a link to another page: the entries of a list, even when split in
    // groups (a category page's letters). Forum posts and comments are not headed so: their
    // links stay on the page or go to profiles, and their text is prose.
    let mut groups: HashMap<(&str, &str, &str), (usize, usize, usize)> = HashMap::new();
    for c in content.descendants() {
        let Some(e) = c.value().as_element() else {
            continue;
        };
        let parent = c.parent().map_or("", |p| name(p));
        let class = e
            .attr("class")
            .and_then(|v| v.split_whitespace().next())
            .unwrap_or("");
        let s = get(c);
        let prose = s.text - s.link;
        let headed = s.links >= 1
            && ((s.heading_link && heading_links_elsewhere(c, url)) || s.link * 10 >= s.text * 3)
            && prose < 600;
        let g = groups.entry((parent, e.name(), class)).or_default();
        g.0 += 1;
        if headed {
            g.1 += 1;
            g.2 += s.text;
        }
    }
    let (items, listed) = groups
        .values()
        .filter(|(count, _, _)| *count >= 3)
        .map(|(_, headed, text)| (*headed, *text))
        .max_by_key(|(_, text)| *text)
        .unwrap_or((0, 0));
    let prose = total.text - total.link;
    // Most of the content is the list, or the page is a short introduction to a list.
    if listed * 2 >= total.text || (items >= 3 && prose < MAX_LIST_INTRO) {
        return Some(LevelKind::Intermediate);
    }
    let prose = total.text - total.link;
    if total.link * 2 > total.text || prose < MIN_PROSE {
        Some(LevelKind::Intermediate)
    } else {
        Some(LevelKind::Terminal)
    }
}

pub(super) fn node_text(n: NodeRef<'_, Node>) -> String {
    let mut s = String::new();
    for d in n.descendants() {
        if let Node::Text(t) = d.value() {
            s.push_str(t);
            s.push(' ');
        }
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the first heading under `n` links to a page other than `url` (an item of a list,
/// or a site name linking home) rather than to itself (a permalink).
fn heading_links_elsewhere(n: NodeRef<'_, Node>, url: &Url) -> bool {
    let Some(h) = n.descendants().find(|d| is_heading(name(*d))) else {
        return false;
    };
    links_elsewhere(h, url)
}

/// Whether an element holds a link to a page other than `url`.
pub(super) fn links_elsewhere(n: NodeRef<'_, Node>, url: &Url) -> bool {
    n.descendants()
        .filter_map(|d| d.value().as_element())
        .filter(|e| e.name() == "a")
        .filter_map(|e| e.attr("href"))
        .filter_map(|h| url.join(h).ok())
        .any(|mut target| {
            target.set_fragment(None);
            target.as_str() != url.as_str()
        })
}
