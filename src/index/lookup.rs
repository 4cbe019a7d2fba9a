//! Capture lookup and replay: the captures of a URL, the one nearest a time, its stored HTTP
//! response read straight from the WARC file, and revisits resolved to their originals.

use super::doc::{CaptureDoc, CaptureKind, Location, RevisitOf};
use super::search::SearchQuery;
use super::stored::Stored;
use super::{Index, IndexError};
use crate::archive::read_record_prefix;
use crate::http::body::{decode_entity, BodyError, DecodedBody};
use crate::http::head::HttpHead;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{AllQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{TantivyDocument, Term};

/// Captures of one URL returned at most (a URL fetched more often is a crawler trap).
const MAX_CAPTURES_PER_URL: usize = 10_000;

/// A capture as the index knows it: enough to list it, replay it and export it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaptureRef {
    /// URL as fetched.
    pub url: String,
    /// Fetch time.
    pub time: DateTime<Utc>,
    /// HTTP status.
    pub status: u16,
    /// Media type.
    pub mime: String,
    /// Payload digest.
    pub digest: String,
    /// Capture or revisit.
    pub kind: CaptureKind,
    /// Record ID of the response or revisit record.
    pub record_id: String,
    /// Hop path from the seed.
    pub hops: String,
    /// The response or revisit record.
    pub location: Location,
    /// The request and metadata records.
    pub related: Option<Location>,
    /// For a revisit: its original.
    pub revisit_of: Option<RevisitOf>,
}

/// A stored response ready to be served again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// The capture asked for (possibly a revisit).
    pub capture: CaptureRef,
    /// For a revisit: the original whose payload is served.
    pub original: Option<CaptureRef>,
    /// The HTTP response as recorded: status line, headers, body (for a revisit, the revisit's
    /// status line and headers with the original's body).
    pub http: Vec<u8>,
    /// Length of the status line and headers in `http`.
    pub header_len: usize,
    /// The record was longer than the byte cap given: `http` is cut.
    pub cut: bool,
    /// The headers that frame the body in `http` (the original's, for a revisit):
    /// `Transfer-Encoding` and `Content-Encoding` there say how to decode it.
    pub framing: Vec<(String, String)>,
}

impl Replay {
    /// The status line and headers served (the revisit's own, for a revisit).
    pub fn head(&self) -> Option<HttpHead> {
        HttpHead::parse_stored(&self.http[..self.header_len.min(self.http.len())])
    }

    /// The body as a browser should get it: chunked framing removed and `Content-Encoding`
    /// gzip/deflate decoded, at most `cap` bytes. A coding magpie cannot decode is
    /// [`BodyError::UnsupportedEncoding`].
    pub fn entity(&self, cap: usize) -> Result<DecodedBody, BodyError> {
        let body = &self.http[self.header_len.min(self.http.len())..];
        decode_entity(Box::new(body), &self.framing, cap)
    }
}

impl Index {
    fn by_term(
        &self,
        field: Field,
        value: &str,
        limit: usize,
    ) -> Result<Vec<TantivyDocument>, IndexError> {
        let searcher = self.reader.searcher();
        let q = TermQuery::new(
            Term::from_field_text(field, value),
            IndexRecordOption::Basic,
        );
        let ctx = || format!("{}: lookup {value}", self.name);
        let top = searcher
            .search(&q, &TopDocs::with_limit(limit).order_by_score())
            .map_err(IndexError::tantivy(ctx()))?;
        top.into_iter()
            .map(|(_, a)| searcher.doc(a).map_err(IndexError::tantivy(ctx())))
            .collect()
    }

