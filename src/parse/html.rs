//! HTML to [`ParsedPage`]: one walk over the html5ever tree collects links (with hop type,
//! Heritrix-style context and anchor text), visible text blocks, title, language and robots
//! directives.

use ego_tree::iter::Edge;
use ego_tree::NodeRef;
use html5ever::ns;
use scraper::node::Element;
use scraper::{ElementRef, Html, Node};
use url::Url;

use super::elements::{attr, is_block, is_boilerplate, is_content_root, is_hidden, Attrs};
use super::links::{self, LinkSink};
use super::text::{Blocks, Norm, MAX_ANCHOR_BYTES};
use super::{charset, guard, ParseLimits};
use crate::model::{Hop, ParsedPage};
use crate::uri::resolve_quiet;

/// Parses an HTML document into a [`ParsedPage`].
///
/// `base` is the document's URL; a `<base href>` overrides it. The body is decoded with
/// [`charset::decode`] and parsed up to `limits.max_html_bytes` (see the `guard` module for the
/// other bounds on hostile input); at most `limits.max_links` links are kept. Links are kept in
/// document order, duplicates included; `javascript:`, `mailto:`, `data:`, `tel:`, unparseable
/// and over-long URLs are dropped. Never panics, whatever the bytes.
pub fn html(
    body: &[u8],
    content_type: Option<&str>,
    content_language: Option<&str>,
    base: &Url,
    limits: &ParseLimits,
) -> ParsedPage {
    let doc = HtmlDoc::parse(body, content_type, limits);
    html_page(&doc, content_language, base, limits)
}

/// An HTML page decoded and parsed once: the tree that link extraction and text blocks
/// ([`html_page`]) and the application-aware helper share, with the text it was parsed from.
pub struct HtmlDoc {
    /// The decoded text, up to `limits.max_html_bytes` of the body.
    pub text: String,
    /// The charset the body was decoded with.
    pub charset: &'static str,
    /// The guarded html5ever tree (see the `guard` module).
    pub tree: Html,
}

impl HtmlDoc {
    /// Decodes (see [`charset::decode`]) and parses up to `limits.max_html_bytes` of a body.
    pub fn parse(body: &[u8], content_type: Option<&str>, limits: &ParseLimits) -> HtmlDoc {
        let (text, charset) = decode_bounded(body, content_type, limits);
        let tree = guard::parse_document(&text);
        HtmlDoc {
            text,
            charset,
            tree,
        }
    }
}

/// The text of up to `limits.max_html_bytes` of an HTML body, decoded (see
/// [`charset::decode`]), and the charset used: what the tree and the token stream both read.
pub(super) fn decode_bounded(
    body: &[u8],
    content_type: Option<&str>,
    limits: &ParseLimits,
) -> (String, &'static str) {
    charset::decode(
        &body[..body.len().min(limits.max_html_bytes)],
        content_type,
        true,
    )
}

/// The [`ParsedPage`] of a parsed document; `content_language` is the fallback language.
pub fn html_page(
    doc: &HtmlDoc,
    content_language: Option<&str>,
    base: &Url,
    limits: &ParseLimits,
) -> ParsedPage {
    let page = extract(&doc.tree, base, limits);
    with_charset_and_language(page, doc.charset, content_language)
}

/// A page with the charset it was decoded with, and `Content-Language` as its language when it
/// declares none itself.
pub(super) fn with_charset_and_language(
    mut page: ParsedPage,
    charset: &str,
    content_language: Option<&str>,
) -> ParsedPage {
    page.charset = charset.to_owned();
    if page.declared_lang.is_none() {
        page.declared_lang = content_language
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned);
    }
    page
}

/// The context of a discovery link (`<link rel=shortlink|EditURI|alternate type=feed...>`; see
/// [`LinkRel::Discovery`]): the crawl recognises these links by it.
pub const DISCOVERY_CONTEXT: &str = "link[discovery]/@href";

/// Everything [`html`] learns from a parsed tree, except the charset and the language fallback.
pub(super) fn extract(doc: &Html, base: &Url, limits: &ParseLimits) -> ParsedPage {
    let mut walker = Walker::new(doc, base, limits);
    walker.walk(doc);
    walker.finish()
}

