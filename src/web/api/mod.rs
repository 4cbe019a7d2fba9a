//! The `/api/v1` resources, one module each, and the helpers they share.

pub(crate) mod captures;
pub(crate) mod crawls;
pub(crate) mod events;
pub(crate) mod export_files;
pub(crate) mod exports;
pub(crate) mod frontier;
pub(crate) mod learned;
pub(crate) mod openapi;
pub(crate) mod reports;
pub(crate) mod search;
pub(crate) mod urls;

use super::error::WebError;
use super::AppState;
use crate::index::Index;
use actix_web::error::PayloadError;
use actix_web::{http::header, web, HttpRequest};
use chrono::{DateTime, NaiveDateTime, Utc};
use futures_util::StreamExt;
use std::sync::Arc;

/// Runs blocking work (index searches, WARC reads) on the blocking pool, off the threads that
/// serve connections.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, WebError> + Send + 'static,
) -> Result<T, WebError> {
    web::block(f)
        .await
        .map_err(|e| WebError::Internal(format!("blocking task: {e}")))?
}

/// The capture index of crawl `id`: 404 for an unknown crawl, 409 when it has no index yet.
pub(crate) async fn index_of(
    state: &web::Data<AppState>,
    id: &str,
) -> Result<Arc<Index>, WebError> {
    state.manager.get(id)?;
    let (state, id) = (state.clone(), id.to_string());
    blocking(move || Ok(state.indexes.get(&id)?)).await
}

/// A query parameter's value, `None` when absent or empty (forms send `host=`).
pub(crate) fn given(v: Option<String>) -> Option<String> {
    v.map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

/// A time parameter: RFC 3339 (`2026-03-04T05:06:07Z`) or a 14-digit timestamp as in CDXJ and
/// Wayback URLs (`20260304050607`), or a prefix of one (`2026`, `202603`, `20260304`: the start
/// of that period). Timestamps are UTC.
pub(crate) fn parse_time(name: &str, value: &str) -> Result<DateTime<Utc>, WebError> {
    let bad = |reason: String| WebError::BadParameter {
        name: name.to_string(),
        reason,
    };
    let v = value.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Ok(t.with_timezone(&Utc));
    }
    let digits = v.len();
    if !(4..=14).contains(&digits) || digits % 2 == 1 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(format!(
            "{v:?} is neither an RFC 3339 time nor a timestamp of 4 to 14 digits (YYYYmmddHHMMSS)"
        )));
    }
    let padded = format!("{v}{}", &"00000101000000"[digits..]);
    let t = NaiveDateTime::parse_from_str(&padded, "%Y%m%d%H%M%S")
        .map_err(|e| bad(format!("{v:?} is not a valid time: {e}")))?;
    Ok(t.and_utc())
}

/// The 14-digit timestamp of a time (`YYYYmmddHHMMSS`, UTC), as CDXJ and Wayback URLs use.
pub(crate) fn timestamp14(t: DateTime<Utc>) -> String {
    t.format("%Y%m%d%H%M%S").to_string()
}

/// Percent-encodes a query parameter value.
pub(crate) fn encode(v: &str) -> String {
    url::form_urlencoded::byte_serialize(v.as_bytes()).collect()
}

/// Reads a request body of at most `limit` bytes. A declared `Content-Length` over the limit is
/// refused before anything is read; a body that grows past it while streaming is refused as
/// soon as it does, so a huge body is never held in memory.
pub(crate) async fn read_capped(
    req: &HttpRequest,
    mut payload: web::Payload,
    limit: usize,
) -> Result<Vec<u8>, WebError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(WebError::TooLarge { limit });
    }
    let mut body = Vec::with_capacity(declared.map_or(8192, |n| n as usize).min(limit));
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| match e {
            PayloadError::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                WebError::SlowBody(io.to_string())
            }
            e => WebError::Payload(e.to_string()),
        })?;
        if body.len() + chunk.len() > limit {
            return Err(WebError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The media type of a request without parameters, lower-cased (`application/json`).
pub(crate) fn media_type(req: &HttpRequest) -> String {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_as_rfc3339_or_timestamps() {
        let t = parse_time("at", "2026-03-04T05:06:07Z").unwrap();
        assert_eq!(timestamp14(t), "20260304050607");
        assert_eq!(
            timestamp14(parse_time("at", "20260304050607").unwrap()),
            "20260304050607"
        );
        assert_eq!(
            timestamp14(parse_time("at", "202603").unwrap()),
            "20260301000000"
        );
        assert_eq!(
            timestamp14(parse_time("at", "2026").unwrap()),
            "20260101000000"
        );
        for bad in [
            "",
            "yesterday",
            "20261",
            "20261399",
            "2026-13-01T00:00:00Z",
            "123",
        ] {
            match parse_time("from", bad) {
                Err(WebError::BadParameter { name, .. }) => assert_eq!(name, "from"),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }
}
