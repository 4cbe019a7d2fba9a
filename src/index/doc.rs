//! The documents the index holds: one [`CaptureDoc`] per response or revisit record, one
//! [`ObjectDoc`] per web object (post, comment) extracted from a capture, and their conversion
//! to tantivy documents.

use super::schema::Fields;
use crate::archive::RecordLocation;
use crate::model::{ExchangeInfo, ParsedPage};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tantivy::TantivyDocument;

/// Extracted text kept per document; longer text is cut at a character boundary. A page with
/// more than this much visible text is rare, and the cap bounds the index size per capture.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// Whether a document stands for a full response or for a revisit (identical payload stored
/// earlier), or is an object extracted from a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaptureKind {
    /// A `response` record.
    Capture,
    /// A `revisit` record.
    Revisit,
    /// A web object extracted from a capture.
    Object,
}

impl CaptureKind {
    /// The value stored in the `kind` field.
    pub fn as_str(self) -> &'static str {
        match self {
            CaptureKind::Capture => "capture",
            CaptureKind::Revisit => "revisit",
            CaptureKind::Object => "object",
        }
    }

    /// Parses a stored `kind` value.
    pub fn parse(s: &str) -> Option<CaptureKind> {
        Some(match s {
            "capture" => CaptureKind::Capture,
            "revisit" => CaptureKind::Revisit,
            "object" => CaptureKind::Object,
            _ => return None,
        })
    }
}

/// Where records sit in the crawl's WARC files: what replay and export read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// File name (sealed form, no directory).
    pub file: String,
    /// Offset of the first gzip member.
    pub offset: u64,
    /// Total length of the member(s).
    pub length: u64,
}

impl From<&RecordLocation> for Location {
    fn from(l: &RecordLocation) -> Location {
        Location {
            file: l.file.clone(),
            offset: l.offset,
            length: l.length,
        }
    }
}

/// The original capture a revisit stands for, from its `WARC-Refers-To*` fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisitOf {
    /// `WARC-Refers-To`: the original's record ID.
    pub record_id: String,
    /// `WARC-Refers-To-Target-URI`.
    pub url: String,
    /// `WARC-Refers-To-Date`, as written.
    pub date: String,
}

/// One capture, as indexed.
///
/// Built on a worker thread with [`CaptureDoc::from_exchange`] (all text work happens there)
/// and [`CaptureDoc::add_reading`], then finished on the engine thread with
/// [`CaptureDoc::finish`] once the records are appended. A rebuild calls the same three.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaptureDoc {
    /// The URL as fetched.
    pub url: String,
    /// Host key (host plus non-default port).
    pub host: String,
    /// Registered domain.
    pub domain: String,
    /// When the request was sent (`WARC-Date`).
    pub time: DateTime<Utc>,
    /// HTTP status.
    pub status: u16,
    /// Media type, lowercased, without parameters.
    pub mime: String,
    /// Primary language subtag as declared (`en` for `en-US`).
    pub lang: Option<String>,
    /// Page title.
    pub title: Option<String>,
    /// Visible text blocks joined by newlines (at most [`MAX_TEXT_BYTES`]).
    pub text: String,
    /// Relevance to the crawl's topic, from analysis (not yet computed: `None`).
    pub relevance: Option<f32>,
    /// Page score, from analysis (not yet computed: `None`).
    pub score: Option<f32>,
    /// Detected web application, from the application-aware helper.
    pub app: Option<String>,
    /// Page level within the application (`list`, `post`, ...).
    pub level: Option<String>,
    /// `WARC-Payload-Digest`.
    pub digest: String,
    /// Capture or revisit.
    pub kind: CaptureKind,
    /// `WARC-Record-ID` of the response (or revisit) record.
    pub record_id: String,
    /// Hop path from the seed.
    pub hops: String,
    /// For a revisit, the original it refers to.
    pub revisit_of: Option<RevisitOf>,
    /// The response or revisit record.
    pub location: Location,
    /// The request and metadata records written right after it, when known.
    pub related: Option<Location>,
}

