//! A page prepared for reading: what is invisible, the text measures of every element, and the
//! keys of its small blocks, by which the host's model recognises furniture.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use ego_tree::{iter::Edge, NodeId, NodeRef};
use scraper::{Html, Node};
use url::Url;

use super::{find, is_heading, name};

/// Characters of visible text a block may hold and still be keyed: furniture is short.
const MAX_KEYED_TEXT: usize = 400;
/// Ancestors whose tag and first class are part of a block's key: a post's title is an `h1` on
/// its own page but an `li > a` in every sidebar, and only one of them is furniture.
const KEY_PATH: usize = 3;

/// Text measures of one element's subtree (what is left out not counted).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Stats {
    /// Characters of text, links included.
    pub(super) text: usize,
    /// Characters of text inside links.
    pub(super) link: usize,
    /// `<a href>` elements.
    pub(super) links: usize,
    /// A heading (`h1`–`h6`) that is mostly a link: what heads an item of a list.
    pub(super) heading_link: bool,
}

/// A parsed page with what the reader needs about it before it knows the host.
pub(super) struct Page<'a> {
    pub(super) doc: &'a Html,
    pub(super) url: &'a Url,
    pub(super) body: NodeRef<'a, Node>,
    /// Nodes never read, with everything inside them: scripts and styles, and what the page
    /// hides (`hidden`, `aria-hidden`, dialogs, inline `display:none`): a help dialog on every
    /// page is no title.
    pub(super) hidden: HashSet<NodeId>,
    /// Key of every small block (see [`KEY_PATH`], [`MAX_KEYED_TEXT`]).
    pub(super) keys: HashMap<NodeId, u64>,
    /// The `<title>`, whitespace-normalised.
    pub(super) title: String,
    /// The page's URL without its fragment, for telling links to the page itself.
    this: Url,
    /// Links that lead to a person ([`marks_a_person`]), without fragments.
    people: HashSet<Url>,
}

