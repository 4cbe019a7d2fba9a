//! Turns one fetched exchange into its WARC records: `response`, then `request` and `metadata`
//! pointing at it with `WARC-Concurrent-To` (for an analysed page, also the analysis and the
//! application-aware helper's findings as JSON metadata). Encoding (gzip, one member per record)
//! happens here, on worker threads, so the engine only appends bytes.

use super::dedup::Original;
use super::verdicts::Judged;
use crate::aah::{AppMatch, Capture, Revision, AAH_MEDIA_TYPE};
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

/// The capture an exchange will be archived as (its response's Record-ID and date), named
/// before it is encoded: the helper keeps it with a page it will read again.
pub fn capture_of(fetched: &Fetched) -> Capture {
    Capture {
        record_id: archive::new_record_id(),
        date: archive::warc_date(fetched.info.started),
    }
}

/// Encodes the records of an exchange, as the capture `capture` ([`capture_of`]). `links` are
/// every link found, for the metadata record. With `original`, the first capture of the same
/// payload, the exchange is written as a revisit of it: each record is encoded once, as what it
/// will be in the archive.
#[allow(clippy::too_many_arguments)]
pub fn encode(
    capture: Capture,
    fetched: &Fetched,
    uri: &CrawlUri,
    links: &[Link],
    notes: Option<&PageNotes>,
    original: Option<&Original>,
    warcinfo_id: &str,
    level: u32,
) -> Result<EncodedRecords, ArchiveError> {
    let info = &fetched.info;
    let Capture { record_id, date } = capture;
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
    let fields = metadata_fields(uri, info, links, notes)?;
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
    let notes = match notes {
        Some(n) => json_notes(uri, links, n)?,
        None => Vec::new(),
    };
    for (media_type, json) in notes {
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

/// The helper's later readings of pages ([`Revision`]), as `metadata` records of the same media
/// type as a page's first reading, each referring to its page's capture with `WARC-Refers-To`
/// (a later record about it, not one made with it), dated now. A revision without a capture
/// (the helper was given none) is not written.
pub fn encode_revisions(
    revisions: &[Revision],
    warcinfo_id: &str,
    level: u32,
) -> Result<Vec<u8>, ArchiveError> {
    let mut out = Vec::new();
    let date = archive::warc_date(chrono::Utc::now());
    for r in revisions {
        let Some(c) = &r.capture else {
            continue;
        };
        let id = archive::new_record_id();
        let target = notes_target_uri(AAH_MEDIA_TYPE, &r.reading.url);
        out.extend(archive::later_metadata_record(
            &RecordCommon {
                record_id: &id,
                date: &date,
                target_uri: &target,
                warcinfo_id,
                ip: None,
            },
            &c.record_id,
            AAH_MEDIA_TYPE,
            &json_record(&r.reading, || {
                format!("the later reading of {}", r.reading.url)
            })?,
            level,
        )?);
    }
    Ok(out)
}

/// Heritrix-style metadata: `via`, `hopsFromSeed`, `sourceTag`, `fetchTimeMs`, `outlink` lines;
/// then magpie's own: the priority the URL was fetched with, the page's relevance and language,
/// and the detected application and page level (what an index rebuild needs).
///
/// Every value goes through [`archive::push_field`], which percent-encodes control characters:
/// `via` and `sourceTag` come from scorers over the API, the application and level names from a
/// knowledge base, and a CR LF in any of them must not become a forged field. The intake
/// refuses such values already; this is the second line. An outlink's URL is one column of its
/// line (`outlink: URL HOP CONTEXT`), so its whitespace is encoded as well.
fn metadata_fields(
    uri: &CrawlUri,
    info: &ExchangeInfo,
    links: &[Link],
    notes: Option<&PageNotes>,
) -> Result<String, ArchiveError> {
    let mut s = String::with_capacity(128 + links.len() * 64);
    if let Some(via) = &uri.via {
        archive::push_field(&mut s, "via", via)?;
    }
    archive::push_field(&mut s, "hopsFromSeed", &uri.hops)?;
    archive::push_field(&mut s, "sourceTag", &uri.source)?;
    archive::push_field(&mut s, "fetchTimeMs", &info.duration_ms.to_string())?;
    archive::push_field(&mut s, "magpie-priority", &uri.priority.to_string())?;
    if let Some(a) = notes.and_then(|n| n.analysis) {
        archive::push_field(&mut s, "magpie-relevance", &a.relevance.to_string())?;
        if let Some(lang) = &a.lang {
            archive::push_field(&mut s, "magpie-lang", lang)?;
        }
    }
    if let Some(m) = notes.and_then(|n| n.app) {
        if let Some(app) = &m.application {
            archive::push_field(&mut s, "magpie-app", &app.name)?;
        }
        if let Some(level) = &m.level {
            archive::push_field(&mut s, "magpie-level", &level.name)?;
        }
    }
    let mut line = String::new();
    for l in links {
        line.clear();
        let _ = write!(
            line,
            "{} {} {}",
            archive::escape_column(&l.url),
            l.hop.code(),
            l.context
        );
        archive::push_field(&mut s, "outlink", &line)?;
    }
    Ok(s)
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
/// The JSON metadata records of a page; a note that does not serialise is an error, never an
/// empty record.
fn json_notes(
    uri: &CrawlUri,
    links: &[Link],
    n: &PageNotes,
) -> Result<Vec<(&'static str, Vec<u8>)>, ArchiveError> {
    let what = |media_type: &str| format!("the {media_type} metadata record of {}", uri.url);
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
            json_record(&v, || what(ANALYSIS_MEDIA_TYPE))?,
        ));
    }
    if let Some(m) = n
        .app
        .filter(|m| m.application.is_some() || m.level.is_some() || !m.objects.is_empty())
    {
        out.push((AAH_MEDIA_TYPE, json_record(m, || what(AAH_MEDIA_TYPE))?));
    }
    Ok(out)
}

