//! The reports page (`/crawls/{id}/reports`): the crawl's responses per media type and its
//! lines per status code (negative codes: fetches without an answer and refusals), counted
//! from the crawl log, each row linking to the captures it selects in search and export (by
//! the index's `mime:` and `status:` fields) and to its lines in the log viewer; with links to
//! the per-host report (the hosts page) and the seeds report. The same figures as
//! `GET /api/v1/crawls/{id}/reports`, during the crawl and after it.

use super::{fmt_bytes, render, urlencode, Chrome, PageError};
use crate::web::reports::{reports, GroupReport};
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use askama::Template;

/// One row: the group, its figures, and where it leads.
pub struct Row {
    /// The media type or status code.
    pub group: GroupReport,
    /// Bytes, for people.
    pub bytes: String,
    /// Its captures in search and export (none for what the index cannot select).
    pub select: Option<(String, String)>,
    /// Its lines in the log viewer.
    pub log: String,
}

#[derive(Template)]
#[template(path = "reports.html")]
struct ReportsPage {
    chrome: Chrome,
    log_lines: u64,
    unreadable: u64,
    hosts: usize,
    links: Vec<(&'static str, String)>,
    mimes: Vec<Row>,
    statuses: Vec<Row>,
}

/// `GET /crawls/{id}/reports`.
pub async fn page(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let r = reports(&state, &id).await?;
    let enc = urlencode(&id);
    let select = |q: String| {
        let q = urlencode(&q);
        (
            format!("/crawls/{enc}/search?q={q}"),
            format!("/crawls/{enc}/export?q={q}"),
        )
    };
    let other = crate::crawl::log_reader::OTHER;
    let mimes = r
        .mime_types
        .into_iter()
        .map(|g| Row {
            bytes: fmt_bytes(g.tally.bytes as f64),
            select: (g.key != "(none)" && g.key != other)
                .then(|| select(format!("mime:\"{}\"", g.key.replace('"', "")))),
            log: format!("/crawls/{enc}/log?mime={}", urlencode(&g.key)),
            group: g,
        })
        .collect();
    let statuses = r
        .status_codes
        .into_iter()
        .map(|g| {
            let code = g.key.parse::<i32>().ok();
            Row {
                bytes: fmt_bytes(g.tally.bytes as f64),
                select: code
                    .filter(|c| *c > 0)
                    .map(|c| select(format!("status:{c}"))),
                log: format!("/crawls/{enc}/log?status={}", urlencode(&g.key)),
                group: g,
            }
        })
        .collect();
    render(&ReportsPage {
        chrome: Chrome::new(format!("Reports of {id}"), Some(&id), "reports"),
        log_lines: r.log_lines,
        unreadable: r.unreadable_lines,
        hosts: r.hosts.len() + r.more_hosts,
        links: vec![
            ("Per host", format!("/crawls/{enc}/hosts")),
            ("Seeds", format!("/crawls/{enc}/seeds")),
            ("Crawl log", format!("/crawls/{enc}/log")),
        ],
        mimes,
        statuses,
    })
}
