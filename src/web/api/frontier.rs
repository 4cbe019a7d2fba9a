//! `GET /api/v1/crawls/{id}/frontier`: the next URLs in fetch order and the host queues, with
//! when each host may next be fetched from and why it waits.

use crate::frontier::host::HostView;
use crate::frontier::view::QueuedUrl;
use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

/// URLs listed when no `limit` is given.
pub const DEFAULT_LIMIT: usize = 100;
/// Most URLs listed; larger limits are lowered to this.
pub const MAX_LIMIT: usize = 10_000;

/// Longest wait shown as a time (a year); a longer one would be a bug elsewhere.
const MAX_WAIT_MS: u64 = 365 * 24 * 3600 * 1000;

/// Query parameters.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrontierQuery {
    /// How many URLs (default 100, at most 10,000).
    pub limit: Option<usize>,
    /// Only this host (its host key, `host[:port]`).
    pub host: Option<String>,
}

/// One host queue: what the frontier knows of the host, and when it may next be fetched from.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "HostQueue")]
pub(crate) struct HostOut {
    #[serde(flatten)]
    view: HostView,
    /// The wall-clock time the host may next be fetched from (RFC 3339, UTC).
    #[schemars(extend("format" = "date-time"))]
    next_fetch_at: String,
}

/// The frontier of a crawl: its next URLs in fetch order and its host queues.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "Frontier")]
pub(crate) struct FrontierOut {
    /// The crawl id.
    crawl: String,
    /// The next URLs, in the order they would be fetched.
    urls: Vec<QueuedUrl>,
    /// The host queues (one host only when `host` is given).
    hosts: Vec<HostOut>,
    /// The URL patterns blocked in this crawl (`POST .../block`), in the order they were added.
    blocked: Vec<String>,
}

/// Answers the frontier view of an open (created, running or paused) crawl; 409 otherwise.
pub async fn get(
    id: web::Path<String>,
    query: web::Query<FrontierQuery>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let FrontierQuery { limit, host } = query.into_inner();
    let limit = limit.unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT);
    let host = host.filter(|h| !h.is_empty());
    let view = state.manager.frontier(&id, limit, host).await?;
    let now = chrono::Utc::now();
    let hosts = view
        .hosts
        .into_iter()
        .map(|h| {
            // Waits are bounded (an hour at most); the cap only keeps the sum in range.
            let wait = chrono::TimeDelta::milliseconds(h.wait_ms.min(MAX_WAIT_MS) as i64);
            let at = now.checked_add_signed(wait).unwrap_or(now);
            HostOut {
                next_fetch_at: at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                view: h,
            }
        })
        .collect();
    Ok(HttpResponse::Ok().json(FrontierOut {
        crawl: id.into_inner(),
        urls: view.urls,
        hosts,
        blocked: view.blocked,
    }))
}
