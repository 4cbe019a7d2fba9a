//! HTML to an XPath-ready tree: the parse stage's guarded html5ever parse (scripting off, capped
//! size, depth and attributes) converted into an sxd-document that knowledge-base XPath runs on.
//!
//! Naming rules (documented for archivists in `docs/kb.md`):
//! - every element and attribute is in **no namespace**, so `//div` matches HTML `<div>` (html5ever
//!   puts HTML elements in the XHTML namespace, which would make `//div` match nothing);
//! - SVG and MathML elements keep their local names (`//svg//path`, `//math/mi`; SVG keeps its
//!   camel case, `foreignObject`); a namespaced attribute keeps its prefix as part of its name
//!   (`xlink:href`, `xml:lang`), reachable with `@*[name()='xlink:href']`;
//! - names that are not valid XML names (`@click`, `:class`, `fb:like`) are kept as written and are
//!   reachable only through `name()`;
//! - `&nbsp;` becomes a plain space in text, so `normalize-space()` and `contains()` behave as
//!   they read; whitespace-only text nodes are kept;
//! - `<noscript>` content is markup (scripting is off, as for a crawler that runs no scripts) and
//!   `<template>` content hangs under its `<template>` element;
//! - comments are kept (`comment()`), doctypes and processing instructions are dropped.

use std::collections::HashMap;

use html5ever::ns;
use scraper::{Html, Node};
use sxd_document::dom::{Attribute, Document, Element};
use sxd_document::Package;
use sxd_xpath::nodeset::Node as XNode;

use crate::parse::parse_document;

/// Longest text kept for one extracted field; a field that spans a whole page is not a field.
pub(crate) const MAX_FIELD_BYTES: usize = 64 * 1024;

/// Parses HTML text and converts it into an sxd package.
pub(crate) fn html_package(text: &str) -> Package {
    let html = parse_document(text);
    convert(&html)
}

/// Converts an html5ever tree into an sxd package (iteratively: depth is bounded by the parse
/// guard, but no recursion is needed either way).
pub(crate) fn convert(html: &Html) -> Package {
    let package = Package::new();
    {
        let doc = package.as_document();
        let root = doc.root();
        // (scraper node, sxd parent) pairs still to visit; `None` parent means the document root.
        let mut stack: Vec<(ego_tree::NodeRef<'_, Node>, Option<Element<'_>>)> = html
            .tree
            .root()
            .children()
            .rev()
            .map(|c| (c, None))
            .collect();
        while let Some((node, parent)) = stack.pop() {
            let attach = |child: ParentOfChildChild<'_>| match (parent, child) {
                (Some(p), ParentOfChildChild::Element(e)) => p.append_child(e),
                (Some(p), ParentOfChildChild::Text(t)) => p.append_child(t),
                (Some(p), ParentOfChildChild::Comment(c)) => p.append_child(c),
                (None, ParentOfChildChild::Element(e)) => root.append_child(e),
                (None, ParentOfChildChild::Comment(c)) => root.append_child(c),
                // Text directly under the document cannot occur in an HTML parse.
                (None, ParentOfChildChild::Text(_)) => {}
            };
            match node.value() {
                Node::Element(el) => {
                    let e = doc.create_element(el.name.local.as_ref());
                    for (name, value) in el.attrs.iter() {
                        if name.ns == ns!() {
                            e.set_attribute_value(name.local.as_ref(), value);
                        } else {
                            let prefix = name
                                .prefix
                                .as_ref()
                                .map(|p| p.as_ref())
                                .unwrap_or_else(|| ns_prefix(&name.ns));
                            let full = format!("{prefix}:{}", name.local.as_ref());
                            e.set_attribute_value(full.as_str(), value);
                        }
                    }
                    attach(ParentOfChildChild::Element(e));
                    push_children(&mut stack, node, e);
                }
                Node::Text(t) => {
                    let text: &str = &t.text;
                    let t = if text.contains('\u{a0}') {
                        doc.create_text(&text.replace('\u{a0}', " "))
                    } else {
                        doc.create_text(text)
                    };
                    attach(ParentOfChildChild::Text(t));
                }
                Node::Comment(c) => {
                    attach(ParentOfChildChild::Comment(doc.create_comment(&c.comment)));
                }
                Node::Fragment => {
                    // Template contents: hang them under the template element itself.
                    if let Some(p) = parent {
                        push_children(&mut stack, node, p);
                    }
                }
                Node::Document | Node::Doctype(_) | Node::ProcessingInstruction(_) => {}
            }
        }
    }
    package
}