/// An `<a>`/`<area>` whose link was kept and whose text is being collected.
struct OpenAnchor {
    node: ego_tree::NodeId,
    link: usize,
    text: Norm,
    /// Whether its text has reached a block yet (that block is then the link's block).
    landed: bool,
}

struct Walker<'a> {
    limits: &'a ParseLimits,
    base: Url,
    /// Whether a `<base href>` has been seen; only the first one counts.
    base_fixed: bool,
    page: ParsedPage,
    /// For each link, the text segment it belongs to (see [`Blocks`]).
    link_segment: Vec<u32>,
    blocks: Blocks,
    anchors: Vec<OpenAnchor>,
    /// How many enclosing elements hide their text.
    hidden: u32,
    /// How many enclosing `article`/`main` elements (their header and footer are content).
    content: u32,
    title_seen: bool,
}

impl<'a> Walker<'a> {
    fn new(doc: &Html, base: &Url, limits: &'a ParseLimits) -> Walker<'a> {
        let mut walker = Walker {
            limits,
            base: base.clone(),
            base_fixed: false,
            page: ParsedPage::default(),
            link_segment: Vec::new(),
            blocks: Blocks::default(),
            anchors: Vec::new(),
            hidden: 0,
            content: 0,
            title_seen: false,
        };
        // A <base> in <head> applies to links before it too, so find it before walking.
        // (One in <body>, which is invalid but seen, applies from where it stands.)
        if let Some(href) = head_base(doc) {
            walker.set_base(href);
        }
        walker
    }

    fn set_base(&mut self, href: &str) {
        self.base_fixed = true;
        if let Ok(url) = resolve_quiet(href, &self.base, self.limits.max_url_len) {
            self.base = url;
        }
    }

    fn walk(&mut self, doc: &Html) {
        for edge in doc.tree.root().traverse() {
            match edge {
                Edge::Open(node) => match node.value() {
                    Node::Element(el) => self.open(node, el),
                    Node::Text(t) => self.text(&t.text),
                    _ => {}
                },
                Edge::Close(node) => {
                    if let Node::Element(el) = node.value() {
                        self.close(node, el);
                    }
                }
            }
        }
    }

    fn finish(mut self) -> ParsedPage {
        self.blocks.close();
        for (link, &segment) in self.page.links.iter_mut().zip(&self.link_segment) {
            link.block = self.blocks.block_of(segment);
        }
        (self.page.blocks, self.page.boilerplate) = self.blocks.into_blocks();
        self.page
    }

    /// Adds a link if there is room and the URL is acceptable; returns its index.
    fn add(&mut self, raw: &str, hop: Hop, context: &'static str) -> Option<usize> {
        if self.page.links.len() >= self.limits.max_links {
            return None;
        }
        let link = links::resolve(raw, &self.base, self.limits.max_url_len, hop, context)?;
        self.page.links.push(link);
        self.link_segment.push(self.blocks.segment());
        Some(self.page.links.len() - 1)
    }

    /// A block edge: closes the text segment, and separates words in open anchor texts.
    fn boundary(&mut self) {
        self.blocks.close();
        for a in &mut self.anchors {
            a.text.boundary();
        }
    }

    fn text(&mut self, text: &str) {
        if self.hidden > 0 || !self.limits.text {
            return;
        }
        let visible = self.blocks.push(text);
        if self.anchors.is_empty() {
            return;
        }
        let segment = visible.then(|| self.blocks.segment());
        for a in &mut self.anchors {
            a.text.push(text, MAX_ANCHOR_BYTES);
            if let Some(segment) = segment.filter(|_| !a.landed) {
                a.landed = true;
                self.link_segment[a.link] = segment;
            }
        }
    }

    fn open(&mut self, node: NodeRef<'_, Node>, el: &Element) {
        let name = el.name();
        let is_html = el.name.ns == ns!(html);
        if is_html && is_block(name) {
            self.boundary();
        }
        if is_hidden(name) {
            self.hidden += 1;
        }
        if !is_html {
            return;
        }
        let a = Attrs::of(el);
        if is_boilerplate(name, a.role, self.content > 0) {
            self.boundary();
            self.blocks.furniture(true);
        }
        if is_content_root(name) {
            self.content += 1;
        }
        match name {
            "a" => self.open_anchor(node, a.href, "a/@href"),
            "area" => {
                self.open_anchor(node, a.href, "area/@href");
                self.alt_text(a.alt);
            }
            "img" => self.alt_text(a.alt),
            "meta" => {
                let (nofollow, noindex) = links::meta(self, &a);
                self.page.nofollow |= nofollow;
                self.page.noindex |= noindex;
            }
            "base" if !self.base_fixed => {
                if let Some(href) = a.href {
                    self.set_base(href);
                }
            }
            "title" if !self.title_seen => {
                self.title_seen = true;
                let mut title = Norm::default();
                for child in node.children() {
                    if let Node::Text(t) = child.value() {
                        title.push(&t.text, MAX_ANCHOR_BYTES);
                    }
                }
                let title = title.into_string();
                self.page.title = (!title.is_empty()).then_some(title);
            }
            "style" => {
                for child in node.children() {
                    if let Node::Text(t) = child.value() {
                        links::css_links(self, &t.text, "style/url()", "style/@import");
                    }
                }
            }
            "html" => {
                self.page.declared_lang = a
                    .lang
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned);
            }
            "br" => {
                self.blocks.boundary();
                for anchor in &mut self.anchors {
                    anchor.text.boundary();
                }
            }
            _ => {}
        }
        links::element_links(self, name, &a);
    }

