//! `GET /api/v1/crawls/{id}/reports` (per host, per media type, per status code; see
//! `web/reports.rs` for the sources) and `GET /api/v1/crawls/{id}/log` (the crawl log's lines,
//! newest first, filtered and paged as the cockpit's log viewer pages them).

use crate::crawl::log_reader::{log_files, page_back, Cursor, Filter, Shown, StatusFilter};
use crate::web::api::{blocking, given};
use crate::web::error::WebError;
use crate::web::pages::log::{DEFAULT_LIMIT, MAX_LIMIT, SCAN_BUDGET};
use crate::web::reports::{log_dir, reports};
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

/// Answers the reports of a crawl (any state).
pub async fn get(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    Ok(HttpResponse::Ok().json(reports(&state, &id).await?))
}

/// The log's query parameters (all optional).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogQuery {
    status: Option<String>,
    host: Option<String>,
    url: Option<String>,
    hop: Option<String>,
    source: Option<String>,
    reason: Option<String>,
    mime: Option<String>,
    before: Option<String>,
    limit: Option<usize>,
}

/// A page of the crawl log.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "LogPage")]
pub(crate) struct LogOut {
    /// The lines, newest first.
    lines: Vec<Shown>,
    /// `before` for the next (older) page; absent at the log's start.
    #[serde(skip_serializing_if = "Option::is_none")]
    older: Option<String>,
    /// Bytes of log read for this page.
    scanned: u64,
    /// Whether the page stopped at its read budget (64 MiB) rather than because it was full.
    budget_spent: bool,
    /// Lines over 16 KiB passed over.
    too_long: u64,
    /// Lines that are not twelve readable columns, passed over.
    unreadable: u64,
}

/// Answers a page of the crawl's log.
pub async fn log(
    id: web::Path<String>,
    query: web::Query<LogQuery>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    state.manager.get(&id)?;
    let q = query.into_inner();
    let filter = Filter {
        status: given(q.status)
            .map(|s| StatusFilter::parse(&s))
            .transpose()
            .map_err(|reason| WebError::BadParameter {
                name: "status".into(),
                reason,
            })?,
        host: given(q.host),
        url: given(q.url),
        hop: given(q.hop),
        source: given(q.source),
        reason: given(q.reason),
        mime: given(q.mime),
    };
    let before = given(q.before).map(|b| Cursor::parse(&b)).transpose()?;
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let dir = log_dir(state.manager.data(), &id);
    let page = blocking(move || {
        let files = log_files(&dir)?;
        Ok(page_back(
            &files,
            before.as_ref(),
            &filter,
            limit,
            SCAN_BUDGET,
        )?)
    })
    .await?;
    Ok(HttpResponse::Ok().json(LogOut {
        lines: page.lines,
        older: page.older.map(|c| c.to_string()),
        scanned: page.scanned,
        budget_spent: page.budget_spent,
        too_long: page.too_long,
        unreadable: page.unreadable,
    }))
}
