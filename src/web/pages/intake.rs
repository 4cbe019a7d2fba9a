//! The intake page (`/crawls/{id}/intake`): how external scorers send scored URLs to this crawl
//! (endpoint, format, an example `curl`), the API token revealed on request (a POST with the
//! anti-forgery token, so no other site can make the page show it), and the items received so
//! far per source.

use super::{render, Chrome, Form, PageError};
use crate::web::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

#[derive(Template)]
#[template(path = "intake.html")]
struct IntakePage {
    chrome: Chrome,
    action: String,
    endpoint: String,
    example: String,
    sources: Vec<(String, u64)>,
    token: Option<String>,
}

/// Builds the example request for a crawl.
pub fn example(endpoint: &str, crawl: &str) -> String {
    let line = serde_json::json!({
        "crawl_id": crawl,
        "url": "https://example.org/page",
        "score": 0.8,
        "source": "my-ranker"
    });
    format!(
        "curl -X POST {endpoint} \\\n  -H \"Authorization: Bearer $MAGPIE_TOKEN\" \\\n  -H 'Content-Type: application/x-ndjson' \\\n  --data-binary @- <<'EOF'\n{line}\nEOF"
    )
}

fn build(
    req: &HttpRequest,
    state: &AppState,
    id: &str,
    token: Option<String>,
) -> Result<IntakePage, PageError> {
    let stats = state.manager.stats(id)?;
    let sources = stats
        .intake
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    let info = req.connection_info();
    let endpoint = format!("{}://{}/api/v1/urls", info.scheme(), info.host());
    Ok(IntakePage {
        chrome: Chrome::new(req, state, format!("Intake of {id}"), Some(id), "intake"),
        action: format!("/crawls/{}/intake", super::urlencode(id)),
        example: example(&endpoint, id),
        endpoint,
        sources,
        token,
    })
}

/// `GET /crawls/{id}/intake`.
pub async fn page(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let page = build(&req, &state, &id, None)?;
    render(&page, &page.chrome)
}

/// `POST /crawls/{id}/intake`: the same page with the API token shown.
pub async fn reveal(
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    Form::read(&req, &state, &body)?;
    let page = build(&req, &state, &id, Some(state.config.token.clone()))?;
    render(&page, &page.chrome)
}