    fn close(&mut self, node: NodeRef<'_, Node>, el: &Element) {
        let name = el.name();
        let is_html = el.name.ns == ns!(html);
        if is_html && (name == "a" || name == "area") {
            self.close_anchor(node, el);
        }
        if is_html && is_block(name) {
            self.boundary();
        }
        if is_hidden(name) {
            self.hidden = self.hidden.saturating_sub(1);
        }
        if is_html {
            if is_content_root(name) {
                self.content = self.content.saturating_sub(1);
            }
            if is_boilerplate(name, attr(el, "role"), self.content > 0) {
                self.boundary();
                self.blocks.furniture(false);
            }
        }
    }

    fn open_anchor(&mut self, node: NodeRef<'_, Node>, href: Option<&str>, context: &'static str) {
        let Some(href) = href else { return };
        if let Some(link) = self.add(href, Hop::Link, context) {
            self.anchors.push(OpenAnchor {
                node: node.id(),
                link,
                text: Norm::default(),
                landed: false,
            });
        }
    }

    fn close_anchor(&mut self, node: NodeRef<'_, Node>, el: &Element) {
        if self.anchors.last().is_none_or(|a| a.node != node.id()) {
            return;
        }
        let Some(anchor) = self.anchors.pop() else {
            return;
        };
        let mut text = anchor.text;
        if let Some(title) = attr(el, "title") {
            let mut t = Norm::default();
            t.push(title, MAX_ANCHOR_BYTES);
            if !t.as_str().is_empty() && t.as_str() != text.as_str() {
                text.boundary();
                text.push(t.as_str(), MAX_ANCHOR_BYTES);
            }
        }
        self.page.links[anchor.link].text = text.into_string();
    }

    /// An image's alt text counts as anchor text of the links around it (not as visible text).
    fn alt_text(&mut self, alt: Option<&str>) {
        let Some(alt) = alt.filter(|_| self.limits.text) else {
            return;
        };
        for a in &mut self.anchors {
            a.text.boundary();
            a.text.push(alt, MAX_ANCHOR_BYTES);
            a.text.boundary();
        }
    }
}

impl LinkSink for Walker<'_> {
    fn link(&mut self, raw: &str, hop: Hop, context: &'static str) -> bool {
        self.add(raw, hop, context);
        self.page.links.len() < self.limits.max_links
    }
}

/// The `href` of the first `<base href>` among the children of `<head>`.
fn head_base(doc: &Html) -> Option<&str> {
    // Not `Html::root_element`, which panics on a tree without an element.
    let html = child_named(doc.tree.root(), "html")?;
    let head = child_named(html, "head")?;
    head.children()
        .filter_map(ElementRef::wrap)
        .filter(|e| e.value().name() == "base")
        .find_map(|base| attr(base.value(), "href"))
}

fn child_named<'a>(node: NodeRef<'a, Node>, name: &str) -> Option<NodeRef<'a, Node>> {
    node.children()
        .find(|c| c.value().as_element().is_some_and(|e| e.name() == name))
}
