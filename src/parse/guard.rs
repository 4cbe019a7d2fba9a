//! Bounds on html5ever's work: the tree builder and tokenizer have quadratic corners that a
//! hostile page can hit, and one stalled parse stalls a crawl worker.
//!
//! Four limits, applied in [`parse_document`]:
//! - input size: the caller passes at most `ParseLimits::max_html_bytes`;
//! - nesting depth: scope checks walk the stack of open elements, so N nested `<div>`s cost
//!   O(N²) (20k took over a second, 100k over half a minute). The tree sink watches the depth of
//!   every inserted node; the input is fed in chunks, and once a node sits deeper than
//!   [`MAX_DEPTH`] (the limit browsers use as well) the rest of the document is not parsed;
//! - attributes per tag: the tokenizer checks each new attribute against all earlier ones of the
//!   same tag, so one tag with N attributes costs O(N²). A cheap scan first finds the first tag
//!   with more than [`MAX_ATTRS`] attributes and the document is parsed only up to that tag.
//! - parse errors: html5ever reports one per stray byte (a page of NULs or of `<` gives one
//!   per character, and scraper keeps each in a list, 24 bytes and more apiece: 19 MB of NULs
//!   took over 500 MB). Only the first [`MAX_PARSE_ERRORS`] are kept; magpie reads none of
//!   them, they are there for debugging.
//!
//! Pages cut by a limit keep everything before the cut (links, text).

use std::borrow::Cow;
use std::cell::{Cell, Ref};

use ego_tree::NodeId;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeBuilderOpts, TreeSink};
use html5ever::{Attribute, ParseOpts, QualName};
use scraper::{Html, HtmlTreeSink};

/// Deepest element nesting parsed; deeper content is cut off.
pub(crate) const MAX_DEPTH: usize = 512;

/// Most attributes on one start tag; the document is cut before a tag with more.
pub(crate) const MAX_ATTRS: usize = 512;

/// Parse errors kept per document; the rest are counted by html5ever's tokenizer and dropped.
pub(crate) const MAX_PARSE_ERRORS: usize = 64;

/// Input is fed to the parser in pieces of this size, so the depth check runs regularly.
const CHUNK_BYTES: usize = 16 * 1024;

