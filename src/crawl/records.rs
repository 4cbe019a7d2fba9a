//! Turns one fetched exchange into its WARC records: `response`, then `request` and `metadata`
//! pointing at it with `WARC-Concurrent-To` (for an analysed page, also the analysis and the
//! application-aware helper's findings as JSON metadata). Encoding (gzip, one member per record)
//! happens here, on worker threads, so the engine only appends bytes.

use super::dedup::Original;
use super::pipeline::Judged;
use crate::aah::{AppMatch, AAH_MEDIA_TYPE};
use crate::analysis::PageAnalysis;
use crate::archive::{self, ArchiveError, RecordCommon};
use crate::fetch::Fetched;
use crate::model::{CrawlUri, ExchangeInfo, Link};
use serde::Serialize;
use std::fmt::Write as _;

/// Media type of the analysis metadata record: page relevance and every outlink's score
/// components (see `docs/warc.md`).
pub const ANALYSIS_MEDIA_TYPE: &str = "application/vnd.magpie.analysis+json";

/// The `WARC-Target-URI` of magpie's JSON metadata records: `urn:magpie:analysis:<page URL>`
/// and `urn:magpie:aah:<page URL>`. Replay tools index every metadata record that is not
/// `application/warc-fields` under its Target-URI, so under the page's own URL (and its
/// timestamp) one of these would be replayed instead of the page (pywb, py-wacz). A `urn:`
/// Target-URI, as Browsertrix writes its `urn:pageinfo:<URL>` records, keeps them out of every
/// URL lookup; `WARC-Concurrent-To` still ties each to its response (`docs/warc.md`).
pub fn notes_target_uri(media_type: &str, url: &str) -> String {
    let kind = if media_type == ANALYSIS_MEDIA_TYPE {
        "analysis"
    } else {
        "aah"
    };
    format!("urn:magpie:{kind}:{url}")
}

/// What the online stages found on a page, for its metadata records.
pub struct PageNotes<'a> {
    /// The analysis, with one score per link of the page.
    pub analysis: Option<&'a PageAnalysis>,
    /// The application-aware helper's findings.
    pub app: Option<&'a AppMatch>,
    /// The combined verdict per link (same order as the links).
    pub judged: &'a [Judged],
}

/// The encoded records of one exchange.
pub struct EncodedRecords {
    /// The exchange as fetched.
    pub info: ExchangeInfo,
    /// Record-ID of the response (or of the revisit written in its place).
    pub record_id: String,
    /// `WARC-Date` of the exchange.
    pub date: String,
    /// The `response` record, or the `revisit` record when the payload was archived before.
    pub response: Vec<u8>,
    /// The first capture of the payload, when `response` is a revisit of it.
    pub revisit_of: Option<Original>,
    /// Bytes of the response as received.
    pub response_len: u64,
    /// The `request` and `metadata` records, concatenated.
    pub request_and_metadata: Vec<u8>,
    /// The `WARC-Warcinfo-ID` the records name (the writer's current one when encoding began).
    pub warcinfo_id: String,
}

/// Encodes the records of an exchange. `links` are every link found, for the metadata record.
/// With `original`, the first capture of the same payload, the exchange is written as a revisit
/// of it: each record is encoded once, as what it will be in the archive.
pub fn encode(
    fetched: &Fetched,
    uri: &CrawlUri,
    links: &[Link],
    notes: Option<&PageNotes>,
    original: Option<&Original>,
    warcinfo_id: &str,
    level: u32,
) -> Result<EncodedRecords, ArchiveError> {
    let info = &fetched.info;
    let record_id = archive::new_record_id();
    let date = archive::warc_date(info.started);
    let common = RecordCommon {
        record_id: &record_id,
        date: &date,
        target_uri: &info.url,
        warcinfo_id,
        ip: Some(info.ip),
    };
    let response = match original {
        Some(o) => archive::revisit_record(
            &common,
            &info.payload_digest,
            &o.id,
            &o.uri,
            &o.date,
            &fetched.response.read_range(0, info.header_len as usize)?,
            level,
        )?,
        None => archive::response_record(
            &common,
            &mut fetched.response.reader()?,
            fetched.response.len(),
            &info.block_digest,
            &info.payload_digest,
            info.truncated.map(|t| t.as_warc()),
            level,
        )?,
    };
    let request_id = archive::new_record_id();
    let mut rest = archive::request_record(
        &RecordCommon {
            record_id: &request_id,
            ..common
        },
        &record_id,
        &fetched.request,
        level,
    )?;
    let metadata_id = archive::new_record_id();
    let fields = metadata_fields(uri, info, links, notes);
    let meta_common = RecordCommon {
        record_id: &metadata_id,
        ip: None,
        ..common
    };
    rest.extend(archive::metadata_record(
        &meta_common,
        &record_id,
        "application/warc-fields",
        fields.as_bytes(),
        level,
    )?);
    for (media_type, json) in notes.map(|n| json_notes(uri, links, n)).unwrap_or_default() {
        let id = archive::new_record_id();
        let target = notes_target_uri(media_type, &info.url);
        rest.extend(archive::metadata_record(
            &RecordCommon {
                record_id: &id,
                target_uri: &target,
                ..meta_common
            },
            &record_id,
            media_type,
            &json,
            level,
        )?);
    }
    Ok(EncodedRecords {
        info: info.clone(),
        record_id,
        date,
        response,
        revisit_of: original.cloned(),
        response_len: fetched.response.len(),
        request_and_metadata: rest,
        warcinfo_id: warcinfo_id.to_string(),
    })
}

