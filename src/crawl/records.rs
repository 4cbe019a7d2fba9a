//! Turns one fetched exchange into its WARC records: `response`, then `request` and `metadata`
//! pointing at it with `WARC-Concurrent-To`. Encoding (gzip, one member per record) happens here,
//! on worker threads, so the engine only appends bytes.

use crate::archive::{self, ArchiveError, RecordCommon};
use crate::fetch::Fetched;
use crate::model::{CrawlUri, ExchangeInfo, Link};
use std::fmt::Write as _;

/// The encoded records of one exchange.
pub struct EncodedRecords {
    /// The exchange as fetched.
    pub info: ExchangeInfo,
    /// Record-ID of the response (reused by a revisit written in its place).
    pub record_id: String,
    /// `WARC-Date` of the exchange.
    pub date: String,
    /// The `response` record.
    pub response: Vec<u8>,
    /// Bytes of the response as received.
    pub response_len: u64,
    /// The `request` and `metadata` records, concatenated.
    pub request_and_metadata: Vec<u8>,
    /// Status line and headers as received, the block of a revisit record.
    pub http_head: Vec<u8>,
    /// Hop path and source, for a revisit written later.
    pub hops: String,
    /// The `WARC-Warcinfo-ID` the records name (the writer's current one when encoding began).
    pub warcinfo_id: String,
}

/// Encodes the records of an exchange. `links` are every link found, for the metadata record.
pub fn encode(
    fetched: &Fetched,
    uri: &CrawlUri,
    links: &[Link],
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
    let mut block = fetched.response.reader()?;
    let response = archive::response_record(
        &common,
        &mut block,
        fetched.response.len(),
        &info.block_digest,
        &info.payload_digest,
        info.truncated.map(|t| t.as_warc()),
        level,
    )?;
    drop(block);
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
    let fields = metadata_fields(uri, info, links);
    rest.extend(archive::metadata_record(
        &RecordCommon {
            record_id: &metadata_id,
            ip: None,
            ..common
        },
        &record_id,
        "application/warc-fields",
        fields.as_bytes(),
        level,
    )?);
    let http_head = fetched.response.read_range(0, info.header_len as usize)?;
    Ok(EncodedRecords {
        info: info.clone(),
        record_id,
        date,
        response,
        response_len: fetched.response.len(),
        request_and_metadata: rest,
        http_head,
        hops: uri.hops.clone(),
        warcinfo_id: warcinfo_id.to_string(),
    })
}

/// Heritrix-style metadata: `via`, `hopsFromSeed`, `sourceTag`, `fetchTimeMs`, `outlink` lines.
fn metadata_fields(uri: &CrawlUri, info: &ExchangeInfo, links: &[Link]) -> String {
    let mut s = String::with_capacity(128 + links.len() * 64);
    if let Some(via) = &uri.via {
        let _ = write!(s, "via: {via}\r\n");
    }
    let _ = write!(s, "hopsFromSeed: {}\r\n", uri.hops);
    let _ = write!(s, "sourceTag: {}\r\n", uri.source);
    let _ = write!(s, "fetchTimeMs: {}\r\n", info.duration_ms);
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
