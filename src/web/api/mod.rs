//! The `/api/v1` resources, one module each, and the helpers they share.

pub mod crawls;
pub mod events;
pub mod frontier;
pub mod learned;
pub mod openapi;
pub mod urls;

use super::error::WebError;
use actix_web::{http::header, web, HttpRequest};
use futures_util::StreamExt;

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
        let chunk = chunk.map_err(|e| WebError::Payload(e.to_string()))?;
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
