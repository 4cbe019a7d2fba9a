//! The index schema: one flat schema for captures, revisits and extracted web objects, the
//! field handles, and the text analyzer shared by indexing, queries and snippets.
//!
//! Optional fields (language, relevance, score, application, page level, object fields) are
//! simply absent from a document that has no value; adding values later needs no schema change.
//! A field added in a later version does need a rebuild (`magpie index rebuild`), which
//! [`SCHEMA_VERSION`] makes explicit.

use super::words::WordTokenizer;
use tantivy::schema::{
    DateOptions, DateTimePrecision, Field, IndexRecordOption, NumericOptions, Schema,
    TextFieldIndexing, TextOptions, FAST, STORED, STRING,
};
use tantivy::tokenizer::TextAnalyzer;

/// Bumped whenever the schema changes; an index written with another version must be rebuilt.
pub const SCHEMA_VERSION: u32 = 1;

/// Name of the analyzer for `title` and `text`: words split on non-alphanumerics, lowercased,
/// accents folded to ASCII, words of 40 bytes or more dropped (`words.rs`, in one pass).
/// Language-neutral on purpose: a crawl mixes languages, and stemming one language would damage
/// the others.
pub const TEXT_ANALYZER: &str = "magpie_text";

/// Handles of every field of the schema.
#[derive(Debug, Clone)]
pub struct Fields {
    /// The schema itself.
    pub schema: Schema,
    /// `capture`, `revisit` or `object` (raw, fast).
    pub kind: Field,
    /// The URL exactly as fetched (raw).
    pub url: Field,
    /// SURT key of the URL, for lookups that match pywb's notion of "the same URL".
    pub surt: Field,
    /// Host key: host plus non-default port (raw, fast).
    pub host: Field,
    /// Registered domain (raw, fast).
    pub domain: Field,
    /// Fetch time, microsecond precision (fast, indexed at second precision).
    pub time: Field,
    /// HTTP status (u64, fast).
    pub status: Field,
    /// Media type, lowercased, no parameters (raw, fast).
    pub mime: Field,
    /// Primary language subtag (raw, fast).
    pub lang: Field,
    /// Page title (analyzed, positions).
    pub title: Field,
    /// Extracted body text (analyzed, positions, stored for snippets).
    pub text: Field,
    /// Relevance to the crawl's topic from analysis (f64, fast).
    pub relevance: Field,
    /// Page score from analysis (f64, fast).
    pub score: Field,
    /// Detected web application (raw, fast).
    pub app: Field,
    /// Page level within the application: `list`, `post`, ... (raw, fast).
    pub level: Field,
    /// `WARC-Payload-Digest` (raw).
    pub digest: Field,
    /// `WARC-Record-ID` of the response or revisit record (raw).
    pub record_id: Field,
    /// Hop path from the seed (raw).
    pub hops: Field,
    /// For a revisit: the original's record ID (raw).
    pub refers_to: Field,
    /// For a revisit: the original's URL.
    pub refers_to_url: Field,
    /// For a revisit: the original's `WARC-Date`.
    pub refers_to_date: Field,
    /// WARC file of the response/revisit record (raw).
    pub warc_file: Field,
    /// Offset of its gzip member.
    pub offset: Field,
    /// Length of its gzip member.
    pub length: Field,
    /// File of the request and metadata records written with it.
    pub related_file: Field,
    /// Offset of those records.
    pub related_offset: Field,
    /// Total length of those records.
    pub related_length: Field,
    /// For an object: its type (`post`, `comment`, ...) (raw, fast).
    pub object_type: Field,
    /// For an object: the record ID of the capture it was extracted from (raw).
    pub parent: Field,
    /// For an object: its author, as shown on the page.
    pub author: Field,
}

impl Fields {
    /// Builds the schema.
    pub fn new() -> Fields {
        let mut b = Schema::builder();
        let raw_fast = STRING | STORED | FAST;
        let raw = STRING | STORED;
        let analyzed = TextOptions::default().set_stored().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TEXT_ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let number = NumericOptions::default()
            .set_indexed()
            .set_stored()
            .set_fast();
        let stored_number = NumericOptions::default().set_stored();
        let time = DateOptions::default()
            .set_indexed()
            .set_stored()
            .set_fast()
            .set_precision(DateTimePrecision::Microseconds);
        let kind = b.add_text_field("kind", raw_fast.clone());
        let url = b.add_text_field("url", raw.clone());
        let surt = b.add_text_field("surt", raw.clone());
        let host = b.add_text_field("host", raw_fast.clone());
        let domain = b.add_text_field("domain", raw_fast.clone());
        let time = b.add_date_field("time", time);
        let status = b.add_u64_field("status", number.clone());
        let mime = b.add_text_field("mime", raw_fast.clone());
        let lang = b.add_text_field("lang", raw_fast.clone());
        let title = b.add_text_field("title", analyzed.clone());
        let text = b.add_text_field("text", analyzed);
        let relevance = b.add_f64_field("relevance", number.clone());
        let score = b.add_f64_field("score", number);
        let app = b.add_text_field("app", raw_fast.clone());
        let level = b.add_text_field("level", raw_fast.clone());
        let digest = b.add_text_field("digest", raw.clone());
        let record_id = b.add_text_field("record_id", raw.clone());
        let hops = b.add_text_field("hops", raw.clone());
        let refers_to = b.add_text_field("refers_to", raw.clone());
        let refers_to_url = b.add_text_field("refers_to_url", STORED);
        let refers_to_date = b.add_text_field("refers_to_date", STORED);
        let warc_file = b.add_text_field("warc_file", raw.clone());
        let offset = b.add_u64_field("offset", stored_number.clone());
        let length = b.add_u64_field("length", stored_number.clone());
        let related_file = b.add_text_field("related_file", STORED);
        let related_offset = b.add_u64_field("related_offset", stored_number.clone());
        let related_length = b.add_u64_field("related_length", stored_number);
        let object_type = b.add_text_field("object_type", raw_fast);
        let parent = b.add_text_field("parent", raw);
        let author = b.add_text_field("author", STORED);
        Fields {
            schema: b.build(),
            kind,
            url,
            surt,
            host,
            domain,
            time,
            status,
            mime,
            lang,
            title,
            text,
            relevance,
            score,
            app,
            level,
            digest,
            record_id,
            hops,
            refers_to,
            refers_to_url,
            refers_to_date,
            warc_file,
            offset,
            length,
            related_file,
            related_offset,
            related_length,
            object_type,
            parent,
            author,
        }
    }
}

impl Default for Fields {
    fn default() -> Self {
        Fields::new()
    }
}

/// The analyzer registered as [`TEXT_ANALYZER`] on every opened index (tantivy does not persist
/// analyzers, only their names).
pub fn text_analyzer() -> TextAnalyzer {
    TextAnalyzer::from(WordTokenizer::default())
}
