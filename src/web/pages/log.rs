//! The log viewer (`/crawls/{id}/log`): the crawl log's lines, newest first, across its rotated
//! files, filtered by status (a code, a class, `refused`, `failed`), host, part of the URL,
//! last hop, source, reason (part of an annotation) and media type, a page at a time. Pages
//! follow each other by a position in the log (`before=FILE:OFFSET`), never by reading the
//! log from its start: each page reads backwards from its position until it has `limit`
//! lines or has read [`SCAN_BUDGET`] bytes (then it says so and offers to go on). Each URL
//! leads to its story.

use super::{render, urlencode, Chrome, PageError, Params};
use crate::crawl::log_reader::{
    log_files, page_back, status_meaning, Cursor, Filter, Shown, StatusFilter,
};
use crate::web::api::blocking;
use crate::web::reports::log_dir;
use crate::web::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

/// Bytes of log one page reads at most.
pub const SCAN_BUDGET: u64 = 64 << 20;
/// Lines per page when `limit` is not given, and at most.
pub const DEFAULT_LIMIT: usize = 100;
/// Most lines per page.
pub const MAX_LIMIT: usize = 1000;

const KEYS: [&str; 9] = [
    "status", "host", "url", "hop", "source", "reason", "mime", "before", "limit",
];

/// A line as shown.
pub struct LineRow {
    /// The line.
    pub line: Shown,
    /// What its status means (negative codes).
    pub meaning: &'static str,
    /// The URL's story.
    pub story: String,
    /// The story of the page it was found on.
    pub via_story: Option<String>,
}

#[derive(Template)]
#[template(path = "log.html")]
struct LogPage {
    chrome: Chrome,
    form: Vec<(&'static str, String)>,
    files: Vec<(String, u64)>,
    rows: Vec<LineRow>,
    older: Option<String>,
    newest: Option<String>,
    budget_spent: bool,
    scanned: String,
    too_long: u64,
    unreadable: u64,
    story_action: String,
}

/// `GET /crawls/{id}/log`.
pub async fn page(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    state.manager.get(&id)?;
    let params = Params::of(&req, &KEYS)?;
    let filter = Filter {
        status: params
            .get("status")
            .map(StatusFilter::parse)
            .transpose()
            .map_err(|e| PageError::field("status", e))?,
        host: params.get("host").map(str::to_string),
        url: params.get("url").map(str::to_string),
        hop: params.get("hop").map(str::to_string),
        source: params.get("source").map(str::to_string),
        reason: params.get("reason").map(str::to_string),
        mime: params.get("mime").map(str::to_string),
    };
    let limit = params
        .parse::<usize>("limit", "a number of lines")?
        .unwrap_or(DEFAULT_LIMIT)
        .clamp(1, MAX_LIMIT);
    let before = params
        .get("before")
        .map(Cursor::parse)
        .transpose()
        .map_err(|e| PageError::field("before", e.to_string()))?;
    let dir = log_dir(state.manager.data(), &id);
    let (files, page) = blocking(move || {
        let files = log_files(&dir)?;
        let page = page_back(&files, before.as_ref(), &filter, limit, SCAN_BUDGET)?;
        Ok((files, page))
    })
    .await
    .map_err(|e| match e {
        crate::web::error::WebError::BadParameter { name, reason } => {
            PageError::field(name, reason)
        }
        e => PageError::Web(e),
    })?;
    let enc = urlencode(&id);
    let story = |u: &str| format!("/crawls/{enc}/url?url={}", urlencode(u));
    // The address of this page with the same filters and another position.
    let here = |before: Option<&str>| {
        let mut q: Vec<String> = KEYS
            .iter()
            .filter(|k| **k != "before")
            .filter_map(|k| params.get(k).map(|v| format!("{k}={}", urlencode(v))))
            .collect();
        if let Some(b) = before {
            q.push(format!("before={}", urlencode(b)));
        }
        format!("/crawls/{enc}/log?{}", q.join("&"))
    };
    let rows = page
        .lines
        .into_iter()
        .map(|line| LineRow {
            meaning: status_meaning(line.entry.status).unwrap_or(""),
            story: story(&line.entry.url),
            via_story: line.entry.via.as_deref().map(story),
            line,
        })
        .collect();
    render(&LogPage {
        chrome: Chrome::new(format!("Crawl log of {id}"), Some(&id), "log"),
        form: KEYS
            .iter()
            .filter(|k| **k != "before")
            .map(|k| (*k, params.get(k).unwrap_or_default().to_string()))
            .collect(),
        files: files.iter().map(|f| (f.name.clone(), f.len)).collect(),
        rows,
        older: page.older.map(|c| here(Some(&c.to_string()))),
        newest: params.get("before").map(|_| here(None)),
        budget_spent: page.budget_spent,
        scanned: super::fmt_bytes(page.scanned as f64),
        too_long: page.too_long,
        unreadable: page.unreadable,
        story_action: format!("/crawls/{enc}/url"),
    })
}
