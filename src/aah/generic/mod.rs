//! Reading a page of an application the knowledge base does not know (ARCOMEM §4.1, second
//! relaxation scenario): its category from general evidence, list or single item from the
//! page's structure, and the title and body of a single item, each read with what the host's
//! other pages taught.
//!
//! Nothing here names an application. The evidence is what any blog, forum, wiki, news or
//! documentation engine exposes (see `evidence`). The page kind comes from its layout: the
//! content is found by descending from `<body>` into the child that holds most of the text; it
//! is a list when most of that content is a run of sibling items each headed by a link to
//! another page (or several `<article>`s), and a single item when it is mostly prose.
//!
//! **Furniture** never counts for layout, title or body: `nav`, `header`, `footer`, `aside`,
//! forms and buttons always, what the page hides, and, once a host has three pages read, every
//! small block that repeats on most of its pages (`host`): sidebars in `div`s, menus, a
//! "Context Navigation" heading, the site's name in `<title>`. A reading that structure alone
//! cannot settle (a list page holding one item, a short page) takes the kind its URL template's
//! other pages were read as (`template`).

use std::collections::{HashMap, HashSet};

use ego_tree::{NodeId, NodeRef};
use scraper::{Html, Node};
use url::Url;

use super::kb::{Category, LevelKind};

mod api;
mod byline;
mod columns;
mod engine;
mod evidence;
mod host;
mod item;
mod kind;
mod learning;
mod nav;
mod page;
mod part;
mod template;
mod title;
mod views;

/// URLs and host models the navigation tests build their cases from.
#[cfg(test)]
mod test_hosts {
    use super::HostModel;
    use url::Url;

    pub(super) fn url(u: &str) -> Url {
        Url::parse(u).unwrap()
    }

    /// A host model that has seen links to `urls`.
    pub(super) fn host(urls: &[&str]) -> HostModel {
        let mut m = HostModel::default();
        for u in urls {
            m.observe_link(&url(u));
        }
        m
    }
}

use host::MIN_PAGES;
pub use host::{HostModel, NoPage};
pub use learning::Learning;
pub(crate) use learning::Lesson;
pub use nav::{looks_like_an_action, not_worth};
use page::{Page, Stats};
use template::Shape;
use title::{title_core, title_parts, title_segments};
pub use views::{
    among_children, looks_like_a_place, looks_like_a_slashed_copy, not_worth_on, page_views,
};
pub(crate) use views::{display_key, PERSON, PLACE_IN, REQUERIED};

/// Characters of body text kept.
pub(super) const BODY_CHARS: usize = 8_000;
/// Least evidence for a category.
const MIN_EVIDENCE: u32 = 3;
/// Prose (text outside links) a single item has at least, in characters.
pub(super) const MIN_PROSE: usize = 60;
/// A month's name or abbreviation in a regular expression (case-insensitive patterns), for the
/// dates the reader recognises.
pub(super) const MONTH: &str = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*";

/// What a page says about itself, read with what its host taught.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// The page's own evidence per category (in [`Category::ALL`] order).
    pub evidence: [u32; 6],
    /// The signals that gave it, for the report (`schema.org BlogPosting`, `wiki edit link`).
    pub signals: Vec<String>,
    /// The host's category with this page counted: the evidence summed over its pages; or its
    /// section's, when that names another one clearly (`HostModel::section_category`).
    pub category: Option<Category>,
    /// The category is the page's section's, not the host's.
    pub by_section: bool,
    /// List (intermediate) or single item (terminal); `None` for a page with no content.
    pub kind: Option<LevelKind>,
    /// Title of a single item.
    pub title: Option<String>,
    /// Text of a single item, whitespace-normalised, at most [`BODY_CHARS`] characters.
    pub body: Option<String>,
    /// The kind was settled by the page's own layout, not taken from its URL template.
    pub settled: bool,
}

impl Reading {
    /// The category of the page's own evidence.
    pub fn own_category(&self) -> Option<Category> {
        best_category(&self.evidence)
    }
}

/// The category with the most evidence in `evidence` (a clear winner with enough of it).
pub fn best_category(evidence: &[u32; 6]) -> Option<Category> {
    let (i, &max) = evidence.iter().enumerate().max_by_key(|(_, &n)| n)?;
    let ties = evidence.iter().filter(|&&n| n == max).count();
    (max >= MIN_EVIDENCE && ties == 1).then(|| Category::ALL[i])
}

/// Parses a page's text (with the parse stage's guarded parser) and reads it alone, as the
/// first page of its host.
pub fn read_html(text: &str, url: &Url) -> Reading {
    read(
        &crate::parse::parse_document(text),
        url,
        &mut Learning::default(),
    )
}

/// Reads a parsed page fetched from `url`, and counts it in (a copy of) its host's model.
pub fn read(doc: &Html, url: &Url, host: &mut Learning) -> Reading {
    let Some(page) = Page::new(doc, url) else {
        return Reading::default();
    };
    let ev = evidence::of(&page);
    let parts = title_parts(&page.title);
    let lower = title_segments(&parts);
    let keys: HashSet<u64> = page.keys.values().copied().collect();
    host.teach(Lesson::Page {
        url: url.clone(),
        current: ev.part.clone(),
        keys,
        segments: lower,
        evidence: ev.points,
    });
    // The template the page was counted under.
    let template = host.template(&Shape::of(url));
    let (r, strong) = judge(&page, ev, &parts, &template, host);
    if let Some(own) = strong {
        host.teach(Lesson::Vote(template, own));
    }
    r
}

