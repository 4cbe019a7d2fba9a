//! The title and text of a single item (a post, an article, a topic) on a page of an unknown
//! application.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use ego_tree::{iter::Edge, NodeId, NodeRef};
use regex::Regex;
use scraper::Node;

use super::page::{Page, Stats};
use super::{name, node_text, BODY_CHARS};

/// Whitespace-normalised and lowercase, for comparing texts.
fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Lowercase, without whitespace, for telling a heading's text from a title: the title is
/// joined as a browser shows it, where `Page::text` puts a space between text nodes
/// (`packaging<wbr>.<wbr>version`).
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<String>().to_lowercase()
}

/// The rank of an `h4`, the lowest: it is a title only when it holds every part of the
/// `<title>`'s core (a manual's subsection: Texinfo's "4.1.3 Winter visit: the wren" beside
/// the core "Winter visit - the wren"), since short `h4`s are a page's sub-parts.
const MINOR: u8 = 1;

/// A heading's rank, `h1` highest; 0 for any other element.
fn level(n: NodeRef<'_, Node>) -> u8 {
    match name(n) {
        "h1" => 4,
        "h2" => 3,
        "h3" => 2,
        "h4" => 1,
        _ => 0,
    }
}

/// An element classed as a title (`title`, `page-title`, `entry-title`): where a theme puts
/// a page's title in a `div` rather than a heading (Doxygen's `<div class="title">`).
fn titled(n: NodeRef<'_, Node>) -> bool {
    n.value().as_element().is_some_and(|e| {
        e.classes()
            .any(|c| c == "title" || c.ends_with("-title") || c.ends_with("_title"))
    })
}

/// A heading that says only a date ("Thu, 09 Feb 2023", "February 9, 2023", "2023-02-09",
/// "June 2023"): a blog's day or month header above its entries, never an entry's title.
static DATE_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    use super::MONTH;
    const DAY: &str = "\\d{1,2}(?:st|nd|rd|th)?";
    Regex::new(&format!(
        r"(?i)^(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?(?:{DAY}\s+{MONTH}\.?,?\s+\d{{4}}|{MONTH}\.?\s+{DAY},?\s+\d{{4}}|{MONTH}\.?\s+\d{{4}}|\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}|\d{{1,2}}[-/.]\d{{1,2}}[-/.]\d{{2,4}})$"
    ))
    .expect("a valid date pattern")
});

/// Whether a heading's text is a date and nothing else.
fn date_only(t: &str) -> bool {
    DATE_ONLY.is_match(t.trim())
}

static LD_HEADLINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""(?:headline|name)"\s*:\s*"([^"]+)""#).expect("a valid literal pattern")
});

