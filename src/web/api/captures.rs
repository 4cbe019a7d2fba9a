//! Capture lookup and replay: `GET /api/v1/crawls/{id}/captures?url=` lists every capture of a
//! URL; `GET .../capture?url=&at=` serves the stored HTTP response of the capture nearest in
//! time, read from its WARC file by offset (revisits resolved to their original), with the
//! headers that make it safe to show in a sandboxed iframe (see `web/replay.rs`);
//! `GET .../capture/info?url=&at=` describes that capture as JSON.

use super::{blocking, encode, given, index_of, parse_time};
use crate::archive::read_record_prefix;
use crate::http::head::HttpHead;
use crate::index::{record_path, warc_dir, CaptureRef};
use crate::web::error::WebError;
use crate::web::replay::{self, MAX_REPLAY_BYTES};
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Record block bytes read for `capture/info`: enough for any HTTP head.
const INFO_BYTES: u64 = 64 << 10;

/// `url` (required) and `at` (optional).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureParams {
    /// The URL (matched by SURT key, as replay tools do).
    pub url: Option<String>,
    /// The time wanted (RFC 3339 or a timestamp); the latest capture when absent.
    pub at: Option<String>,
}

impl CaptureParams {
    fn parse(self) -> Result<(String, Option<DateTime<Utc>>), WebError> {
        let url = given(self.url).ok_or_else(|| WebError::BadParameter {
            name: "url".into(),
            reason: "is required".into(),
        })?;
        if let Err(e) = url::Url::parse(&url) {
            return Err(WebError::BadParameter {
                name: "url".into(),
                reason: format!("{url:?} is not an absolute URL: {e}"),
            });
        }
        let at = given(self.at).map(|v| parse_time("at", &v)).transpose()?;
        Ok((url, at))
    }
}

#[derive(Serialize)]
struct CapturesOut {
    crawl: String,
    url: String,
    total: usize,
    captures: Vec<CaptureOut>,
}

/// A capture with the API path that replays it.
#[derive(Serialize)]
struct CaptureOut {
    #[serde(flatten)]
    capture: CaptureRef,
    replay: String,
}

fn with_link(crawl: &str, c: CaptureRef) -> CaptureOut {
    CaptureOut {
        replay: format!(
            "/api/v1/crawls/{}/capture?url={}&at={}",
            encode(crawl),
            encode(&c.url),
            encode(&c.time.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
        ),
        capture: c,
    }
}

/// `GET .../captures?url=`: every capture and revisit of the URL, oldest first (an empty list
/// for a URL never captured).
pub async fn list(
    id: web::Path<String>,
    params: web::Query<CaptureParams>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    let (url, _) = params.into_inner().parse()?;
    let index = index_of(&state, &id).await?;
    let u = url.clone();
    let captures = blocking(move || Ok(index.captures_of(&u)?)).await?;
    let captures: Vec<CaptureOut> = captures.into_iter().map(|c| with_link(&id, c)).collect();
    Ok(HttpResponse::Ok().json(CapturesOut {
        crawl: id,
        url,
        total: captures.len(),
        captures,
    }))
}

/// `GET .../capture?url=&at=`: the archived response itself; 404 when the URL has no capture.
pub async fn replay(
    id: web::Path<String>,
    params: web::Query<CaptureParams>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    let (url, at) = params.into_inner().parse()?;
    let index = index_of(&state, &id).await?;
    let warcs = warc_dir(state.manager.data(), &id);
    let (r, body, decoded) = blocking(move || {
        let r = index.capture_at(&warcs, &url, at, MAX_REPLAY_BYTES)?;
        let (body, decoded) = match r.entity(MAX_REPLAY_BYTES as usize) {
            Ok(d) => (d.bytes, true),
            // A coding magpie cannot decode (br, zstd): the stored body, with its coding.
            Err(_) => (r.http[r.header_len.min(r.http.len())..].to_vec(), false),
        };
        Ok((r, body, decoded))
    })
    .await?;
    Ok(replay::response(&r, body, decoded))
}

#[derive(Serialize)]
struct HttpOut {
    status: u16,
    headers: Vec<(String, String)>,
    header_bytes: usize,
}

#[derive(Serialize)]
struct WarcOut {
    /// The record's WARC header fields, in file order.
    fields: Vec<(String, String)>,
    /// The record block length (`Content-Length`).
    content_length: u64,
}

#[derive(Serialize)]
struct InfoOut {
    crawl: String,
    url: String,
    capture: CaptureOut,
    /// For a revisit: the original whose payload is replayed.
    original: Option<CaptureRef>,
    /// The archived status line and headers (all of them, as stored).
    http: Option<HttpOut>,
    /// The response or revisit record.
    warc: WarcOut,
    /// The analysis metadata record: page relevance and every outlink's score components.
    analysis: Option<serde_json::Value>,
    /// The application-aware helper's metadata record: application, level, web objects.
    aah: Option<serde_json::Value>,
}

/// `GET .../capture/info?url=&at=`: the capture `capture` would replay, as JSON: its index
/// entry, WARC file/offset/length, digests, the archived HTTP headers and WARC fields, and the
/// crawl's findings from its metadata records (score breakdown of every outlink, helper output).
pub async fn info(
    id: web::Path<String>,
    params: web::Query<CaptureParams>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    let (url, at) = params.into_inner().parse()?;
    let index = index_of(&state, &id).await?;
    let warcs = warc_dir(state.manager.data(), &id);
    let u = url.clone();
    let (r, head, warc, meta) = blocking(move || {
        let r = index.capture_at(&warcs, &u, at, INFO_BYTES)?;
        let loc = &r.capture.location;
        let (warc, _) = read_record_prefix(&record_path(&warcs, &loc.file), loc.offset, 0)
            .map_err(crate::index::IndexError::from)?;
        let head: Option<HttpHead> = r.head();
        let meta = crate::index::metadata_records(&warcs, &r.capture)?;
        Ok((r, head, warc, meta))
    })
    .await?;
    let json_of = |media: &str| {
        meta.iter()
            .find(|m| m.is(media))
            .and_then(|m| m.json.clone())
    };
    let analysis = json_of(crate::crawl::records::ANALYSIS_MEDIA_TYPE);
    let aah = json_of(crate::aah::AAH_MEDIA_TYPE);
    Ok(HttpResponse::Ok().json(InfoOut {
        capture: with_link(&id, r.capture),
        crawl: id,
        url,
        original: r.original,
        http: head.map(|h| HttpOut {
            status: h.status,
            header_bytes: h.len,
            headers: h.headers,
        }),
        warc: WarcOut {
            fields: warc.fields,
            content_length: warc.content_length,
        },
        analysis,
        aah,
    }))
}