/// What the conversion attaches to a parent.
enum ParentOfChildChild<'d> {
    Element(Element<'d>),
    Text(sxd_document::dom::Text<'d>),
    Comment(sxd_document::dom::Comment<'d>),
}

fn push_children<'a, 'd>(
    stack: &mut Vec<(ego_tree::NodeRef<'a, Node>, Option<Element<'d>>)>,
    node: ego_tree::NodeRef<'a, Node>,
    parent: Element<'d>,
) {
    for child in node.children().rev() {
        stack.push((child, Some(parent)));
    }
}

/// The conventional prefix of a namespace html5ever puts foreign attributes in.
fn ns_prefix(ns: &html5ever::Namespace) -> &'static str {
    if *ns == ns!(xlink) {
        "xlink"
    } else if *ns == ns!(xml) {
        "xml"
    } else if *ns == ns!(xmlns) {
        "xmlns"
    } else {
        "ns"
    }
}

/// A converted page ready for evaluation: the document plus a flat index of its elements in
/// document order (preorder), which puts node sets (which sxd returns unordered) in document
/// order cheaply and lets simple expressions run without the XPath engine (`native`).
pub(crate) struct Dom<'d> {
    /// The sxd document.
    pub(crate) doc: Document<'d>,
    order: HashMap<Element<'d>, u32>,
    /// Elements in document order.
    pub(crate) els: Vec<Element<'d>>,
    /// Local name of each element.
    pub(crate) names: Vec<&'d str>,
    /// Index of each element's parent element ([`NONE`] at the top).
    pub(crate) parent: Vec<u32>,
    /// End (exclusive) of each element's subtree: its descendants are `i + 1 .. end[i]`.
    pub(crate) end: Vec<u32>,
    /// Each element's attributes, as a range of [`Dom::attrs`].
    pub(crate) attr_range: Vec<(u32, u32)>,
    /// All attributes, element by element.
    pub(crate) attrs: Vec<Attribute<'d>>,
}

/// No element (the parent of a top-level element).
pub(crate) const NONE: u32 = u32::MAX;

/// A step of the indexing walk.
enum Visit<'d> {
    Enter(Element<'d>, u32),
    Exit(u32),
}

// sxd elements hash by node address, which never changes while the package lives; the
// interior mutability clippy sees is the document's string pool, not the key.
#[allow(clippy::mutable_key_type)]
impl<'d> Dom<'d> {
    /// Indexes a converted package.
    pub(crate) fn new(package: &'d Package) -> Dom<'d> {
        let doc = package.as_document();
        let mut dom = Dom {
            doc,
            order: HashMap::new(),
            els: Vec::new(),
            names: Vec::new(),
            parent: Vec::new(),
            end: Vec::new(),
            attr_range: Vec::new(),
            attrs: Vec::new(),
        };
        let mut stack: Vec<Visit<'d>> = doc
            .root()
            .children()
            .into_iter()
            .rev()
            .filter_map(|c| c.element())
            .map(|e| Visit::Enter(e, NONE))
            .collect();
        while let Some(v) = stack.pop() {
            match v {
                Visit::Enter(e, parent) => {
                    let i = dom.els.len() as u32;
                    dom.order.insert(e, i);
                    dom.els.push(e);
                    dom.names.push(e.name().local_part());
                    dom.parent.push(parent);
                    dom.end.push(i + 1);
                    let a = dom.attrs.len() as u32;
                    dom.attrs.extend(e.attributes());
                    dom.attr_range.push((a, dom.attrs.len() as u32));
                    stack.push(Visit::Exit(i));
                    stack.extend(
                        e.children()
                            .into_iter()
                            .rev()
                            .filter_map(|c| c.element())
                            .map(|c| Visit::Enter(c, i)),
                    );
                }
                Visit::Exit(i) => dom.end[i as usize] = dom.els.len() as u32,
            }
        }
        dom
    }

    /// Number of elements in the page.
    #[cfg(test)]
    pub(crate) fn elements(&self) -> usize {
        self.els.len()
    }

    /// Every element in document order.
    pub(crate) fn all_elements(&self) -> Vec<Element<'d>> {
        self.els.clone()
    }

    /// The index of an element.
    pub(crate) fn index(&self, e: Element<'d>) -> Option<u32> {
        self.order.get(&e).copied()
    }