    /// Every capture document in the index as stored, in record-ID order: what an audit of the
    /// index compares, for example a rebuild from the WARC files against the live crawl's.
    pub fn capture_docs(&self) -> Result<Vec<CaptureDoc>, IndexError> {
        self.refresh()?;
        let searcher = self.reader.searcher();
        let ctx = || format!("{}: every capture", self.name);
        let addrs = searcher
            .search(&AllQuery, &DocSetCollector)
            .map_err(IndexError::tantivy(ctx()))?;
        let mut docs = Vec::with_capacity(addrs.len());
        for a in addrs {
            let d: TantivyDocument = searcher.doc(a).map_err(IndexError::tantivy(ctx()))?;
            docs.extend(Stored::new(&d, &self.fields).capture_doc());
        }
        docs.sort_by(|a, b| a.record_id.cmp(&b.record_id));
        Ok(docs)
    }

    fn refs(&self, docs: &[TantivyDocument]) -> Vec<CaptureRef> {
        docs.iter()
            .filter_map(|d| Stored::new(d, &self.fields).capture_ref())
            .collect()
    }

    /// Every capture and revisit of a URL, oldest first. URLs are matched by SURT key, as replay
    /// tools do (`http://www.example.org/` finds `https://example.org`); exact matches come
    /// first among captures made at the same moment.
    pub fn captures_of(&self, url: &str) -> Result<Vec<CaptureRef>, IndexError> {
        let key = super::doc::surt_key(url);
        let docs = self.by_term(self.fields.surt, &key, MAX_CAPTURES_PER_URL)?;
        let mut refs = self.refs(&docs);
        refs.sort_by(|a, b| {
            a.time
                .cmp(&b.time)
                .then_with(|| (b.url == url).cmp(&(a.url == url)))
        });
        Ok(refs)
    }

    /// The capture whose response or revisit record has this `WARC-Record-ID`.
    pub fn capture_by_record_id(&self, id: &str) -> Result<Option<CaptureRef>, IndexError> {
        let docs = self.by_term(self.fields.record_id, id, 4)?;
        Ok(self.refs(&docs).into_iter().next())
    }

    /// The `<title>` indexed for the capture whose record has this `WARC-Record-ID` (`None`
    /// when it has none or the ID is unknown): page lists, such as a WACZ's `pages.jsonl`,
    /// name pages by it without reading the archive again.
    pub fn title_by_record_id(&self, id: &str) -> Result<Option<String>, IndexError> {
        let docs = self.by_term(self.fields.record_id, id, 4)?;
        Ok(docs.iter().find_map(|d| {
            let s = Stored::new(d, &self.fields);
            s.capture_ref()?;
            s.text(self.fields.title).filter(|t| !t.trim().is_empty())
        }))
    }

    /// The original a revisit stands for: by `WARC-Refers-To`, else by the referred URL and
    /// date, else the earliest full capture with the same payload digest.
    pub fn original_of(&self, revisit: &CaptureRef) -> Result<Option<CaptureRef>, IndexError> {
        if let Some(r) = &revisit.revisit_of {
            if let Some(o) = self.capture_by_record_id(&r.record_id)? {
                return Ok(Some(o));
            }
            let date = DateTime::parse_from_rfc3339(&r.date).ok();
            let by_url = self.captures_of(&r.url)?.into_iter().find(|c| {
                c.kind == CaptureKind::Capture
                    && c.digest == revisit.digest
                    && date.is_none_or(|d| c.time == d)
            });
            if by_url.is_some() {
                return Ok(by_url);
            }
        }
        let docs = self.by_term(self.fields.digest, &revisit.digest, MAX_CAPTURES_PER_URL)?;
        Ok(self
            .refs(&docs)
            .into_iter()
            .filter(|c| c.kind == CaptureKind::Capture)
            .min_by_key(|c| c.time))
    }