/// Reads again a page its host's model has counted already ([`read`]), with what the host's
/// later pages taught (furniture, the site's name, the category, kinds per URL template),
/// counting nothing: a host's first pages are read before its model can judge them.
pub fn reread(doc: &Html, url: &Url, host: &HostModel) -> Reading {
    let Some(page) = Page::new(doc, url) else {
        return Reading::default();
    };
    let ev = evidence::of(&page);
    let parts = title_parts(&page.title);
    let template = host.template(&Shape::of(url));
    judge(&page, ev, &parts, &template, host).0
}

/// Whether a page of `url` read now would be read before its host's model can judge it: too
/// few pages of the host or of its URL template read for their furniture, or no category yet.
pub fn too_early(url: &Url, host: &HostModel) -> bool {
    host.category().is_none()
        || host.pages() < MIN_PAGES
        || host.template_pages(&host.template(&Shape::of(url))) < MIN_PAGES
}

/// The reading of a page with its host's model as it is; the page's own kind when its layout
/// settled it (a strong reading, which is a vote for its URL template).
fn judge(
    page: &Page<'_>,
    ev: evidence::Evidence,
    parts: &[&str],
    template: &str,
    host: &HostModel,
) -> (Reading, Option<LevelKind>) {
    let mut r = Reading {
        evidence: ev.points,
        signals: ev.signals,
        category: host.category(),
        ..Reading::default()
    };
    if let Some(c) = host.section_category(page.url, ev.part.as_deref()) {
        r.category = Some(c);
        r.by_section = true;
    }
    let template_kind = host.template_kind(template);
    let learned = |n: NodeRef<'_, Node>| {
        page.keys.get(&n.id()).is_some_and(|k| {
            host.is_furniture(*k)
                    // Entries of lists repeat on the lists of one template (a post under
                    // each of its tags); the template's own furniture is words, not links.
                    || (host.is_template_furniture(template, *k) && !page.links_elsewhere(n))
        })
    };
    let all = |n: NodeRef<'_, Node>| furniture_element(n) || learned(n);
    let tags = |n: NodeRef<'_, Node>| furniture_element(n);
    let mut furniture: &dyn Fn(NodeRef<'_, Node>) -> bool = &all;
    let mut stats = page.measure(furniture);
    let prose = |s: &HashMap<NodeId, Stats>| s.get(&page.body.id()).map_or(0, |s| s.text);
    if prose(&stats) < MIN_PROSE {
        // Everything looked like furniture: a list whose entries repeat on the other lists
        // read so far. The host's estimate is wrong for this page.
        furniture = &tags;
        stats = page.measure(furniture);
    }
    let content = descend(page, &stats, furniture);
    let Some((own, weak)) = kind::kind_of(page, content, &stats, furniture) else {
        return (r, None);
    };
    let kind = if weak {
        template_kind.unwrap_or(own)
    } else {
        own
    };
    r.kind = Some(kind);
    if kind == LevelKind::Terminal {
        let core = title_core(parts, host);
        r.title = item::title(page, content, &core, furniture);
        let root = item::root(page, content, r.title.as_deref(), furniture);
        r.body = item::body(page, root, r.title.as_deref(), &stats, furniture);
    }
    r.settled = !weak;
    (r, (!weak).then_some(own))
}

pub(super) fn is_skipped(name: &str) -> bool {
    matches!(
        name,
        "script" | "style" | "template" | "noscript" | "head" | "svg" | "math" | "iframe"
    )
}

/// Whether an element is the page's furniture by what it is: a `<header>` is the page's
/// banner, except inside an `<article>` or a `<section>`, whose heading and introduction it holds
/// (JSDoc's class pages: the class's name and description).
fn furniture_element(n: NodeRef<'_, Node>) -> bool {
    let tag = name(n);
    is_furniture(tag)
        && !(tag == "header"
            && n.ancestors()
                .any(|a| matches!(name(a), "article" | "section")))
}

pub(super) fn is_furniture(name: &str) -> bool {
    matches!(
        name,
        "nav" | "header" | "footer" | "aside" | "form" | "button" | "select" | "dialog"
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

/// Every text of `n`, whitespace-normalised (hidden text included: for the head's elements).
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

pub(super) fn find<'a>(root: NodeRef<'a, Node>, tag: &str) -> Option<NodeRef<'a, Node>> {
    root.descendants().find(|n| name(*n) == tag)
}

/// From `<body>`, into the child holding most of the text while one does.
fn descend<'a>(
    page: &Page<'a>,
    stats: &HashMap<NodeId, Stats>,
    furniture: &dyn Fn(NodeRef<'_, Node>) -> bool,
) -> NodeRef<'a, Node> {
    let text = |n: NodeRef<'_, Node>| stats.get(&n.id()).map_or(0, |s| s.text);
    let mut node = page.body;
    loop {
        let total = text(node);
        let next = node
            .children()
            .filter(|c| c.value().is_element() && !page.is_hidden(*c) && !furniture(*c))
            .max_by_key(|c| text(*c))
            .filter(|c| is_container(name(*c)));
        match next {
            Some(c) if total > 0 && text(c) * 10 >= total * 6 => node = c,
            _ => return node,
        }
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