/// Heritrix-style metadata: `via`, `hopsFromSeed`, `sourceTag`, `fetchTimeMs`, `outlink` lines;
/// then magpie's own: the priority the URL was fetched with, the page's relevance and language,
/// and the detected application and page level (what an index rebuild needs).
fn metadata_fields(
    uri: &CrawlUri,
    info: &ExchangeInfo,
    links: &[Link],
    notes: Option<&PageNotes>,
) -> String {
    let mut s = String::with_capacity(128 + links.len() * 64);
    if let Some(via) = &uri.via {
        let _ = write!(s, "via: {via}\r\n");
    }
    let _ = write!(s, "hopsFromSeed: {}\r\n", uri.hops);
    let _ = write!(s, "sourceTag: {}\r\n", uri.source);
    let _ = write!(s, "fetchTimeMs: {}\r\n", info.duration_ms);
    let _ = write!(s, "magpie-priority: {}\r\n", uri.priority);
    if let Some(a) = notes.and_then(|n| n.analysis) {
        let _ = write!(s, "magpie-relevance: {}\r\n", a.relevance);
        if let Some(lang) = &a.lang {
            let _ = write!(s, "magpie-lang: {}\r\n", clean(lang));
        }
    }
    if let Some(m) = notes.and_then(|n| n.app) {
        if let Some(app) = &m.application {
            let _ = write!(s, "magpie-app: {}\r\n", clean(&app.name));
        }
        if let Some(level) = &m.level {
            let _ = write!(s, "magpie-level: {}\r\n", clean(&level.name));
        }
    }
    for l in links {
        let _ = write!(
            s,
            "outlink: {} {} {}\r\n",
            clean(&l.url),
            l.hop.code(),
            clean(&l.context)
        );
    }
    s
}

/// Field values are single lines.
fn clean(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// One outlink in the analysis record.
#[derive(Serialize)]
struct ScoredLink<'a> {
    url: &'a str,
    hop: char,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<crate::model::ScoreParts>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    blacklist: bool,
    #[serde(skip_serializing_if = "is_zero")]
    boost: f32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    skip: bool,
}

fn is_zero(x: &f32) -> bool {
    *x == 0.0
}

/// The analysis record (page relevance, the score this URL was fetched with, every outlink's
/// components) and the helper's record (application, level, objects, link verdicts).
fn json_notes(uri: &CrawlUri, links: &[Link], n: &PageNotes) -> Vec<(&'static str, Vec<u8>)> {
    let mut out = Vec::new();
    if let Some(a) = n.analysis {
        let outlinks: Vec<ScoredLink> = links
            .iter()
            .zip(n.judged)
            .map(|(l, j)| ScoredLink {
                url: &l.url,
                hop: l.hop.code(),
                score: j.score,
                blacklist: j.blacklist,
                boost: j.boost,
                skip: j.skip,
            })
            .collect();
        let v = serde_json::json!({
            "relevance": a.relevance,
            "relevant": a.relevant,
            "lang": a.lang,
            "lang_confidence": a.lang_confidence,
            "lang_source": a.lang_source,
            "lang_wanted": a.lang_wanted,
            "inherited": a.inherited,
            "priority": uri.priority,
            "source": uri.source,
            "score": uri.parts,
            "outlinks": outlinks,
        });
        out.push((
            ANALYSIS_MEDIA_TYPE,
            serde_json::to_vec(&v).unwrap_or_default(),
        ));
    }
    if let Some(m) = n
        .app
        .filter(|m| m.application.is_some() || !m.objects.is_empty())
    {
        out.push((AAH_MEDIA_TYPE, serde_json::to_vec(m).unwrap_or_default()));
    }
    out
}