/// Parses an HTML document with scripting disabled (so `<noscript>` content is markup and its
/// links are found, as a crawler that runs no scripts should see the page), within the limits
/// described in the module documentation.
pub(crate) fn parse_document(text: &str) -> Html {
    let text = &text[..attr_safe_len(text)];
    let sink = DepthGuard {
        inner: HtmlTreeSink::new(Html::new_document()),
        too_deep: Cell::new(false),
        errors: Cell::new(0),
    };
    let opts = ParseOpts {
        tree_builder: TreeBuilderOpts {
            scripting_enabled: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut parser = html5ever::parse_document(sink, opts);
    let mut pos = 0;
    while pos < text.len() && !parser.tokenizer.sink.sink.too_deep.get() {
        let mut end = (pos + CHUNK_BYTES).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        parser.process(StrTendril::from_slice(&text[pos..end]));
        pos = end;
    }
    parser.finish()
}

/// A tree sink that builds scraper's tree, flags when nesting passes [`MAX_DEPTH`] and keeps at
/// most [`MAX_PARSE_ERRORS`] parse errors.
struct DepthGuard {
    inner: HtmlTreeSink,
    too_deep: Cell<bool>,
    errors: Cell<usize>,
}

impl DepthGuard {
    /// Flags the parse if a node placed under `parent` would sit too deep. Walks at most
    /// `MAX_DEPTH` ancestors, so the check itself stays linear in the document.
    fn check_under(&self, parent: NodeId) {
        let html = self.inner.0.borrow();
        if let Some(node) = html.tree.get(parent) {
            if node.ancestors().take(MAX_DEPTH).count() >= MAX_DEPTH {
                self.too_deep.set(true);
            }
        }
    }
}

impl TreeSink for DepthGuard {
    type Handle = NodeId;
    type Output = Html;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Html {
        self.inner.finish()
    }
    fn parse_error(&self, msg: Cow<'static, str>) {
        let n = self.errors.get();
        if n < MAX_PARSE_ERRORS {
            self.errors.set(n + 1);
            self.inner.parse_error(msg)
        }
    }
    fn get_document(&self) -> NodeId {
        self.inner.get_document()
    }
    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
        self.inner.elem_name(target)
    }
    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        self.inner.create_element(name, attrs, flags)
    }
    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.inner.create_comment(text)
    }
    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
        self.inner.create_pi(target, data)
    }
    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        if matches!(child, NodeOrText::AppendNode(_)) {
            self.check_under(*parent);
        }
        self.inner.append(parent, child)
    }
    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        self.inner
            .append_based_on_parent_node(element, prev_element, child)
    }
    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.inner
            .append_doctype_to_document(name, public_id, system_id)
    }
    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.inner.get_template_contents(target)
    }
    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        self.inner.same_node(x, y)
    }
    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode)
    }
    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        if matches!(new_node, NodeOrText::AppendNode(_)) {
            self.check_under(*sibling);
        }
        self.inner.append_before_sibling(sibling, new_node)
    }
    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        self.inner.add_attrs_if_missing(target, attrs)
    }
    fn remove_from_parent(&self, target: &NodeId) {
        self.inner.remove_from_parent(target)
    }
    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        self.inner.reparent_children(node, new_parent)
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// Position of `needle` in `b` at or after `from`, ASCII case-insensitively. Every needle
/// starts with `<` or `-`, so candidates are found with `memchr` first.
fn find_ci(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let (&first, _) = needle.split_first()?;
    debug_assert!(
        !first.is_ascii_alphabetic(),
        "the first byte is matched exactly"
    );
    let mut at = from;
    while let Some(p) = memchr::memchr(first, b.get(at..)?) {
        let start = at + p;
        if b.get(start..start + needle.len())?
            .eq_ignore_ascii_case(needle)
        {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

/// Elements whose content the tokenizer reads as text up to the matching end tag.
const RAW_TEXT: [&[u8]; 8] = [
    b"script",
    b"style",
    b"textarea",
    b"title",
    b"xmp",
    b"iframe",
    b"noembed",
    b"noframes",
];

/// Length of the prefix of `text` that holds no start tag with more than [`MAX_ATTRS`]
/// attributes. Mirrors the tokenizer closely enough for that purpose: it skips comments and
/// the content of raw-text elements, and honours quoted attribute values.
pub(super) fn attr_safe_len(text: &str) -> usize {
    let b = text.as_bytes();
    let n = b.len();
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'<', &b[i..]) {
        let start = i + p;
        i = start + 1;
        if b[i..].starts_with(b"!--") {
            i = find_ci(b, i + 1, b"-->").map_or(n, |e| e + 3);
            continue;
        }
        if !b.get(i).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_start = i;
        while i < n && !is_space(b[i]) && b[i] != b'>' && b[i] != b'/' {
            i += 1;
        }
        let name = &b[name_start..i];
        let mut attrs = 0;
        loop {
            while i < n && (is_space(b[i]) || b[i] == b'/') {
                i += 1;
            }
            if i >= n {
                break;
            }
            if b[i] == b'>' {
                i += 1;
                break;
            }
            attrs += 1;
            if attrs > MAX_ATTRS {
                return start;
            }
            i += 1;
            while i < n && !is_space(b[i]) && !matches!(b[i], b'=' | b'>' | b'/') {
                i += 1;
            }
            while i < n && is_space(b[i]) {
                i += 1;
            }
            if i < n && b[i] == b'=' {
                i += 1;
                while i < n && is_space(b[i]) {
                    i += 1;
                }
                if i < n && (b[i] == b'"' || b[i] == b'\'') {
                    let q = b[i];
                    i = b[i + 1..]
                        .iter()
                        .position(|&c| c == q)
                        .map_or(n, |e| i + 2 + e);
                } else {
                    while i < n && !is_space(b[i]) && b[i] != b'>' {
                        i += 1;
                    }
                }
            }
        }
        if name.eq_ignore_ascii_case(b"plaintext") {
            break;
        }
        if RAW_TEXT.iter().any(|t| name.eq_ignore_ascii_case(t)) {
            let mut close = Vec::with_capacity(name.len() + 2);
            close.extend_from_slice(b"</");
            close.extend_from_slice(name);
            i = find_ci(b, i, &close).unwrap_or(n);
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn count(doc: &Html, name: &str) -> usize {
        doc.tree
            .nodes()
            .filter(|n| n.value().as_element().is_some_and(|e| e.name() == name))
            .count()
    }

    #[test]
    fn find_ci_finds_the_first_match_at_or_after_from() {
        let naive = |b: &[u8], from: usize, needle: &[u8]| {
            b.get(from..)?
                .windows(needle.len())
                .position(|w| w.eq_ignore_ascii_case(needle))
                .map(|p| from + p)
        };
        let hay = b"<a>--><SCRIPT>x</Script></script -->< /script><</scRipt";
        for needle in [&b"-->"[..], b"</script", b"<", b"</scripts"] {
            for from in 0..=hay.len() + 1 {
                assert_eq!(find_ci(hay, from, needle), naive(hay, from, needle));
            }
        }
    }

    #[test]
    fn deep_nesting_is_cut() {
        let depth = 40_000;
        let mut s = "<div>".repeat(depth);
        s.push_str("<a href=/deep>deep</a>");
        let t = Instant::now();
        let doc = parse_document(&s);
        assert!(t.elapsed().as_secs() < 5, "took {:?}", t.elapsed());
        let divs = count(&doc, "div");
        assert!(
            (MAX_DEPTH..MAX_DEPTH + CHUNK_BYTES / 5 + 10).contains(&divs),
            "{divs} divs"
        );
        assert_eq!(count(&doc, "a"), 0);
    }

    #[test]
    fn parse_errors_are_kept_up_to_the_cap() {
        let s = format!("<p>a{}b</p>{}", "\0".repeat(100_000), "<".repeat(100_000));
        let doc = parse_document(&s);
        assert_eq!(doc.errors.len(), MAX_PARSE_ERRORS);
        assert_eq!(count(&doc, "p"), 1);
        let doc = parse_document("<p>fine</p>");
        assert!(doc.errors.len() < MAX_PARSE_ERRORS);
    }

    #[test]
    fn normal_depth_is_untouched() {
        let mut s = "<div>".repeat(200);
        s.push_str("<a href=/x>x</a>");
        s.push_str(&"</div>".repeat(200));
        s.push_str(&"<p>after</p>".repeat(5000));
        let doc = parse_document(&s);
        assert_eq!(count(&doc, "div"), 200);
        assert_eq!(count(&doc, "a"), 1);
        assert_eq!(count(&doc, "p"), 5000);
    }

    #[test]
    fn attribute_flood_is_cut_before_the_tag() {
        let mut s = String::from("<p>before <a href=/ok>ok</a></p><img ");
        for i in 0..20_000 {
            s.push_str(&format!("a{i}=\"1 > 2\" "));
        }
        s.push_str("src=/flood.png><a href=/after>after</a>");
        let cut = attr_safe_len(&s);
        assert_eq!(&s[cut..cut + 5], "<img ");
        let doc = parse_document(&s);
        assert_eq!(count(&doc, "a"), 1);
        assert_eq!(count(&doc, "img"), 0);
    }

    #[test]
    fn attribute_scan_ignores_scripts_comments_and_quotes() {
        let words = "w ".repeat(MAX_ATTRS * 2);
        let s = format!(
            "<script>if (a<b) {{ {words} }}</script><!-- <x {words} --><div title='<y {words}'>ok</div><p {}>",
            "z ".repeat(MAX_ATTRS)
        );
        assert_eq!(attr_safe_len(&s), s.len());
    }

    #[test]
    fn multibyte_text_across_chunks() {
        let s = format!("<p>{}</p>", "é".repeat(CHUNK_BYTES));
        let doc = parse_document(&s);
        let text: String = doc.root_element().text().collect();
        assert_eq!(text.chars().count(), CHUNK_BYTES);
        assert!(!text.contains('\u{FFFD}'));
    }
}