/// The item's title. `core` is the `<title>` without the parts that name the site (learned
/// from the host's other pages). In order: the heading that the core contains or that contains
/// it (longest first, `h1` first, inside the content first), or where none does, such an
/// element classed as a title; then the heading (or titled element) that holds the core's
/// parts, the highest first; `og:title` when there is no core;
/// the first `h1` of the content that links nowhere else; the core; JSON-LD's `headline`; the
/// first heading that is not only a date. Furniture and hidden headings never count.
pub(super) fn title(
    page: &Page<'_>,
    content: NodeRef<'_, Node>,
    core: &str,
    furniture: &dyn Fn(NodeRef<'_, Node>) -> bool,
) -> Option<String> {
    let inside: HashSet<NodeId> = content.descendants().map(|n| n.id()).collect();
    let mut candidates: Vec<(NodeRef<'_, Node>, String)> = Vec::new();
    let mut skip = 0usize;
    for edge in page.body.traverse() {
        match edge {
            Edge::Open(n) if n.value().is_element() => {
                if skip > 0 || page.is_hidden(n) || furniture(n) {
                    skip += 1;
                    continue;
                }
                if level(n) > 0 || titled(n) {
                    let t = page.text(n);
                    if t.chars().count() >= 2 {
                        candidates.push((n, t));
                    }
                }
            }
            Edge::Close(n) if n.value().is_element() && skip > 0 => skip -= 1,
            _ => {}
        }
    }
    let c = norm(core);
    // A heading that holds the core's longest part, and either every part in order or only the
    // core's words, is the whole title with a part the core dropped or repeated ("Re: [Birds]
    // Heron" beside the core "Re: - Heron", the list's name taken out as the site's; "[Birds]
    // Heron" beside "Birds - Heron - Birds" before that is learned).
    let parts: Vec<&str> = c.split(" - ").collect();
    let longest = parts
        .iter()
        .copied()
        .max_by_key(|p| p.len())
        .unwrap_or_default();
    let words = |t: &str| -> Vec<String> {
        t.split(|ch: char| !ch.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let core_words: HashSet<String> = words(&c).into_iter().collect();
    let in_order = |t: &str| {
        let mut rest = t;
        parts
            .iter()
            .all(|p| rest.find(p).map(|i| rest = &rest[i + p.len()..]).is_some())
    };
    let holds_parts = |t: &str| {
        parts.len() >= 2
            && t.contains(longest)
            && (in_order(t) || words(t).iter().all(|w| core_words.contains(w)))
    };
    if !c.is_empty() {
        // Headings first; an element classed as a title only where no heading matches; a
        // heading holding the core's parts only where none holds or is held by the core, the
        // highest first.
        let matches = |t: &str, parts: bool| {
            if parts {
                holds_parts(t)
            } else {
                c.contains(t) || t.contains(&c)
            }
        };
        for (parts, headings) in [(false, true), (false, false), (true, true), (true, false)] {
            let best = candidates
                .iter()
                .filter(|(h, t)| {
                    let t = norm(t);
                    // An `h4` is a heading where it holds the core's parts, and otherwise
                    // counts only when classed as a title, as a `div` would.
                    let heading = level(*h) > MINOR || (level(*h) == MINOR && parts);
                    let kept = match headings {
                        true => heading,
                        false => level(*h) <= MINOR && titled(*h),
                    };
                    kept && !t.is_empty() && matches(&t, parts)
                })
                .max_by_key(|(h, t)| {
                    let (len, level) = (norm(t).len(), level(*h));
                    let rank = if parts {
                        (level as usize, len)
                    } else {
                        (len, level as usize)
                    };
                    (rank, inside.contains(&h.id()))
                });
            if let Some((_, t)) = best {
                return Some(t.clone());
            }
        }
    }
    // Past the core, a heading saying only a date is a day's header, not the item's title.
    candidates.retain(|(h, t)| level(*h) > MINOR && !date_only(t));
    let root = page.doc.tree.root();
    let meta = |key: &str| page.meta(key);
    if c.is_empty() {
        if let Some(t) = meta("og:title").or_else(|| meta("twitter:title")) {
            return Some(t);
        }
    }
    let h1 = candidates
        .iter()
        .find(|(h, _)| name(*h) == "h1" && inside.contains(&h.id()) && !page.links_elsewhere(*h));
    if let Some((_, t)) = h1 {
        return Some(t.clone());
    }
    if !c.is_empty() {
        return Some(core.to_owned());
    }
    let ld = root
        .descendants()
        .filter(|n| {
            n.value().as_element().is_some_and(|e| {
                e.name() == "script" && e.attr("type") == Some("application/ld+json")
            })
        })
        .find_map(|n| {
            LD_HEADLINE
                .captures(&node_text(n))
                .map(|m| m[1].trim().to_owned())
        });
    ld.or_else(|| candidates.first().map(|(_, t)| t.clone()))
}

/// Where an item's text starts: the content, or, when the title heading sits before it and
/// outside it (the content search went into a long comment thread and left a short post
/// behind: djeddit's nested replies), the closest element holding both, unless that is the
/// whole page, with the heading: the text then starts after it ([`body`]), so what that
/// element holds before the heading (a breadcrumb, a sidebar) is not the item's.
pub(super) fn root<'a>(
    page: &Page<'a>,
    content: NodeRef<'a, Node>,
    title: Option<&str>,
    furniture: &dyn Fn(NodeRef<'_, Node>) -> bool,
) -> (NodeRef<'a, Node>, Option<NodeId>) {
    let headings = title_headings(page, title);
    let within =
        |n: NodeRef<'a, Node>, of: NodeRef<'a, Node>| n.ancestors().any(|a| a.id() == of.id());
    // A title heading in the content is the item's own; one holding the content is no
    // heading before it.
    if headings
        .iter()
        .any(|h| within(*h, content) || within(content, *h))
    {
        return (content, None);
    }
    let Some(heading) = headings
        .into_iter()
        .find(|h| !furniture(*h) && !h.ancestors().any(furniture))
    else {
        return (content, None);
    };
    let above: HashSet<NodeId> = content.ancestors().map(|a| a.id()).collect();
    let Some(common) = heading.ancestors().find(|a| above.contains(&a.id())) else {
        return (content, None);
    };
    // The heading comes first in document order: the branch of `common` that holds it comes
    // before the one holding the content.
    let branch = |n: NodeRef<'a, Node>| {
        n.ancestors()
            .take_while(|a| a.id() != common.id())
            .last()
            .unwrap_or(n)
            .id()
    };
    let (h, c) = (branch(heading), branch(content));
    let before = common
        .children()
        .map(|ch| ch.id())
        .find(|id| *id == h || *id == c)
        == Some(h);
    if before && !matches!(name(common), "body" | "html") {
        (common, Some(heading.id()))
    } else {
        (content, None)
    }
}

/// The visible `h1`–`h3` of the page whose text is the title (whitespace aside), in document
/// order.
fn title_headings<'a>(page: &Page<'a>, title: Option<&str>) -> Vec<NodeRef<'a, Node>> {
    let Some(title) = title.map(squash) else {
        return Vec::new();
    };
    page.body
        .descendants()
        .filter(|n| level(*n) > MINOR && !page.is_hidden(*n) && squash(&page.text(*n)) == title)
        .collect()
}

/// Elements that break text into blocks when a browser renders it.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "li"
            | "ul"
            | "ol"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "tr"
            | "td"
            | "th"
            | "table"
            | "section"
            | "article"
            | "main"
            | "pre"
            | "blockquote"
            | "dt"
            | "dd"
            | "dl"
            | "br"
            | "figure"
            | "figcaption"
            | "header"
            | "footer"
            | "nav"
            | "aside"
            | "details"
            | "summary"
    )
}

