//! The title and text of a single item (a post, an article, a topic) on a page of an unknown
//! application.

use std::collections::HashSet;

use ego_tree::{iter::Edge, NodeId, NodeRef};
use scraper::{Html, Node};
use url::Url;

use super::{find, is_furniture, is_skipped, links_elsewhere, name, node_text, BODY_CHARS};

/// Where an item's text starts: the content, or, when the title heading sits outside it (the
/// content search went into a long comment thread and left a short post behind), the closest
/// element holding both, unless that is far up the page.
pub(super) fn root<'a>(
    doc: &'a Html,
    content: NodeRef<'a, Node>,
    title: Option<&str>,
) -> NodeRef<'a, Node> {
    let Some(title) = title else {
        return content;
    };
    let heading = doc
        .tree
        .root()
        .descendants()
        .find(|n| matches!(name(*n), "h1" | "h2") && node_text(*n) == title);
    let Some(heading) = heading else {
        return content;
    };
    if heading.ancestors().any(|a| a.id() == content.id()) {
        return content;
    }
    let above: HashSet<NodeId> = content.ancestors().map(|a| a.id()).collect();
    let Some(common) = heading.ancestors().find(|a| above.contains(&a.id())) else {
        return content;
    };
    let up = content
        .ancestors()
        .take_while(|a| a.id() != common.id())
        .count();
    if up < 4 && !matches!(name(common), "body" | "html") {
        common
    } else {
        content
    }
}

/// How good a heading is as the item's title, best greatest: it does not link to another page;
/// it is an `h1`; the `<title>` contains it; it is inside the content; its level.
type HeadingRank = (bool, bool, bool, bool, u8);

/// The item's title: the best heading (one that does not link to another page, as site names
/// and list items do; one the `<title>` contains; inside the content; `h1` before `h2`), else
/// `og:title`, else the `<title>` itself.
pub(super) fn title(doc: &Html, content: NodeRef<'_, Node>, url: &Url) -> Option<String> {
    let root = doc.tree.root();
    let page_title = find(root, "title").map(node_text).unwrap_or_default();
    let lower = page_title.to_lowercase();
    let inside: HashSet<NodeId> = std::iter::once(content)
        .chain(content.descendants())
        .map(|n| n.id())
        .collect();
    let mut best: Option<(HeadingRank, String)> = None;
    for n in root.descendants() {
        let level = match name(n) {
            "h1" => 3,
            "h2" => 2,
            "h3" => 1,
            _ => continue,
        };
        let t = node_text(n);
        if t.chars().count() < 2 {
            continue;
        }
        let rank = (
            !links_elsewhere(n, url),
            level == 3,
            lower.contains(&t.to_lowercase().replace(' ', "_"))
                || lower.contains(&t.to_lowercase()),
            inside.contains(&n.id()),
            level,
        );
        if best.as_ref().is_none_or(|b| rank > b.0) {
            best = Some((rank, t));
        }
    }
    best.map(|b| b.1)
        .or_else(|| {
            root.descendants()
                .filter_map(|n| n.value().as_element())
                .find(|e| e.name() == "meta" && e.attr("property") == Some("og:title"))
                .and_then(|e| e.attr("content"))
                .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .or_else(|| Some(page_title).filter(|t| !t.is_empty()))
}

/// The content's text, furniture and the title heading left out, up to [`BODY_CHARS`].
pub(super) fn collect_text(content: NodeRef<'_, Node>, out: &mut String, title: Option<&str>) {
    // Depth inside a left-out element; every element opened inside one adds one.
    let mut skip = 0usize;
    let mut chars = 0usize;
    for edge in content.traverse() {
        match edge {
            Edge::Open(n) => match n.value() {
                Node::Element(e) => {
                    let heading =
                        matches!(e.name(), "h1" | "h2") && title.is_some_and(|t| node_text(n) == t);
                    if skip > 0 || is_skipped(e.name()) || is_furniture(e.name()) || heading {
                        skip += 1;
                    }
                }
                Node::Text(t) if skip == 0 => {
                    for w in t.split_whitespace() {
                        if chars >= BODY_CHARS {
                            return;
                        }
                        if !out.is_empty() {
                            out.push(' ');
                        }
                        out.push_str(w);
                        chars += w.chars().count() + 1;
                    }
                }
                _ => {}
            },
            Edge::Close(n) => {
                if n.value().is_element() && skip > 0 {
                    skip -= 1;
                }
            }
        }
    }
}
