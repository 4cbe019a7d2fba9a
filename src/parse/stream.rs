//! Links only, from html5ever's tokenizer without a tree: for crawls that read no text (no
//! analysis, index or helper), where building the tree cost as much as tokenizing.
//!
//! It finds what the tree walk of `html.rs` finds with text off (the same links in the same
//! order, with the same contexts and anchor titles; the title, the language, the robots
//! directives), using the same element rules (`links.rs`). What a tree would decide, the stream
//! decides from the tags themselves:
//! - the tokenizer is switched to raw text after `<title>`, `<textarea>`, `<style>`, `<script>`,
//!   `<xmp>`, `<iframe>`, `<noembed>`, `<noframes>` and `<plaintext>`, as the tree builder does;
//! - SVG and MathML content (between `<svg>`/`<math>` and its end tag, outside their HTML
//!   integration points, until an HTML tag breaks out) is not HTML, and names no links, as in
//!   the tree walk;
//! - a `<base href>` met before the body (the head) applies to the links before it too, so
//!   links found in the head wait until the head ends; a later one applies from where it stands;
//! - an `<a>` opened while one is open closes it first, as the tree builder's adoption agency
//!   does; `<image>` is `<img>`; table parts outside a table and frames outside a frameset are
//!   dropped.
//!
//! Unlike the tree, a stream has no nesting to bound, so only the attribute limit of `guard.rs`
//! applies.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::LocalName;
use url::Url;

use super::elements::Attrs;
use super::html::{decode_bounded, with_charset_and_language};
use super::links::{self, LinkSink};
use super::text::{Norm, MAX_ANCHOR_BYTES};
use super::{guard, ParseLimits};
use crate::model::{Hop, ParsedPage};
use crate::uri::resolve_quiet;

/// The links, title, language and robots directives of an HTML body, without its text: what
/// [`super::html`] gives with `limits.text` off, at a fraction of the cost.
pub fn html_links(
    body: &[u8],
    content_type: Option<&str>,
    content_language: Option<&str>,
    base: &Url,
    limits: &ParseLimits,
) -> ParsedPage {
    let (text, charset) = decode_bounded(body, content_type, limits);
    let text = &text[..guard::attr_safe_len(&text)];
    let walk = RefCell::new(Walk::new(base, limits));
    let tokenizer = Tokenizer::new(Sink(&walk), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(text));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    drop(tokenizer);
    with_charset_and_language(walk.into_inner().finish(), charset, content_language)
}

struct Sink<'w, 'a>(&'w RefCell<Walk<'a>>);

impl TokenSink for Sink<'_, '_> {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        self.0.borrow_mut().token(token)
    }
}

/// The element whose raw text the tokenizer is in.
enum Raw {
    Title(Norm),
    Style(String),
    Skip,
}

struct Walk<'a> {
    limits: &'a ParseLimits,
    base: Url,
    base_fixed: bool,
    /// Before the body: links wait here (raw, unresolved) for a `<base>` still to come.
    head: Option<Vec<(String, Hop, &'static str)>>,
    page: ParsedPage,
    /// Open `<a>`s: their link and `title` attribute.
    anchors: Vec<(usize, Option<String>)>,
    /// The open SVG and MathML elements, outermost first.
    foreign: Vec<LocalName>,
    raw: Option<Raw>,
    title_seen: bool,
    /// Open `<table>`s, and whether a `<frameset>` was seen.
    tables: u32,
    frameset: bool,
}

/// Elements the tree builder keeps in the head; any other start tag begins the body.
fn in_head(name: &str) -> bool {
    matches!(
        name,
        "html"
            | "head"
            | "base"
            | "basefont"
            | "bgsound"
            | "link"
            | "meta"
            | "title"
            | "style"
            | "script"
            | "noscript"
            | "noframes"
            | "template"
    )
}

