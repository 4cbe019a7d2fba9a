//! The intake page (`/crawls/{id}/intake`): how external scorers send scored URLs to this crawl
//! (endpoint, format, an example `curl`), where the API token is found, and the items received
//! so far per source. The token itself is never rendered: a page can be read by whatever
//! reaches the cockpit (a rebound name, another local user), the token file only by its owner.

use super::{render, Chrome, PageError};
use crate::web::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

#[derive(Template)]
#[template(path = "intake.html")]
struct IntakePage {
    chrome: Chrome,
    endpoint: String,
    example: String,
    sources: Vec<(String, u64)>,
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

fn build(req: &HttpRequest, state: &AppState, id: &str) -> Result<IntakePage, PageError> {
    let stats = state.manager.stats(id)?;
    let sources = stats
        .intake
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    // The request's Host, checked by the middleware; never a forwarded header.
    let endpoint = format!("{}/api/v1/urls", state.hosts.own_origin(req));
    Ok(IntakePage {
        chrome: Chrome::new(format!("Intake of {id}"), Some(id), "intake"),
        example: example(&endpoint, id),
        endpoint,
        sources,
    })
}

/// `GET /crawls/{id}/intake`.
pub async fn page(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let page = build(&req, &state, &id)?;
    render(&page)
}
