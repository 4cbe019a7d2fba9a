//! `POST /api/v1/urls`: the scored-URL intake. The body is one JSON object, a JSON array, or
//! NDJSON (`Content-Type: application/x-ndjson`) of [`ScoredUrl`](crate::intake::ScoredUrl)s.
//!
//! A malformed body applies nothing (400 naming the line and column); an oversized one is
//! refused with 413 before it is read to the end. Otherwise the answer is the
//! [`IntakeReport`](crate::intake::IntakeReport): counts, and each rejected item's index and
//! reason. The accepted items of one request for one crawl are committed together.

use super::{media_type, read_capped};
use crate::intake;
use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::{web, HttpRequest, HttpResponse};

/// Media types read as NDJSON (one item per line).
pub const NDJSON_TYPES: [&str; 2] = ["application/x-ndjson", "application/ndjson"];

/// Reads, checks and applies a batch of scored URLs.
pub async fn post(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let ndjson = NDJSON_TYPES.contains(&media_type(&req).as_str());
    let body = read_capped(&req, payload, state.config.max_body_bytes).await?;
    // Parsing tens of MiB takes a while: keep it off the connection-serving thread.
    let items = web::block(move || intake::read_body(&body, ndjson))
        .await
        .map_err(|e| WebError::Internal(format!("intake parser: {e}")))??;
    let report = state.manager.intake(items).await;
    Ok(HttpResponse::Ok().json(report))
}