impl CaptureDoc {
    /// The document of an exchange, before its records are written. `page` is the parse of the
    /// body when one was made (2xx HTML); `record_id` is the response record's ID.
    pub fn from_exchange(
        info: &ExchangeInfo,
        page: Option<&ParsedPage>,
        record_id: &str,
        hops: &str,
    ) -> CaptureDoc {
        let (host, domain) = host_and_domain(&info.url);
        let (title, text, lang) = match page {
            Some(p) => (
                p.title.clone().filter(|t| !t.is_empty()),
                join_blocks(&p.blocks),
                p.declared_lang.as_deref().and_then(primary_language),
            ),
            None => (None, String::new(), None),
        };
        CaptureDoc {
            url: info.url.clone(),
            host,
            domain,
            time: info.started,
            status: info.status,
            mime: info.mime(),
            lang,
            title,
            text,
            relevance: None,
            score: None,
            app: None,
            level: None,
            digest: info.payload_digest.clone(),
            kind: CaptureKind::Capture,
            record_id: record_id.to_string(),
            hops: hops.to_string(),
            revisit_of: None,
            location: Location::default(),
            related: None,
        }
    }

    /// Adds the crawl's reading of the page: its relevance and language (detected, over the
    /// declared one) from the analysis, its application and page kind from the helper. The
    /// live crawl adds what it read; a rebuild what the capture's metadata records say it read.
    pub fn add_reading(
        &mut self,
        relevance: Option<f32>,
        lang: Option<String>,
        app: Option<String>,
        level: Option<String>,
    ) {
        self.relevance = relevance;
        if lang.is_some() {
            self.lang = lang;
        }
        self.app = app;
        self.level = level;
    }

    /// Finishes the document once its records are written, the one way the live crawl and a
    /// rebuild both do: where the response (or revisit) record landed (`location`) and the
    /// request and metadata records after it (`related`), the page's priority in the frontier,
    /// and, when a revisit was written instead of the response, the original it stands for.
    /// A revisit carries the exchange facts (status, type, digest, time) but no text: the text
    /// belongs to the original, which the index already holds, so a search finds each payload
    /// once.
    pub fn finish(
        mut self,
        location: Location,
        related: Option<Location>,
        priority: Option<f32>,
        revisit_of: Option<RevisitOf>,
    ) -> Self {
        self.location = location;
        self.related = related;
        self.score = priority;
        if let Some(original) = revisit_of {
            self.kind = CaptureKind::Revisit;
            self.revisit_of = Some(original);
            self.title = None;
            self.text.clear();
            self.lang = None;
        }
        self
    }

    /// The tantivy document.
    pub(crate) fn to_document(&self, f: &Fields) -> TantivyDocument {
        let mut d = TantivyDocument::new();
        d.add_text(f.kind, self.kind.as_str());
        d.add_text(f.url, &self.url);
        d.add_text(f.surt, surt_key(&self.url));
        d.add_text(f.host, &self.host);
        d.add_text(f.domain, &self.domain);
        d.add_date(f.time, to_tantivy_time(self.time));
        d.add_u64(f.status, u64::from(self.status));
        d.add_text(f.mime, &self.mime);
        add_opt_text(&mut d, f.lang, self.lang.as_deref());
        add_opt_text(&mut d, f.title, self.title.as_deref());
        if !self.text.is_empty() {
            d.add_text(f.text, &self.text);
        }
        add_opt_f32(&mut d, f.relevance, self.relevance);
        add_opt_f32(&mut d, f.score, self.score);
        add_opt_text(&mut d, f.app, self.app.as_deref());
        add_opt_text(&mut d, f.level, self.level.as_deref());
        d.add_text(f.digest, &self.digest);
        d.add_text(f.record_id, &self.record_id);
        d.add_text(f.hops, &self.hops);
        if let Some(r) = &self.revisit_of {
            d.add_text(f.refers_to, &r.record_id);
            d.add_text(f.refers_to_url, &r.url);
            d.add_text(f.refers_to_date, &r.date);
        }
        add_location(&mut d, f, &self.location, self.related.as_ref());
        d
    }
}

