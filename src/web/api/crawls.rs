//! `/api/v1/crawls`: create, list and inspect crawls, and move them through their lifecycle
//! (start, pause, resume, stop).

use super::read_capped;
use crate::manager::{CrawlState, CrawlView};
use crate::spec::{RawSpec, Spec};
use crate::web::error::WebError;
use crate::web::{AppState, MAX_SPEC_BYTES};
use actix_web::{http::header, web, HttpRequest, HttpResponse};
use serde::Serialize;
use serde_json::json;
use std::time::Duration;

/// One crawl with the spec it runs with (defaults filled in).
#[derive(Serialize)]
struct CrawlDetail<'a> {
    #[serde(flatten)]
    view: CrawlView,
    spec: &'a RawSpec,
}

/// `POST /api/v1/crawls`'s query.
#[derive(serde::Deserialize)]
struct CreateQuery {
    /// Read the seeds' robots.txt before answering.
    #[serde(default)]
    check_robots: bool,
}

/// `POST /api/v1/crawls`: the body is a crawl spec; the crawl is created in state `created`.
pub async fn create(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let body = read_capped(&req, payload, MAX_SPEC_BYTES).await?;
    let text = std::str::from_utf8(&body)
        .map_err(|e| WebError::BadRequest(format!("the spec is not UTF-8: {e}")))?;
    let spec = Spec::from_json(text)?;
    // Said with the answer, not refused: a seed may be meant for a later change of the spec.
    let mut seeds = crate::manager::check_seeds(&spec);
    // `?check_robots=true` reads the seeds' robots.txt too; it goes on the network, so only
    // when asked.
    let check_robots = web::Query::<CreateQuery>::from_query(req.query_string())
        .map_err(|e| WebError::BadRequest(format!("query: {e}")))?
        .check_robots;
    if check_robots {
        let (s, dir) = (spec.clone(), state.manager.data().to_path_buf());
        seeds = state
            .on_crawl_runtime(async move {
                crate::manager::check_robots(&s, &dir, &mut seeds).await;
                seeds
            })
            .await?;
    }
    let warnings: Vec<String> = seeds
        .iter()
        .flat_map(|s| s.problems.iter().map(move |p| format!("{}: {p}", s.url)))
        .collect();
    let manager = state.manager.clone();
    let id = state
        .on_crawl_runtime(async move { manager.create(spec).await })
        .await??;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/crawls/{id}")))
        .json(json!({ "id": id, "seeds": seeds, "warnings": warnings })))
}

/// `GET /api/v1/crawls`: every crawl with its state and live statistics.
pub async fn list(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "crawls": state.manager.list(),
        "unopened": state.manager.unopened(),
    }))
}

/// `GET /api/v1/crawls/{id}`: one crawl, its statistics and its spec.
pub async fn get(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let view = state.manager.get(&id)?;
    let spec = state.manager.spec(&id)?;
    Ok(HttpResponse::Ok().json(CrawlDetail {
        view,
        spec: spec.written(),
    }))
}

fn moved(id: &str, state: CrawlState) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "id": id, "state": state }))
}

/// `POST /api/v1/crawls/{id}/start`: a created or paused crawl fetches; a finished or failed
/// one runs again from its stored state (what was fetched stays fetched).
pub async fn start(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let (manager, crawl) = (state.manager.clone(), id.clone());
    let now = state
        .on_crawl_runtime(async move { manager.start(&crawl) })
        .await??;
    Ok(moved(&id, now))
}

/// `POST /api/v1/crawls/{id}/pause`: fetches in flight finish, nothing new starts.
pub async fn pause(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    Ok(moved(&id, state.manager.pause(&id)?))
}

/// `POST /api/v1/crawls/{id}/resume`: a paused crawl fetches again.
pub async fn resume(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    Ok(moved(&id, state.manager.resume(&id)?))
}

/// `POST /api/v1/crawls/{id}/stop`: ends the crawl and seals its WARC files. Answers 200 with
/// the final state once that is done, or 202 with the current state if it takes longer than
/// the configured wait (poll `GET /api/v1/crawls/{id}`).
pub async fn stop(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    state.manager.stop(&id, "api")?;
    let deadline = tokio::time::Instant::now() + state.config.stop_wait;
    loop {
        let now = state.manager.get(&id)?.state;
        if matches!(now, CrawlState::Finished | CrawlState::Failed) {
            return Ok(moved(&id, now));
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(
                HttpResponse::Accepted().json(json!({ "id": *id, "state": now, "stopping": true }))
            );
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// `POST /api/v1/crawls/{id}/rerun`: runs the crawl's spec again as a new crawl (named
/// `WORKFLOW-2`, `-3`, ...), recorded as a run of the same workflow, and starts it; the old
/// crawl is left as it is. Answers 201 with the new crawl.
pub async fn rerun(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let (manager, crawl) = (state.manager.clone(), id.clone());
    let new = state
        .on_crawl_runtime(async move { manager.run_again(&crawl) })
        .await??;
    let view = state.manager.get(&new)?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/crawls/{new}")))
        .json(view))
}

/// `GET /api/v1/workflows`: every workflow (a spec and the crawls that ran it), with its runs.
pub async fn workflows(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "workflows": state.manager.workflows() }))
}
