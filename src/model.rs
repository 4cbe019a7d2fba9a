//! The shared vocabulary of the crawl: the typed values that flow between stages. No I/O here.
//!
//! The main flow: a [`CrawlUri`] leaves the frontier, the fetch stage turns it into a `Fetched`
//! exchange, the parse stage into a [`ParsedPage`] with [`Link`]s, and the links go back through
//! scope into the frontier as new [`CrawlUri`]s. Two loops run against it: the helper remembers
//! what it learned per host, and the analysis's topic and weights change as pages are learned.

use serde::{Deserialize, Serialize};
use std::net::IpAddr;

/// The media type of the helper's reading of a page (`aah::AppMatch` as JSON) in a WARC
/// metadata record: written by the crawl, read back by the index's rebuild and the API.
pub const AAH_MEDIA_TYPE: &str = "application/vnd.magpie.aah+json";

/// How a URL was reached from its parent, as in Heritrix hop paths.
///
/// The hop path of a URL (for example `LLE`) is the chain of these codes from the seed; it
/// decides scope (embeds may leave scope for one hop) and is written to WARC metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Hop {
    /// A navigation link (`a`, `area`, `frame`, ...): code `L`.
    Link,
    /// A page requisite (image, stylesheet, script, font, media): code `E`.
    Embed,
    /// A redirect (`Location`, `meta refresh`): code `R`.
    Redirect,
    /// A prerequisite fetched before others on the host (robots.txt): code `P`.
    Prerequisite,
    /// A sitemap, or a URL listed in one: code `M`.
    Sitemap,
}

impl Hop {
    /// The one-letter code used in hop paths and WARC metadata.
    pub fn code(self) -> char {
        match self {
            Hop::Link => 'L',
            Hop::Embed => 'E',
            Hop::Redirect => 'R',
            Hop::Prerequisite => 'P',
            Hop::Sitemap => 'M',
        }
    }

    /// Parses a hop code; `None` for an unknown letter.
    pub fn from_code(c: char) -> Option<Hop> {
        Some(match c {
            'L' => Hop::Link,
            'E' => Hop::Embed,
            'R' => Hop::Redirect,
            'P' => Hop::Prerequisite,
            'M' => Hop::Sitemap,
            _ => return None,
        })
    }
}

/// A URL scheduled for crawling, with what the crawler knows about how it was found.
///
/// This is what the frontier stores per queued URL; keep it small.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrawlUri {
    /// The URL exactly as found (resolved against its base), which is what gets fetched and
    /// recorded. The canonical form is only used for the seen-test.
    pub url: String,
    /// Hop codes from the seed to here; empty for a seed.
    pub hops: String,
    /// The page this URL was found on; `None` for seeds and intake without `via`.
    pub via: Option<String>,
    /// Priority in [0, 1]; higher is fetched sooner.
    pub priority: f32,
    /// Who put the URL here: `seed`, `crawl` (own link extraction), or an external scorer name.
    pub source: String,
    /// How many times this URL was discovered or scored while queued.
    pub discovered: u32,
    /// Fetch attempts that failed with a retryable error so far.
    pub retries: u8,
    /// Scores received (from analysis or external scorers); 0 while the priority is the
    /// depth-based default.
    #[serde(default)]
    pub scores: u32,
    /// Sum of the scores received, for the AVG and SUM update functions.
    #[serde(default)]
    pub score_sum: f32,
    /// What the page this URL was found on passes on as the `parent` score input of its own
    /// links (SharkSearch inheritance); 0 for seeds and without analysis.
    #[serde(default)]
    pub inherited: f32,
    /// The analysis score components of the link that queued this URL (the last one to score
    /// it), so the operator sees why it was fetched when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<ScoreParts>,
}

/// The components of an outlink's analysis score, each in [0, 1], and their weighted total.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScoreParts {
    /// Cosine of the whole linking page (title and text) with the topic.
    pub document: f32,
    /// Cosine of the link's text block (or a window of it) with the topic.
    pub paragraph: f32,
    /// Cosine of the anchor text (with `title` and `alt`) with the topic.
    pub anchor: f32,
    /// Cosine of the words of the link's host and path with the topic.
    pub url: f32,
    /// The score inherited from the page's relevant ancestors (SharkSearch).
    pub parent: f32,
    /// Weighted average of the components (with the application-aware boost, if any).
    pub total: f32,
}

impl ScoreParts {
    /// The six values in field order, for compact encodings.
    pub fn to_array(self) -> [f32; 6] {
        [
            self.document,
            self.paragraph,
            self.anchor,
            self.url,
            self.parent,
            self.total,
        ]
    }