/// A web object (post, comment, ...) extracted from a capture by the application-aware helper.
/// It is searchable on its own and points back to its capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectDoc {
    /// The object's own URL (permalink) if it has one, else its page's URL.
    pub url: String,
    /// `post`, `comment`, `user`, ...
    pub object_type: String,
    /// Title or subject, if any.
    pub title: Option<String>,
    /// The object's text.
    pub text: String,
    /// Author as shown on the page.
    pub author: Option<String>,
    /// Publication time if known, else the capture's time.
    pub time: DateTime<Utc>,
    /// Primary language subtag.
    pub lang: Option<String>,
    /// The application it was extracted by.
    pub app: Option<String>,
    /// Relevance from analysis.
    pub relevance: Option<f32>,
    /// Score from analysis.
    pub score: Option<f32>,
    /// The record ID of the capture it comes from.
    pub parent_record_id: String,
    /// Where that capture's records are (export takes the whole capture).
    pub parent_location: Location,
    /// That capture's request and metadata records.
    pub parent_related: Option<Location>,
}

impl ObjectDoc {
    /// The document of a web object the application-aware helper extracted from `capture`
    /// (already located): `kind` is its type, `fields` its named texts. `title`/`subject`,
    /// `body`/`content`/`text`, `author` and `url`/`permalink` fill the matching fields; a
    /// `date` that parses (RFC 3339 or `YYYY-MM-DD`) is its time, else the capture's. Used by
    /// the live crawl and by rebuilds alike, so both index the same documents.
    pub fn from_fields<'a>(
        kind: &str,
        fields: impl IntoIterator<Item = (&'a str, &'a str)>,
        capture: &CaptureDoc,
    ) -> ObjectDoc {
        let mut doc = ObjectDoc {
            url: capture.url.clone(),
            object_type: kind.to_string(),
            title: None,
            text: String::new(),
            author: None,
            time: capture.time,
            lang: capture.lang.clone(),
            app: capture.app.clone(),
            relevance: capture.relevance,
            score: capture.score,
            parent_record_id: capture.record_id.clone(),
            parent_location: capture.location.clone(),
            parent_related: capture.related.clone(),
        };
        let mut rest = Vec::new();
        for (name, value) in fields {
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            match name {
                "title" | "subject" if doc.title.is_none() => doc.title = Some(value.into()),
                "body" | "content" | "text" if doc.text.is_empty() => doc.text = value.into(),
                "author" if doc.author.is_none() => doc.author = Some(value.into()),
                "url" | "permalink" => {
                    if let Ok(u) = url::Url::parse(&capture.url).and_then(|b| b.join(value)) {
                        doc.url = u.to_string();
                    }
                }
                "date" => {
                    if let Some(t) = parse_date(value) {
                        doc.time = t;
                    }
                }
                _ => rest.push(value.to_string()),
            }
        }
        if doc.text.is_empty() {
            doc.text = rest.join("\n");
        }
        doc.text = cap_text(std::mem::take(&mut doc.text));
        doc
    }

    pub(crate) fn to_document(&self, f: &Fields) -> TantivyDocument {
        let mut d = TantivyDocument::new();
        let (host, domain) = host_and_domain(&self.url);
        d.add_text(f.kind, CaptureKind::Object.as_str());
        d.add_text(f.url, &self.url);
        d.add_text(f.surt, surt_key(&self.url));
        d.add_text(f.host, &host);
        d.add_text(f.domain, &domain);
        d.add_date(f.time, to_tantivy_time(self.time));
        add_opt_text(&mut d, f.lang, self.lang.as_deref());
        add_opt_text(&mut d, f.title, self.title.as_deref());
        if !self.text.is_empty() {
            d.add_text(f.text, cap_text(self.text.clone()));
        }
        add_opt_f32(&mut d, f.relevance, self.relevance);
        add_opt_f32(&mut d, f.score, self.score);
        add_opt_text(&mut d, f.app, self.app.as_deref());
        d.add_text(f.object_type, &self.object_type);
        d.add_text(f.parent, &self.parent_record_id);
        add_opt_text(&mut d, f.author, self.author.as_deref());
        add_location(
            &mut d,
            f,
            &self.parent_location,
            self.parent_related.as_ref(),
        );
        d
    }
}

