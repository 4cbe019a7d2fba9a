//! The parse stage: turns fetched bytes into a [`ParsedPage`](crate::model::ParsedPage)
//! (HTML), a list of [`Link`](crate::model::Link)s (CSS), or a [`Sitemap`].
//!
//! Everything here is pure (bytes in, values out) and hardened for hostile input: no panics,
//! bounded work per document (see [`ParseLimits`]).
//!
//! - `charset`: bytes to text (header, BOM, `<meta>` prescan, detection);
//! - `guard`: the limits on html5ever's work (size, nesting depth, attributes per tag);
//! - `html`: the single tree walk that collects links, text blocks and metadata;
//! - `elements`: what elements mean to that walk (block edges, hidden text, attributes read);
//! - `attrs`: parsers for attribute micro-syntaxes (`srcset`, meta refresh, `rel`);
//! - `text`: whitespace normalisation and the text-block builder;
//! - `css`: `url()` and `@import` in stylesheets;
//! - `sitemap`: sitemaps.org XML (and plain-text) sitemaps.

mod attrs;
mod charset;
mod css;
mod elements;
mod guard;
mod html;
mod links;
mod sitemap;
mod stream;
mod text;

#[cfg(test)]
mod html_tests;

pub use charset::decode;
pub use css::css;
pub(crate) use elements::is_block;
/// The guarded HTML parse (scripting off, capped size, depth and attributes), shared with the
/// application-aware helper so both see the same repaired tree.
pub(crate) use guard::parse_document;
pub use html::{html, html_page, HtmlDoc, DISCOVERY_CONTEXT};
pub use sitemap::{sitemap, Sitemap};
pub use stream::html_links;

/// Caps on the work spent on one document, so a hostile or broken page cannot stall a worker.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseLimits {
    /// Bytes of an HTML body that are parsed; the rest is ignored. html5ever's tree builder is
    /// quadratic on some hostile shapes, so this bounds the worst case (nesting depth and
    /// attributes per tag are capped as well, see `guard`).
    pub max_html_bytes: usize,
    /// Links kept per document (HTML, CSS) and entries kept per sitemap; the rest are dropped.
    pub max_links: usize,
    /// Longest URL accepted, in bytes; longer ones are dropped as likely crawler traps.
    pub max_url_len: usize,
    /// Collect the visible text blocks and anchor texts. Only the analysis and the index read
    /// them, and gathering them is a tenth of an archive-only crawl's CPU; off, pages keep
    /// their links (without text or block), title, language and robots directives.
    pub text: bool,
}

/// Bytes of an HTML body parsed, in a crawl and by default: far above the usual page, which is
/// well under 1 MiB.
pub const MAX_HTML_BYTES: usize = 5 << 20;

impl Default for ParseLimits {
    /// [`MAX_HTML_BYTES`] of HTML, 10,000 links and 2,048-byte URLs (the longest URL that old
    /// browsers and many servers accept); text collected.
    fn default() -> Self {
        ParseLimits {
            max_html_bytes: MAX_HTML_BYTES,
            max_links: 10_000,
            max_url_len: 2048,
            text: true,
        }
    }
}

/// Why a document could not be parsed at all. Each variant names the document's URL.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The sitemap is not well-formed XML (and no entry came before the damage).
    #[error("sitemap {url}: XML error at byte {position}: {source}")]
    Xml {
        /// The sitemap's URL.
        url: String,
        /// Byte offset of the error in the (decompressed) document.
        position: u64,
        /// What the XML reader said.
        #[source]
        source: quick_xml::Error,
    },
    /// The sitemap carries a DOCTYPE. Sitemaps never need one, and a DTD is how entity-expansion
    /// attacks ("billion laughs") are delivered, so such documents are refused outright.
    #[error("sitemap {url}: DOCTYPE declarations are refused")]
    Doctype {
        /// The sitemap's URL.
        url: String,
    },
    /// The root element is neither `urlset` nor `sitemapindex`.
    #[error("sitemap {url}: root element <{root}> is neither <urlset> nor <sitemapindex>")]
    NotSitemap {
        /// The sitemap's URL.
        url: String,
        /// The root element's name as found.
        root: String,
    },
}