    /// The inverse of [`ScoreParts::to_array`].
    pub fn from_array(a: [f32; 6]) -> ScoreParts {
        ScoreParts {
            document: a[0],
            paragraph: a[1],
            anchor: a[2],
            url: a[3],
            parent: a[4],
            total: a[5],
        }
    }
}

impl CrawlUri {
    /// A seed: depth zero, top priority.
    pub fn seed(url: impl Into<String>) -> CrawlUri {
        CrawlUri {
            url: url.into(),
            hops: String::new(),
            via: None,
            priority: 1.0,
            source: "seed".into(),
            discovered: 1,
            retries: 0,
            scores: 0,
            score_sum: 0.0,
            inherited: 0.0,
            parts: None,
        }
    }

    /// Navigation depth: the number of `L` hops from the seed (embeds and redirects are free).
    pub fn depth(&self) -> u32 {
        self.hops.chars().filter(|&c| c == 'L').count() as u32
    }

    /// The last hop, if any.
    pub fn last_hop(&self) -> Option<Hop> {
        self.hops.chars().last().and_then(Hop::from_code)
    }
}

/// Why a response body was cut short; written as `WARC-Truncated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Truncation {
    /// The byte cap (`limits.max_bytes_per_page`) was reached: `length`.
    Length,
    /// The total timeout expired while the body was still arriving: `time`.
    Time,
    /// The server closed or reset the connection before the declared length: `disconnect`.
    Disconnect,
}

impl Truncation {
    /// The `WARC-Truncated` field value.
    pub fn as_warc(self) -> &'static str {
        match self {
            Truncation::Length => "length",
            Truncation::Time => "time",
            Truncation::Disconnect => "disconnect",
        }
    }
}

/// A link found in a fetched document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Absolute URL, resolved against the document base, fragment removed.
    pub url: String,
    /// Navigation, embed or redirect.
    pub hop: Hop,
    /// Where it was found, Heritrix style: `a/@href`, `img/@srcset`, `style/url()`, ...
    pub context: String,
    /// Anchor text (plus `title` and `alt` inside the link), whitespace-normalised.
    pub text: String,
    /// Index into [`ParsedPage::blocks`] of the block that contains the link, if any.
    pub block: Option<u32>,
}

/// What the parse stage learned from a document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ParsedPage {
    /// The `<title>`, whitespace-normalised.
    pub title: Option<String>,
    /// The character encoding the body was decoded with (WHATWG label, e.g. `windows-1252`).
    pub charset: String,
    /// `<html lang>` or `Content-Language`, as declared.
    pub declared_lang: Option<String>,
    /// Visible text blocks (paragraphs, list items, headings, table cells), in document order.
    pub blocks: Vec<String>,
    /// Indices (ascending) of the blocks that are page furniture rather than content: inside
    /// `nav`, `aside`, `menu`, an element with a landmark role of the same meaning, or a
    /// `header`/`footer` of the page (not of an `article` or `main`). The analysis leaves them
    /// out of the page's vector, so menus do not make every page of a site look alike.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boilerplate: Vec<u32>,
    /// Outlinks in document order, duplicates kept (each occurrence has its own context).
    pub links: Vec<Link>,
    /// `<meta name="robots" content="nofollow">`: links are recorded but not followed.
    pub nofollow: bool,
    /// `<meta name="robots" content="noindex">`.
    pub noindex: bool,
}

/// The immutable facts of one HTTP exchange as seen on the wire, before any interpretation.
///
/// Produced by the fetch stage; the response bytes live in the fetcher's spool and are
/// referenced here by the `response` field of [`crate::fetch::Fetched`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExchangeInfo {
    /// The URL requested (exactly as sent, absolute form).
    pub url: String,
    /// The address connected to; recorded as `WARC-IP-Address`.
    pub ip: IpAddr,
    /// When the request was sent (UTC, RFC 3339 with microseconds).
    pub started: chrono::DateTime<chrono::Utc>,
    /// Milliseconds from connect to the last byte read.
    pub duration_ms: u64,
    /// The HTTP status code.
    pub status: u16,
    /// Response headers in wire order, names as sent, values as bytes decoded lossily.
    pub headers: Vec<(String, String)>,
    /// Length of the status line and headers, including the blank line.
    pub header_len: u64,
    /// Set when the body was cut short.
    pub truncated: Option<Truncation>,
    /// `sha1:` + base32 of the whole response block (status line, headers, body as received).
    pub block_digest: String,
    /// `sha1:` + base32 of the entity body after removing chunked framing (not content coding).
    pub payload_digest: String,
}

impl ExchangeInfo {
    /// The first header value with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The media type of `Content-Type`, lowercased, without parameters.
    pub fn mime(&self) -> String {
        self.header("content-type")
            .and_then(|v| v.split(';').next())
            .map(|s| s.trim().to_ascii_lowercase())
            .unwrap_or_default()
    }
}
