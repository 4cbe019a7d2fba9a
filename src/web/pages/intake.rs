//! The intake page (`/crawls/{id}/intake`): a form that sends scored URLs to this crawl (lines of
//! `URL SCORE [SOURCE]` or `URL blacklist`) through the same intake as the API, answered with a
//! report per item (the priority before and after, the update function); how external scorers
//! send them (endpoint, format, an example `curl`); where the API token is found; and the items
//! received so far per source. The token itself is never rendered: a page can be read by
//! whatever reaches the cockpit (a rebound name, another local user), the token file only by its
//! owner.

use super::{render, render_status, Chrome, Form, PageError};
use crate::intake::ScoredUrl;
use crate::web::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

/// Most lines one form takes (each is looked up in the frontier before and after).
pub const MAX_LINES: usize = 1000;

#[derive(Template)]
#[template(path = "intake.html")]
struct IntakePage {
    chrome: Chrome,
    action: String,
    endpoint: String,
    example: String,
    sources: Vec<(String, u64)>,
    /// The data folder the server runs on, and its token file.
    data: String,
    token_file: String,
    /// The form as typed (kept when it is refused).
    lines: String,
    source: String,
    /// Why the form was refused, naming the line.
    error: Option<String>,
    steered: Option<super::steer::Steered>,
}

/// Reads the intake form's lines into scored URLs for crawl `id`: `URL SCORE [SOURCE]` or
/// `URL blacklist [SOURCE]`, blank lines and `#` comments skipped; `source` is the default
/// source. A line that cannot be read is an error naming it, and nothing is applied (as a
/// malformed API body applies nothing); what the intake checks (the score's range, the URL,
/// the scope, the source token) is reported per item.
pub fn parse_lines(id: &str, text: &str, source: &str) -> Result<Vec<ScoredUrl>, String> {
    let mut items = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = n + 1;
        if items.len() == MAX_LINES {
            return Err(format!("line {at}: at most {MAX_LINES} URLs at once"));
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (url, what, src) = match words.as_slice() {
            [url, what] => (*url, *what, source),
            [url, what, src] => (*url, *what, *src),
            [_] => {
                return Err(format!(
                    "line {at}: a score (0 to 1) or \"blacklist\" must follow the URL"
                ))
            }
            _ => {
                return Err(format!(
                    "line {at}: {} words; a line is URL SCORE [SOURCE] or URL blacklist [SOURCE]",
                    words.len()
                ))
            }
        };
        let (score, blacklist) = if what.eq_ignore_ascii_case("blacklist") {
            (None, true)
        } else {
            let s = what.parse::<f64>().map_err(|_| {
                format!("line {at}: {what:?} is not a score from 0 to 1 or \"blacklist\"")
            })?;
            (Some(s), false)
        };
        items.push(ScoredUrl {
            crawl_id: id.to_string(),
            url: url.to_string(),
            score,
            blacklist,
            source: (!src.is_empty()).then(|| src.to_string()),
            via: None,
        });
    }
    if items.is_empty() {
        return Err("lines: no URL given".into());
    }
    Ok(items)
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
    let data = state.manager.data();
    let data = std::fs::canonicalize(data).unwrap_or_else(|_| data.to_path_buf());
    Ok(IntakePage {
        chrome: Chrome::new(format!("Intake of {id}"), Some(id), "intake"),
        action: format!("/crawls/{}/intake", super::urlencode(id)),
        example: example(&endpoint, id),
        endpoint,
        sources,
        token_file: data.join(crate::web::cli::TOKEN_FILE).display().to_string(),
        data: data.display().to_string(),
        lines: String::new(),
        source: super::frontier::SOURCE.to_string(),
        error: None,
        steered: None,
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

/// `POST /crawls/{id}/intake`: `lines` (one scored URL a line) and `source` (the default
/// source, `cockpit`). Answered with the page and a report per item; a line that cannot be
/// read is shown on the page (400) with the form as typed, and nothing is applied.
pub async fn submit(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let body = super::form_body(&req, payload).await?;
    let form = Form::read(&req, &state, &body)?;
    let mut page = build(&req, &state, &id)?;
    page.lines = form.get("lines").unwrap_or_default().to_string();
    page.source = form.get("source").unwrap_or_default().trim().to_string();
    let source = if page.source.is_empty() {
        super::frontier::SOURCE
    } else {
        page.source.as_str()
    };
    match parse_lines(&id, &page.lines, source) {
        Ok(items) => {
            page.steered = Some(super::steer::apply(&state, &id, items).await?);
            // Counts by source include this request now.
            page.sources = build(&req, &state, &id)?.sources;
            render(&page)
        }
        Err(e) => {
            page.error = Some(e);
            render_status(&page, StatusCode::BAD_REQUEST)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_or_refused_naming_the_line() {
        let items = parse_lines(
            "c",
            "# boosts\nhttp://a.example/x 0.9\n\nhttp://a.example/y blacklist\nhttp://a.example/z 0.2 ranker-2\n",
            "cockpit",
        )
        .unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(
            (items[0].score, items[0].source.as_deref()),
            (Some(0.9), Some("cockpit"))
        );
        assert!(items[1].blacklist && items[1].score.is_none());
        assert_eq!(items[2].source.as_deref(), Some("ranker-2"));
        let e = parse_lines("c", "http://a/ 0.5\nhttp://b/ high\n", "cockpit").unwrap_err();
        assert!(e.starts_with("line 2: \"high\" is not a score"), "{e}");
        let e = parse_lines("c", "http://a/\n", "cockpit").unwrap_err();
        assert!(e.starts_with("line 1:"), "{e}");
        let e = parse_lines("c", "http://a/ 1 x y\n", "cockpit").unwrap_err();
        assert!(e.contains("4 words"), "{e}");
        assert!(parse_lines("c", " \n# only\n", "cockpit").is_err());
    }
}
