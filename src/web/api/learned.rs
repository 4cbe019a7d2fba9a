//! What a crawl has learned, for operators: `GET /api/v1/crawls/{id}/topic` (the heaviest
//! terms of the topic vector) and `GET /api/v1/crawls/{id}/relaxations` (patterns the
//! application-aware helper relaxed and adopted, with their evidence); and steering by pattern,
//! `POST /api/v1/crawls/{id}/block` (blacklist every URL a regular expression matches).

use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;

/// Terms listed when no `n` is given.
pub const DEFAULT_TERMS: usize = 30;
/// Most terms listed.
pub const MAX_TERMS: usize = 1_000;

/// Query of the topic view.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicQuery {
    /// How many terms (default 30, at most 1,000).
    pub n: Option<usize>,
}

/// Query of the relaxations view.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelaxationsQuery {
    /// Only this host (its host key, `host[:port]`).
    pub host: Option<String>,
}

/// The topic's top terms with their weights; empty for a crawl without a topic.
pub async fn topic(
    id: web::Path<String>,
    query: web::Query<TopicQuery>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let n = query.n.unwrap_or(DEFAULT_TERMS).min(MAX_TERMS);
    let terms = state.manager.topic(&id, n)?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "crawl": id.as_str(), "terms": terms })))
}

/// The adopted relaxations of an open crawl; 409 when the crawl is not open.
pub async fn relaxations(
    id: web::Path<String>,
    query: web::Query<RelaxationsQuery>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let host = query.into_inner().host.filter(|h| !h.is_empty());
    let list = state.manager.relaxations(&id, host).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "crawl": id.as_str(), "relaxations": list })))
}

/// Body of `POST /api/v1/crawls/{id}/block`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockBody {
    /// A regular expression matched against URLs (anywhere in the URL; anchor it with `^`).
    pub pattern: String,
}

/// The body of `block` and `unblock`, bounded; a bad field is a 400 naming it.
async fn block_body(req: &HttpRequest, payload: web::Payload) -> Result<BlockBody, WebError> {
    let raw = super::read_capped(req, payload, MAX_BLOCK_BODY).await?;
    let de = &mut serde_json::Deserializer::from_slice(&raw);
    serde_path_to_error::deserialize(de).map_err(|e| WebError::BadParameter {
        name: e.path().to_string(),
        reason: e.inner().to_string(),
    })
}

/// Blacklists every URL matching a pattern, queued now or found later; answers how many queued
/// URLs left the frontier. A bad pattern is a 400 naming `pattern`.
pub async fn block(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    state.manager.get(&id)?;
    let body = block_body(&req, payload).await?;
    let report = state.manager.block(&id, body.pattern).await?;
    Ok(HttpResponse::Ok().json(report))
}

/// Stops blocking a pattern (`{"pattern": ...}`, exactly as it was blocked): URLs it matches are
/// queued again when found; those it already blacklisted stay blacklisted. Answers the pattern
/// and how many are left; a pattern not in force is a 400 naming `pattern`.
pub async fn unblock(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    state.manager.get(&id)?;
    let body = block_body(&req, payload).await?;
    let left = state.manager.unblock(&id, body.pattern.clone()).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "pattern": body.pattern, "patterns": left })))
}

/// Largest body of a block request.
const MAX_BLOCK_BODY: usize = 64 * 1024;