impl<'a> Walk<'a> {
    fn new(base: &Url, limits: &'a ParseLimits) -> Walk<'a> {
        Walk {
            limits,
            base: base.clone(),
            base_fixed: false,
            head: Some(Vec::new()),
            page: ParsedPage::default(),
            anchors: Vec::new(),
            foreign: Vec::new(),
            raw: None,
            title_seen: false,
            tables: 0,
            frameset: false,
        }
    }

    /// Whether tags are SVG or MathML here: inside such an element that is not an integration
    /// point (`<foreignObject>`, `<desc>`, `<title>`; `<mi>`, `<mo>`, `<mn>`, `<ms>`,
    /// `<mtext>`), whose children are HTML again.
    fn in_foreign(&self) -> bool {
        self.foreign.last().is_some_and(|top| {
            !matches!(
                &**top,
                "foreignobject" | "desc" | "title" | "mi" | "mo" | "mn" | "ms" | "mtext"
            )
        })
    }

    fn token(&mut self, token: Token) -> TokenSinkResult<()> {
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => return self.start(&tag),
                TagKind::EndTag => self.end(&tag),
            },
            Token::CharacterTokens(t) => match &mut self.raw {
                Some(Raw::Title(norm)) => norm.push(&t, MAX_ANCHOR_BYTES),
                Some(Raw::Style(css)) => css.push_str(&t),
                Some(Raw::Skip) => {}
                None if t.trim().is_empty() => {}
                None => self.body_starts(),
            },
            Token::EOFToken => self.end_raw(),
            _ => {}
        }
        TokenSinkResult::Continue
    }

    fn start(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        if self.in_foreign() && breaks_out_of_foreign(name) {
            self.foreign.clear();
        }
        if self.in_foreign() || name == "svg" || name == "math" {
            if !tag.self_closing {
                self.foreign.push(tag.name.clone());
            }
            return TokenSinkResult::Continue;
        }
        let name = if name == "image" { "img" } else { name };
        // The tree builder drops table parts outside a table, and frames outside a frameset.
        match name {
            "table" => self.tables += 1,
            "frameset" => self.frameset = true,
            "caption" | "col" | "colgroup" | "tbody" | "td" | "tfoot" | "th" | "thead" | "tr"
                if self.tables == 0 =>
            {
                return TokenSinkResult::Continue
            }
            "frame" if !self.frameset => return TokenSinkResult::Continue,
            _ => {}
        }
        if !in_head(name) {
            self.body_starts();
        }
        let a = Attrs::from_pairs(tag.attrs.iter().map(|at| (&*at.name.local, &*at.value)));
        match name {
            "a" => {
                self.close_anchors();
                if let Some(i) = a.href.and_then(|h| self.add(h, Hop::Link, "a/@href")) {
                    self.anchors.push((i, a.title.map(str::to_owned)));
                }
            }
            // A void element: its anchor closes at once; an `<a>` around it stays open.
            "area" => {
                if let Some(i) = a.href.and_then(|h| self.add(h, Hop::Link, "area/@href")) {
                    self.page.links[i].text = anchor_text(a.title);
                }
            }
            "meta" => {
                let (nofollow, noindex) = links::meta(self, &a);
                self.page.nofollow |= nofollow;
                self.page.noindex |= noindex;
            }
            "base" if !self.base_fixed => {
                if let Some(href) = a.href {
                    self.base_fixed = true;
                    if let Ok(url) = resolve_quiet(href, &self.base, self.limits.max_url_len) {
                        self.base = url;
                    }
                }
            }
            "html" if self.page.declared_lang.is_none() => {
                self.page.declared_lang = a
                    .lang
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned);
            }
            _ => {}
        }
        links::element_links(self, name, &a);
        let (kind, text) = match name {
            "title" if !self.title_seen => {
                self.title_seen = true;
                (RawKind::Rcdata, Raw::Title(Norm::default()))
            }
            "title" | "textarea" => (RawKind::Rcdata, Raw::Skip),
            "style" => (RawKind::Rawtext, Raw::Style(String::new())),
            "xmp" | "iframe" | "noembed" | "noframes" => (RawKind::Rawtext, Raw::Skip),
            "script" => (RawKind::ScriptData, Raw::Skip),
            "plaintext" => {
                self.raw = Some(Raw::Skip);
                return TokenSinkResult::Plaintext;
            }
            _ => return TokenSinkResult::Continue,
        };
        self.raw = Some(text);
        TokenSinkResult::RawData(kind)
    }

    fn end(&mut self, tag: &Tag) {
        if let Some(at) = self.foreign.iter().rposition(|n| *n == tag.name) {
            self.foreign.truncate(at);
            return;
        }
        if self.in_foreign() {
            return;
        }
        let name: &str = &tag.name;
        // The tokenizer leaves raw text only at the element's own end tag.
        if self.raw.is_some() {
            self.end_raw();
            return;
        }
        match name {
            "a" => self.close_anchors(),
            "table" => self.tables = self.tables.saturating_sub(1),
            _ => {}
        }
    }

    fn end_raw(&mut self) {
        match self.raw.take() {
            Some(Raw::Title(norm)) => {
                let title = norm.into_string();
                self.page.title = (!title.is_empty()).then_some(title);
            }
            Some(Raw::Style(css)) => links::css_links(self, &css, "style/url()", "style/@import"),
            _ => {}
        }
    }

    /// The head ends: its links are resolved against its `<base>`, if it had one.
    fn body_starts(&mut self) {
        for (raw, hop, context) in self.head.take().unwrap_or_default() {
            self.add(&raw, hop, context);
        }
    }

    /// Adds a link if there is room and the URL is acceptable; returns its index.
    fn add(&mut self, raw: &str, hop: Hop, context: &'static str) -> Option<usize> {
        let waiting = self.head.as_ref().map_or(0, Vec::len);
        if self.page.links.len() + waiting >= self.limits.max_links || raw.trim().is_empty() {
            return None;
        }
        if let Some(head) = &mut self.head {
            head.push((raw.to_owned(), hop, context));
            return None;
        }
        let link = links::resolve(raw, &self.base, self.limits.max_url_len, hop, context)?;
        self.page.links.push(link);
        Some(self.page.links.len() - 1)
    }

    /// Closes the open anchors: with no text read, an anchor's text is its `title`.
    fn close_anchors(&mut self) {
        for (i, title) in std::mem::take(&mut self.anchors) {
            self.page.links[i].text = anchor_text(title.as_deref());
        }
    }

    fn finish(mut self) -> ParsedPage {
        self.end_raw();
        self.body_starts();
        self.close_anchors();
        self.page
    }
}