/// A JSON record's block; a value that does not serialise is an error naming `what`, never an
/// empty record.
fn json_record<T: Serialize + ?Sized>(
    v: &T,
    what: impl FnOnce() -> String,
) -> Result<Vec<u8>, ArchiveError> {
    serde_json::to_vec(v).map_err(|e| ArchiveError::Encode {
        what: what(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Hop;

    #[test]
    fn outside_values_cannot_forge_a_metadata_field() {
        let forged = "\r\nWARC-Forged: 1\r\noutlink: http://evil.example/ L a/@href";
        let uri = CrawlUri {
            via: Some(format!("http://a.example/{forged}")),
            source: format!("scorer{forged}"),
            hops: format!("L\n{forged}"),
            ..CrawlUri::seed("http://a.example/p")
        };
        let info = ExchangeInfo {
            url: "http://a.example/p".into(),
            ip: std::net::IpAddr::from([127, 0, 0, 1]),
            started: chrono::Utc::now(),
            duration_ms: 5,
            status: 200,
            headers: vec![],
            header_len: 0,
            truncated: None,
            block_digest: String::new(),
            payload_digest: String::new(),
        };
        let links = [Link {
            url: "http://a.example/x y\u{2028}z".into(),
            hop: Hop::Embed,
            context: format!("img/@src\0{forged}"),
            text: String::new(),
            block: None,
        }];
        let block = metadata_fields(&uri, &info, &links, None).unwrap();
        let lines: Vec<&str> = block.split("\r\n").collect();
        let names: Vec<&str> = lines
            .iter()
            .filter(|l| !l.is_empty())
            .map(|l| l.split(':').next().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "via",
                "hopsFromSeed",
                "sourceTag",
                "fetchTimeMs",
                "magpie-priority",
                "outlink"
            ],
            "{block}"
        );
        assert_eq!(block.matches('\n').count(), 6, "{block}");
        assert_eq!(block.matches('\r').count(), 6, "{block}");
        assert!(block.contains("sourceTag: scorer%0D%0AWARC-Forged: 1%0D%0Aoutlink: "));
        assert!(
            block.contains("outlink: http://a.example/x%20y%E2%80%A8z E img/@src%00%0D%0A"),
            "{block}"
        );
        assert_eq!(
            block.lines().filter(|l| l.starts_with("outlink:")).count(),
            1
        );
    }

    /// Refuses to serialise, as a type with a map keyed by non-strings would.
    struct Unencodable;

    impl Serialize for Unencodable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("cannot be written"))
        }
    }

    #[test]
    fn a_note_that_does_not_serialise_is_an_error_naming_it_never_an_empty_record() {
        let e = json_record(&Unencodable, || "the note of http://a.example/p".into())
            .unwrap_err()
            .to_string();
        assert!(e.contains("http://a.example/p"), "{e}");
        assert!(e.contains("cannot be written"), "{e}");
    }
}