    /// The captures behind every document matching `q` (all pages; objects give their
    /// capture), in WARC order, each once.
    pub fn select_captures(&self, q: &SearchQuery) -> Result<Vec<CaptureRef>, IndexError> {
        let (searcher, addrs) = self.matching(q)?;
        let mut out = Vec::with_capacity(addrs.len());
        let mut parents = Vec::new();
        for a in addrs {
            let doc: TantivyDocument = searcher
                .doc(a)
                .map_err(IndexError::tantivy(format!("{}: select", self.name)))?;
            let s = Stored::new(&doc, &self.fields);
            match s.capture_ref() {
                Some(c) => out.push(c),
                None => parents.extend(s.parent()),
            }
        }
        for id in parents {
            out.extend(self.capture_by_record_id(&id)?);
        }
        let mut seen = HashSet::new();
        out.retain(|c| seen.insert(c.record_id.clone()));
        out.sort_by(|a, b| {
            (&a.location.file, a.location.offset).cmp(&(&b.location.file, b.location.offset))
        });
        Ok(out)
    }

    /// The capture of `url` nearest to `at` (the latest when `None`), with its HTTP response
    /// read from the WARC file in `warc_dir` (at most `max_bytes` of the record block). A
    /// revisit is served with its original's body.
    pub fn capture_at(
        &self,
        warc_dir: &Path,
        url: &str,
        at: Option<DateTime<Utc>>,
        max_bytes: u64,
    ) -> Result<Replay, IndexError> {
        let all = self.captures_of(url)?;
        let exact: Vec<&CaptureRef> = all.iter().filter(|c| c.url == url).collect();
        let pool: Vec<&CaptureRef> = if exact.is_empty() {
            all.iter().collect()
        } else {
            exact
        };
        let pick = match at {
            None => pool.last().copied(),
            Some(t) => pool.iter().copied().min_by_key(|c| {
                (
                    (c.time - t).num_microseconds().unwrap_or(i64::MAX).abs(),
                    std::cmp::Reverse(c.time),
                )
            }),
        };
        let capture = pick.cloned().ok_or_else(|| IndexError::NotFound {
            url: url.to_string(),
        })?;
        let (block, cut) = read_block(warc_dir, &capture, max_bytes)?;
        if capture.kind != CaptureKind::Revisit {
            let head = HttpHead::parse_stored(&block);
            let header_len = head.as_ref().map_or(block.len(), |h| h.len);
            return Ok(Replay {
                capture,
                original: None,
                http: block,
                header_len,
                cut,
                framing: head.map(|h| h.headers).unwrap_or_default(),
            });
        }
        let original = self
            .original_of(&capture)?
            .ok_or_else(|| IndexError::NotFound {
                url: format!("{url} (the original of revisit {})", capture.record_id),
            })?;
        let (orig_block, orig_cut) = read_block(warc_dir, &original, max_bytes)?;
        let orig_parsed = HttpHead::parse_stored(&orig_block);
        let orig_head = orig_parsed.as_ref().map_or(0, |h| h.len);
        let (mut http, header_len) = match HttpHead::parse_stored(&block) {
            Some(h) => (block[..h.len].to_vec(), h.len),
            None => (orig_block[..orig_head].to_vec(), orig_head),
        };
        http.extend_from_slice(&orig_block[orig_head..]);
        Ok(Replay {
            capture,
            original: Some(original),
            http,
            header_len,
            cut: cut || orig_cut,
            framing: orig_parsed.map(|h| h.headers).unwrap_or_default(),
        })
    }
}

/// Reads a capture's record block, checking the record is the one the index names.
fn read_block(
    warc_dir: &Path,
    c: &CaptureRef,
    max_bytes: u64,
) -> Result<(Vec<u8>, bool), IndexError> {
    let path = super::record_path(warc_dir, &c.location.file);
    let (head, block) = read_record_prefix(&path, c.location.offset, max_bytes)?;
    if head.record_id() != c.record_id {
        return Err(IndexError::Stale {
            file: c.location.file.clone(),
            offset: c.location.offset,
            message: format!(
                "expected record {}, found {:?}",
                c.record_id,
                head.record_id()
            ),
        });
    }
    let cut = (block.len() as u64) < head.content_length;
    Ok((block, cut))
}