/// The text of an anchor when no text is read: its `title`, normalised.
fn anchor_text(title: Option<&str>) -> String {
    let mut t = Norm::default();
    t.push(title.unwrap_or_default(), MAX_ANCHOR_BYTES);
    t.into_string()
}

/// HTML start tags that end SVG or MathML content (the tree builder's breakout list).
fn breaks_out_of_foreign(name: &str) -> bool {
    matches!(
        name,
        "b" | "big"
            | "blockquote"
            | "body"
            | "br"
            | "center"
            | "code"
            | "dd"
            | "div"
            | "dl"
            | "dt"
            | "em"
            | "embed"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "hr"
            | "i"
            | "img"
            | "li"
            | "listing"
            | "menu"
            | "meta"
            | "nobr"
            | "ol"
            | "p"
            | "pre"
            | "ruby"
            | "s"
            | "small"
            | "span"
            | "strong"
            | "strike"
            | "sub"
            | "sup"
            | "table"
            | "tt"
            | "u"
            | "ul"
            | "var"
    )
}

impl LinkSink for Walk<'_> {
    fn link(&mut self, raw: &str, hop: Hop, context: &'static str) -> bool {
        self.add(raw, hop, context);
        self.page.links.len() + self.head.as_ref().map_or(0, Vec::len) < self.limits.max_links
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