fn add_location(d: &mut TantivyDocument, f: &Fields, at: &Location, related: Option<&Location>) {
    d.add_text(f.warc_file, &at.file);
    d.add_u64(f.offset, at.offset);
    d.add_u64(f.length, at.length);
    if let Some(r) = related {
        d.add_text(f.related_file, &r.file);
        d.add_u64(f.related_offset, r.offset);
        d.add_u64(f.related_length, r.length);
    }
}

fn add_opt_text(d: &mut TantivyDocument, field: tantivy::schema::Field, v: Option<&str>) {
    if let Some(v) = v.filter(|v| !v.is_empty()) {
        d.add_text(field, v);
    }
}

fn add_opt_f32(d: &mut TantivyDocument, field: tantivy::schema::Field, v: Option<f32>) {
    if let Some(v) = v.filter(|v| v.is_finite()) {
        d.add_f64(field, f64::from(v));
    }
}

/// A date as pages show it, when it is RFC 3339 or starts with `YYYY-MM-DD`.
fn parse_date(s: &str) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    let day = chrono::NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d").ok()?;
    Some(day.and_hms_opt(0, 0, 0)?.and_utc())
}

/// A chrono time as a tantivy date (microseconds).
pub(crate) fn to_tantivy_time(t: DateTime<Utc>) -> tantivy::DateTime {
    tantivy::DateTime::from_timestamp_micros(t.timestamp_micros())
}

/// A tantivy date as chrono time.
pub(crate) fn from_tantivy_time(t: tantivy::DateTime) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(t.into_timestamp_micros()).unwrap_or_default()
}

/// Host key and registered domain of a URL; empty when the URL does not parse.
pub(crate) fn host_and_domain(url: &str) -> (String, String) {
    match url::Url::parse(url) {
        Ok(u) => (
            crate::uri::host_key(&u),
            crate::uri::registered_domain(u.host_str().unwrap_or_default()),
        ),
        Err(_) => (String::new(), String::new()),
    }
}

/// SURT key of a URL, or the URL itself when it does not parse.
pub(crate) fn surt_key(url: &str) -> String {
    url::Url::parse(url).map_or_else(|_| url.to_string(), |u| crate::uri::surt(&u))
}

/// `en-US` → `en`; `None` for an empty or non-alphabetic tag.
pub fn primary_language(tag: &str) -> Option<String> {
    let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    (!primary.is_empty() && primary.len() <= 8 && primary.bytes().all(|b| b.is_ascii_lowercase()))
        .then_some(primary)
}

/// Text blocks joined by newlines, cut at [`MAX_TEXT_BYTES`].
pub fn join_blocks(blocks: &[String]) -> String {
    let total: usize = blocks.iter().map(|b| b.len() + 1).sum();
    let mut text = String::with_capacity(total.min(MAX_TEXT_BYTES));
    for b in blocks {
        if text.len() + b.len() + 1 > MAX_TEXT_BYTES {
            if text.is_empty() {
                text = cap_text(b.clone());
            }
            break;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(b);
    }
    text
}

fn cap_text(mut s: String) -> String {
    if s.len() > MAX_TEXT_BYTES {
        let mut cut = MAX_TEXT_BYTES;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}