    /// The value of an attribute of element `i`.
    pub(crate) fn attr(&self, i: u32, name: &str) -> Option<&'d str> {
        let (a, b) = self.attr_range[i as usize];
        self.attrs[a as usize..b as usize]
            .iter()
            .find(|x| x.name().local_part() == name)
            .map(|x| x.value())
    }

    /// Sorts nodes into document order (nodes that are not elements sort with their parent
    /// element, after it; their relative order follows their position among its children).
    pub(crate) fn sort(&self, nodes: &mut [XNode<'d>]) {
        nodes.sort_by_cached_key(|n| self.key(*n));
    }

    /// Sort rank of an element: after the document node.
    fn rank(&self, e: Element<'d>) -> u32 {
        self.index(e).map_or(u32::MAX, |i| i.saturating_add(1))
    }

    /// Document-order key: element rank, then 0 for the element itself, 1 for its attributes
    /// (in attribute order), 2 for its other children (in child order).
    fn key(&self, n: XNode<'d>) -> (u32, u32, u32) {
        match n {
            XNode::Root(_) => (0, 0, 0),
            XNode::Element(e) => (self.rank(e), 0, 0),
            XNode::Attribute(a) => match a.parent() {
                Some(p) => {
                    let k = self
                        .index(p)
                        .and_then(|i| {
                            let (s, e) = self.attr_range[i as usize];
                            self.attrs[s as usize..e as usize]
                                .iter()
                                .position(|x| *x == a)
                        })
                        .unwrap_or(0);
                    (self.rank(p), 1, k as u32)
                }
                None => (u32::MAX, 0, 0),
            },
            other => match other.parent() {
                Some(XNode::Element(p)) => {
                    let idx = p
                        .children()
                        .iter()
                        .position(|c| child_node(*c) == other)
                        .unwrap_or(0);
                    (self.rank(p), 2, idx as u32)
                }
                _ => (u32::MAX, 0, 0),
            },
        }
    }
}

/// A child as an XPath node.
fn child_node(c: sxd_document::dom::ChildOfElement<'_>) -> XNode<'_> {
    use sxd_document::dom::ChildOfElement as C;
    match c {
        C::Element(e) => XNode::Element(e),
        C::Text(t) => XNode::Text(t),
        C::Comment(x) => XNode::Comment(x),
        C::ProcessingInstruction(p) => XNode::ProcessingInstruction(p),
    }
}

/// Elements whose edges separate words in extracted text: the page walk's text-block elements
/// (one list for both), and line breaks.
fn separates_words(name: &str) -> bool {
    name == "br" || crate::parse::is_block(name)
}

/// Elements whose text is never content.
fn is_skipped(name: &str) -> bool {
    matches!(name, "script" | "style" | "template")
}

/// A whitespace-normalising text builder with a byte cap.
#[derive(Default)]
struct TextBuf {
    out: String,
    space: bool,
}

impl TextBuf {
    fn push(&mut self, s: &str) {
        for c in s.chars() {
            if self.out.len() >= MAX_FIELD_BYTES {
                return;
            }
            if c.is_whitespace() {
                self.space = !self.out.is_empty();
            } else {
                if self.space {
                    self.out.push(' ');
                    self.space = false;
                }
                self.out.push(c);
            }
        }
    }

    fn boundary(&mut self) {
        self.space = !self.out.is_empty();
    }
}

/// The whitespace-normalised text of a node, as an archivist reads it: words in neighbouring
/// blocks (`<p>a</p><p>b</p>`) are separated, `<script>`/`<style>` text is left out, and the
/// result is capped at [`MAX_FIELD_BYTES`]. Attributes and text nodes give their value.
pub(crate) fn node_text(node: XNode<'_>) -> String {
    let mut buf = TextBuf::default();
    match node {
        XNode::Element(e) => element_text(e, &mut buf),
        XNode::Root(r) => {
            for c in r.children() {
                if let Some(e) = c.element() {
                    element_text(e, &mut buf);
                }
            }
        }
        XNode::Attribute(a) => buf.push(a.value()),
        XNode::Text(t) => buf.push(t.text()),
        other => buf.push(&other.string_value()),
    }
    buf.out
}

fn element_text(root: Element<'_>, buf: &mut TextBuf) {
    use sxd_document::dom::ChildOfElement;
    // Close markers (None) let block edges on the way out add separators.
    let mut stack: Vec<Option<ChildOfElement<'_>>> = vec![Some(ChildOfElement::Element(root))];
    while let Some(item) = stack.pop() {
        if buf.out.len() >= MAX_FIELD_BYTES {
            break;
        }
        match item {
            None => buf.boundary(),
            Some(ChildOfElement::Text(t)) => buf.push(t.text()),
            Some(ChildOfElement::Element(e)) => {
                let name = e.name().local_part();
                if is_skipped(name) {
                    continue;
                }
                let block = separates_words(name);
                if block {
                    buf.boundary();
                    stack.push(None);
                }
                for c in e.children().into_iter().rev() {
                    stack.push(Some(c));
                }
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
#[path = "dom_tests.rs"]
mod tests;
