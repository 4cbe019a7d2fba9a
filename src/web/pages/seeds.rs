//! The seeds report (`/crawls/{id}/seeds`): each seed with what would keep it from being fetched
//! (the crawl's scope, the private-address rule: the checks the new-crawl form and
//! `POST /api/v1/crawls` make before the crawl) and, once it ran, what became of it: the
//! status of its capture and the redirects it led through, each step linking to its capture,
//! read from the crawl's index (one lookup per step, as the capture view does). Each seed links
//! to its URL story and its lines in the crawl log.

use super::{render, urlencode, Chrome, PageError};
use crate::index::warc_dir;
use crate::manager::{check_seeds, SeedCheck};
use crate::web::api::{blocking, index_of};
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use askama::Template;

/// Redirects followed from a seed at most.
pub const MAX_STEPS: usize = 6;
/// Record bytes read for a redirect's `Location`.
const HEAD_BYTES: u64 = 64 << 10;

/// One capture on a seed's way: its URL, status and time, and its capture view.
pub struct Step {
    /// The URL fetched.
    pub url: String,
    /// Its HTTP status.
    pub status: u16,
    /// When, RFC 3339.
    pub time: String,
    /// Its capture view.
    pub href: String,
}

/// A seed: its checks, the captures it led to, and a note when there is no capture.
pub struct SeedRow {
    /// The checks before the crawl.
    pub check: SeedCheck,
    /// The seed's capture, then each redirect's target.
    pub steps: Vec<Step>,
    /// Why the way ends where it does (not fetched, no index, too many redirects).
    pub note: Option<String>,
    /// The seed's story (how it was fetched or refused, and why) and its lines in the log.
    pub story: String,
    /// Its lines in the crawl log.
    pub log: String,
}

#[derive(Template)]
#[template(path = "seeds.html")]
struct SeedsPage {
    chrome: Chrome,
    rows: Vec<SeedRow>,
    outcome: crate::manager::Outcome,
    allow_private: bool,
}

/// Follows a seed through the index: its latest capture and, for a redirect, its target's.
fn follow(
    index: &crate::index::Index,
    warcs: &std::path::Path,
    id: &str,
    seed: &str,
) -> Result<(Vec<Step>, Option<String>), crate::index::IndexError> {
    let mut steps = Vec::new();
    let mut url = seed.to_string();
    for _ in 0..MAX_STEPS {
        let Some(c) = index
            .captures_of(&url)?
            .into_iter()
            .filter(|c| c.url == url)
            .max_by_key(|c| c.time)
        else {
            let note = if steps.is_empty() {
                "not archived: refused or failed before a response (see the crawl's errors), \
                 or not fetched yet"
            } else {
                "the redirect's target is not archived (out of scope, refused, or not fetched yet)"
            };
            return Ok((steps, Some(note.into())));
        };
        let time = c.time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        steps.push(Step {
            href: format!(
                "/crawls/{}/capture?url={}&at={}",
                urlencode(id),
                urlencode(&c.url),
                urlencode(&time)
            ),
            url: c.url.clone(),
            status: c.status,
            time,
        });
        if !(300..400).contains(&c.status) {
            return Ok((steps, None));
        }
        let replay = index.capture_at(warcs, &url, Some(c.time), HEAD_BYTES)?;
        let location = replay.head().and_then(|h| {
            h.headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("location"))
                .map(|(_, v)| v.clone())
        });
        let next = location.and_then(|l| url::Url::parse(&url).ok()?.join(&l).ok());
        match next {
            Some(n) => url = n.as_str().to_string(),
            None => return Ok((steps, Some("a redirect without a usable Location".into()))),
        }
    }
    Ok((
        steps,
        Some(format!("more than {MAX_STEPS} redirects in a row")),
    ))
}

/// `GET /crawls/{id}/seeds`.
pub async fn page(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let view = state.manager.get(&id)?;
    let spec = state.manager.spec(&id)?;
    let checks = check_seeds(&spec);
    let seeds: Vec<String> = checks.iter().map(|c| c.url.clone()).collect();
    let ways: Vec<(Vec<Step>, Option<String>)> = match index_of(&state, &id).await {
        Ok(index) => {
            let warcs = warc_dir(state.manager.data(), &id);
            let crawl = id.to_string();
            blocking(move || {
                Ok(seeds
                    .iter()
                    .map(|s| {
                        follow(&index, &warcs, &crawl, s)
                            .unwrap_or_else(|e| (vec![], Some(format!("the index: {e}"))))
                    })
                    .collect())
            })
            .await?
        }
        Err(e) => seeds
            .iter()
            .map(|_| {
                (
                    vec![],
                    Some(format!(
                        "not archived: the crawl has no capture index yet ({e})"
                    )),
                )
            })
            .collect(),
    };
    let rows = checks
        .into_iter()
        .zip(ways)
        .map(|(check, (steps, note))| SeedRow {
            story: format!(
                "/crawls/{}/url?url={}",
                urlencode(&id),
                urlencode(&check.url)
            ),
            log: format!(
                "/crawls/{}/log?url={}",
                urlencode(&id),
                urlencode(&check.url)
            ),
            check,
            steps,
            note,
        })
        .collect();
    render(&SeedsPage {
        chrome: Chrome::new(format!("Seeds of {id}"), Some(&id), "seeds"),
        rows,
        outcome: view.outcome,
        allow_private: spec.allow_private,
    })
}