/// The item's text from `root` ([`root`]: after the heading `after`, when there is one):
/// furniture, hidden text, the title heading and boxes of links inside the content (a table
/// of contents, a tag cloud) left out; text joined as a browser shows it (no space inside
/// `Sub<a>Page</a>,`); at most [`BODY_CHARS`] characters.
pub(super) fn body(
    page: &Page<'_>,
    (root, after): (NodeRef<'_, Node>, Option<NodeId>),
    title: Option<&str>,
    stats: &HashMap<NodeId, Stats>,
    furniture: &dyn Fn(NodeRef<'_, Node>) -> bool,
) -> Option<String> {
    let mut before = after.is_some();
    let title = title.map(squash);
    let mut raw = String::new();
    let mut skip = 0usize;
    for edge in root.traverse() {
        match edge {
            Edge::Open(n) => match n.value() {
                Node::Element(e) => {
                    let left_out = skip > 0 || page.is_hidden(n) || furniture(n) || {
                        let heading = matches!(e.name(), "h1" | "h2")
                            && title.as_ref().is_some_and(|t| squash(&page.text(n)) == *t);
                        let link_box = n.id() != root.id()
                            && matches!(e.name(), "div" | "ul" | "ol" | "table" | "nav")
                            && stats
                                .get(&n.id())
                                .is_some_and(|s| s.links >= 3 && s.link * 10 >= s.text * 7);
                        heading || link_box
                    };
                    if left_out {
                        skip += 1;
                    } else if is_block(e.name()) {
                        raw.push(' ');
                    }
                }
                Node::Text(t) if skip == 0 && !before => {
                    raw.push_str(t);
                    if raw.len() > BODY_CHARS * 8 {
                        break;
                    }
                }
                _ => {}
            },
            Edge::Close(n) => {
                before &= Some(n.id()) != after;
                if let Some(e) = n.value().as_element() {
                    if skip > 0 {
                        skip -= 1;
                    } else if is_block(e.name()) {
                        raw.push(' ');
                    }
                }
            }
        }
    }
    let mut out = String::new();
    let mut chars = 0usize;
    for w in raw.split_whitespace() {
        let n = w.chars().count();
        if chars + n > BODY_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
        chars += n + 1;
    }
    Some(out).filter(|t| !t.is_empty())
}