impl<'a> Page<'a> {
    /// Prepares `doc`; `None` when it has no `<body>`.
    pub(super) fn new(doc: &'a Html, url: &'a Url) -> Option<Page<'a>> {
        let body = find(doc.tree.root(), "body")?;
        let title = find(doc.tree.root(), "title")
            .map(|t| super::node_text(t))
            .unwrap_or_default();
        let mut page = Page {
            doc,
            url,
            body,
            hidden: HashSet::new(),
            keys: HashMap::new(),
            title,
            this: {
                let mut u = url.clone();
                u.set_fragment(None);
                u
            },
            people: HashSet::new(),
        };
        let mut inside = 0usize;
        for edge in body.traverse() {
            match edge {
                Edge::Open(n) => {
                    let hides = n
                        .value()
                        .as_element()
                        .is_some_and(|e| super::is_skipped(e.name()) || invisible(e));
                    if inside > 0 || hides {
                        page.hidden.insert(n.id());
                        inside += usize::from(n.value().is_element());
                    }
                }
                Edge::Close(n) => {
                    if inside > 0 && n.value().is_element() {
                        inside -= 1;
                    }
                }
            }
        }
        let raw = page.measure(&|_| false);
        for n in body.descendants() {
            let Some(e) = n.value().as_element() else {
                continue;
            };
            if e.name() == "a" && marks_a_person(n) {
                if let Some(mut u) = e.attr("href").and_then(|h| url.join(h).ok()) {
                    u.set_fragment(None);
                    page.people.insert(u);
                }
            }
            let keyed = is_blockish(e.name())
                && raw
                    .get(&n.id())
                    .is_some_and(|s| s.text > 0 && s.text <= MAX_KEYED_TEXT + 1);
            if keyed {
                let key = page.block_key(n);
                page.keys.insert(n.id(), key);
            }
        }
        Some(page)
    }

    /// Whether `n` is hidden or inside what is.
    pub(super) fn is_hidden(&self, n: NodeRef<'_, Node>) -> bool {
        self.hidden.contains(&n.id())
    }

    /// The visible text of `n`, whitespace-normalised.
    pub(super) fn text(&self, n: NodeRef<'_, Node>) -> String {
        let mut out = String::new();
        let mut skip = 0usize;
        for edge in n.traverse() {
            match edge {
                Edge::Open(d) => match d.value() {
                    Node::Element(_) if skip > 0 || self.hidden.contains(&d.id()) => skip += 1,
                    Node::Text(t) if skip == 0 => {
                        for w in t.split_whitespace() {
                            if !out.is_empty() {
                                out.push(' ');
                            }
                            out.push_str(w);
                        }
                    }
                    _ => {}
                },
                Edge::Close(d) => {
                    if d.value().is_element() && skip > 0 {
                        skip -= 1;
                    }
                }
            }
        }
        out
    }

    fn block_key(&self, n: NodeRef<'_, Node>) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        name(n).hash(&mut h);
        self.text(n).to_lowercase().hash(&mut h);
        for a in n.ancestors().take(KEY_PATH) {
            name(a).hash(&mut h);
            a.value()
                .as_element()
                .and_then(|e| e.attr("class"))
                .and_then(|c| c.split_whitespace().next())
                .unwrap_or("")
                .hash(&mut h);
        }
        h.finish()
    }

    /// One pass over the body: [`Stats`] of every visible element; an element `furniture`
    /// says is counted for itself but not for its ancestors. Iterative, so depth costs nothing.
    pub(super) fn measure(
        &self,
        furniture: &dyn Fn(NodeRef<'_, Node>) -> bool,
    ) -> HashMap<NodeId, Stats> {
        let mut out = HashMap::new();
        let mut stack: Vec<(NodeId, Stats, bool)> = Vec::new();
        let (mut skip, mut in_link) = (0usize, 0usize);
        for edge in self.body.traverse() {
            match edge {
                Edge::Open(n) => match n.value() {
                    Node::Element(e) => {
                        if skip > 0 || self.hidden.contains(&n.id()) {
                            skip += 1;
                            continue;
                        }
                        let href = e.attr("href").filter(|_| e.name() == "a");
                        in_link += usize::from(href.is_some());
                        let own = Stats {
                            // A mail address or a script is no page: it heads no entry.
                            links: usize::from(href.is_some_and(leads_to_a_page)),
                            ..Stats::default()
                        };
                        stack.push((n.id(), own, furniture(n)));
                    }
                    Node::Text(t) if skip == 0 => {
                        let c = super::text_chars(t);
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
                    let Some((id, mut s, furn)) = stack.pop() else {
                        continue;
                    };
                    // The heading is the link (an item's title), not a heading with a
                    // permalink mark or a count beside its text.
                    s.heading_link |= is_heading(e.name()) && s.links > 0 && s.link * 2 >= s.text;
                    out.insert(id, s);
                    if let Some((_, parent, _)) = stack.last_mut().filter(|_| !furn) {
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

    /// The content of the first `<meta>` whose `name` or `property` is `key` (any case),
    /// whitespace-normalised; `None` when missing or empty.
    pub(super) fn meta(&self, key: &str) -> Option<String> {
        self.doc
            .tree
            .root()
            .descendants()
            .filter_map(|n| n.value().as_element())
            .find(|e| {
                e.name() == "meta"
                    && [e.attr("name"), e.attr("property")]
                        .into_iter()
                        .flatten()
                        .any(|v| v.eq_ignore_ascii_case(key))
            })
            .and_then(|e| e.attr("content"))
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty())
    }

    /// Whether `href` points at this page itself (a permalink, an anchor).
    pub(super) fn is_self(&self, href: &str) -> bool {
        let Ok(mut target) = self.url.join(href) else {
            return true;
        };
        target.set_fragment(None);
        target == self.this
    }

    /// Whether `target` is linked on the page as a person ([`marks_a_person`]).
    pub(super) fn links_a_person(&self, target: &Url) -> bool {
        self.people.contains(target)
    }

    /// Whether `n` holds a link to another page.
    pub(super) fn links_elsewhere(&self, n: NodeRef<'_, Node>) -> bool {
        std::iter::once(n)
            .chain(n.descendants())
            .filter_map(|d| d.value().as_element())
            .filter(|e| e.name() == "a")
            .filter_map(|e| e.attr("href"))
            .any(|h| !self.is_self(h))
    }
}

/// Whether an element hides itself: `hidden`, `aria-hidden="true"`, a dialog, or an inline
/// style that does not display it.
fn invisible(e: &scraper::node::Element) -> bool {
    if e.attr("hidden").is_some()
        || e.attr("aria-hidden") == Some("true")
        || e.attr("role") == Some("dialog")
        || e.name() == "dialog"
    {
        return true;
    }
    e.attr("style").is_some_and(|s| {
        let s: String = s
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        s.contains("display:none") || s.contains("visibility:hidden")
    })
}

/// Elements whose text may be a block of furniture.
fn is_blockish(name: &str) -> bool {
    matches!(
        name,
        "p" | "li"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "a"
            | "td"
            | "th"
            | "dt"
            | "dd"
            | "summary"
            | "figcaption"
            | "label"
            | "span"
            | "div"
            | "small"
            | "time"
            | "pre"
            | "blockquote"
            | "ul"
            | "ol"
            | "table"
            | "section"
            | "details"
    )
}

/// Whether a link's target is a page: not a mail address, a phone number or a script.
fn leads_to_a_page(href: &str) -> bool {
    let scheme = href
        .trim_start()
        .split_once(':')
        .map(|(s, _)| s.to_ascii_lowercase());
    !matches!(scheme.as_deref(), Some("mailto" | "tel" | "javascript"))
}

/// Whether link `a` leads to a person: it holds an avatar (an image with an `avatar` class, or
/// one from an `avatars` folder), or it or what it holds is marked as an author
/// (`rel="author"`, `itemprop="author"`), and it is a name, not a card: no heading, a few words
/// at most. A forum heads each post with its author's name so (Misago's
/// `<a href="/u/alice/1/"><img class="poster-avatar">`), wherever its members' pages are; a
/// theme that wraps a whole teaser, byline included, in one link links the post.
pub(super) fn marks_a_person(a: NodeRef<'_, Node>) -> bool {
    let mut text = 0usize;
    let mut marked = false;
    // `descendants` begins with `a` itself.
    for d in a.descendants().take(64) {
        match d.value() {
            Node::Text(t) => text += t.trim().chars().count(),
            Node::Element(e) if is_heading(e.name()) => return false,
            Node::Element(e) => marked |= person_mark(e),
            _ => {}
        }
    }
    marked && text <= MAX_NAME_CHARS
}

/// Characters of a link to a person, at most: a name or a handle.
const MAX_NAME_CHARS: usize = 40;

/// Whether element `e` marks what holds it as a person: an avatar, or an author.
fn person_mark(e: &scraper::node::Element) -> bool {
    let has_word = |k: &str, seps: &[char], words: &[&str]| {
        e.attr(k).is_some_and(|v| {
            v.split(seps)
                .any(|w| words.iter().any(|x| w.eq_ignore_ascii_case(x)))
        })
    };
    let avatar = e.name() == "img"
        && (has_word("class", &[' ', '-', '_'], &["avatar"])
            || has_word("src", &['/'], &["avatar", "avatars"]));
    let author = ["rel", "itemprop"].iter().any(|k| {
        e.attr(k)
            .is_some_and(|v| v.split_ascii_whitespace().any(|w| w == "author"))
    });
    avatar || author
}
