//! The URL story (`/crawls/{id}/url?url=`): for one URL, everything the crawl knows of it, in
//! time order: how it was found (the page and the hop that led to it, who queued it), how it
//! was scored (the outlink score the analysis of the page it was found on gave it), each
//! attempt at it from the crawl log (fetched with its status, failed and why, refused and by
//! which rule), each capture archived (with its capture view), where a redirect led, and while
//! the crawl is open its place in the frontier (priority, scores received, source, hop path,
//! the page it came from, the estimated wait) and the blocked patterns that match it.
//!
//! Sources: the crawl log read backwards, at most [`SCAN_BUDGET`] bytes (the page says when
//! it stopped there); the capture index; the analysis record of the finding page's latest
//! capture; the host's queue (its first 1,000 entries).

use super::capture::{outlinks, ANALYSIS};
use super::{fmt_ms, render, score_cells, urlencode, Chrome, PageError, Params};
use crate::crawl::log_reader::{log_files, scan_back, status_class, status_meaning, Entry};
use crate::frontier::view::QueuedUrl;
use crate::index::{metadata_records, warc_dir, CaptureRef};
use crate::manager::ManagerError;
use crate::web::api::{blocking, index_of};
use crate::web::reports::log_dir;
use crate::web::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use chrono::{DateTime, Utc};

/// Bytes of log read for one URL at most.
pub const SCAN_BUDGET: u64 = 256 << 20;
/// Log lines of one URL kept at most (the newest).
pub const MAX_LINES: usize = 500;
/// Entries of the URL's host queue looked through.
pub const QUEUE_LOOKUP: usize = 1000;
/// Record bytes read for a redirect's `Location`.
const HEAD_BYTES: u64 = 64 << 10;

/// One step of the story.
pub struct Step {
    /// When (RFC 3339, UTC), or empty for "now".
    pub time: String,
    /// What happened: `found`, `scored`, `fetched`, `failed`, `refused`, `archived`,
    /// `redirected`, `queued`, `blocked`.
    pub what: &'static str,
    /// In words.
    pub detail: String,
    /// A link: (label, address).
    pub link: Option<(String, String)>,
    /// Where it goes: how the URL was found comes first (it happened before the line that
    /// dates it was written), then the rest by time.
    sort: (bool, Option<DateTime<Utc>>),
}

/// The hop code in words.
fn hop_word(h: &str) -> &'static str {
    match h {
        "L" => "a link",
        "E" => "an embed (page requisite)",
        "R" => "a redirect",
        "M" => "a sitemap",
        "P" => "a prerequisite (robots.txt)",
        "seed" => "a seed",
        _ => "an unknown hop",
    }
}

#[derive(Template)]
#[template(path = "url_story.html")]
struct StoryPage {
    chrome: Chrome,
    url: String,
    steps: Vec<Step>,
    notes: Vec<String>,
    log_href: String,
    captures: usize,
}

/// The score a link got: when its page was analysed, its hop, its six components.
type LinkScore = (DateTime<Utc>, String, [String; 6]);

/// What is read off the connection threads.
struct Found {
    lines: Vec<Entry>,
    log_incomplete: bool,
    captures: Vec<CaptureRef>,
    redirects: Vec<(CaptureRef, Option<String>)>,
    score: Option<LinkScore>,
    notes: Vec<String>,
}

fn parse_time(t: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The start of a fetch, from the log's fetch column (`YYYYMMDDHHMMSSmmm+ms`).
fn fetch_start(fetch: Option<&str>) -> Option<DateTime<Utc>> {
    let (start, _) = fetch?.split_once('+')?;
    chrono::NaiveDateTime::parse_from_str(start, "%Y%m%d%H%M%S%3f")
        .ok()
        .map(|t| t.and_utc())
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The URL's lines, oldest first, and whether the walk stopped before the log's start.
fn log_lines(dir: &std::path::Path, url: &str) -> Result<(Vec<Entry>, bool), PageError> {
    let files = log_files(dir).map_err(crate::web::error::WebError::from)?;
    let mut budget = SCAN_BUDGET;
    let mut lines = Vec::new();
    let mut incomplete = false;
    for f in files.iter().rev() {
        let stopped = scan_back(&f.path, f.len, &mut budget, |(_, text)| {
            if let Some(e) = text
                .filter(|t| t.contains(url))
                .and_then(Entry::parse)
                .filter(|e| e.url == url)
            {
                lines.push(e);
            }
            lines.len() < MAX_LINES
        })
        .map_err(crate::web::error::WebError::from)?;
        if stopped.is_some() {
            incomplete = true;
            break;
        }
    }
    lines.reverse();
    Ok((lines, incomplete))
}

/// The score the analysis of `via`'s latest capture gave the link to `url`.
fn score_from(
    index: &crate::index::Index,
    warcs: &std::path::Path,
    via: &str,
    url: &str,
) -> Result<Option<LinkScore>, crate::index::IndexError> {
    let Some(c) = index
        .captures_of(via)?
        .into_iter()
        .filter(|c| c.url == via)
        .max_by_key(|c| c.time)
    else {
        return Ok(None);
    };
    let records = metadata_records(warcs, &c)?;
    let Some(analysis) = records
        .iter()
        .find(|m| m.is(ANALYSIS))
        .and_then(|m| m.json.clone())
    else {
        return Ok(None);
    };
    Ok(outlinks(&analysis)
        .into_iter()
        .find(|o| o.url == url)
        .map(|o| {
            let parts: [String; 6] =
                std::array::from_fn(|i| o.parts.get(i).cloned().unwrap_or_default());
            (c.time, o.hop, parts)
        }))
}

/// `GET /crawls/{id}/url?url=`.
pub async fn page(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let params = Params::of(&req, &["url"])?;
    let url = params
        .get("url")
        .ok_or_else(|| PageError::field("url", "is required"))?
        .to_string();
    let parsed = url::Url::parse(&url)
        .map_err(|e| PageError::field("url", format!("{url:?} is not an absolute URL: {e}")))?;
    let host = crate::uri::host_key(&parsed);
    state.manager.get(&id)?;
    // The frontier, while the crawl is open: the URL's entry in its host's queue, and the
    // blocked patterns.
    let (queued, blocked, frontier_note) =
        match state
            .manager
            .frontier(&id, QUEUE_LOOKUP, Some(host.clone()))
            .await
        {
            Ok(v) => {
                let q: Option<QueuedUrl> = v.urls.into_iter().find(|u| u.url == url);
                let matching: Vec<String> = v
                    .blocked
                    .into_iter()
                    .filter(|p| crate::crawl::block::compile(p).is_ok_and(|r| r.is_match(&url)))
                    .collect();
                (q, matching, None)
            }
            Err(ManagerError::WrongState { state, .. }) => (
                None,
                vec![],
                Some(format!(
                    "The crawl is {}: its frontier is closed, so whether the URL is still queued is not known.",
                    super::state_name(state)
                )),
            ),
            Err(e) => return Err(e.into()),
        };
    let index = index_of(&state, &id).await;
    let dir = log_dir(state.manager.data(), &id);
    let warcs = warc_dir(state.manager.data(), &id);
    let (u, q_via) = (url.clone(), queued.as_ref().and_then(|q| q.via.clone()));
    let found = blocking(move || {
        let (lines, log_incomplete) = log_lines(&dir, &u).map_err(|e| match e {
            PageError::Web(w) => w,
            e => crate::web::error::WebError::Internal(e.to_string()),
        })?;
        let mut notes = Vec::new();
        let (mut captures, mut redirects, mut score) = (vec![], vec![], None);
        match index {
            Ok(index) => {
                captures = index
                    .captures_of(&u)?
                    .into_iter()
                    .filter(|c| c.url == u)
                    .collect();
                for c in captures.iter().filter(|c| (300..400).contains(&c.status)) {
                    let r = index.capture_at(&warcs, &u, Some(c.time), HEAD_BYTES)?;
                    let to = r
                        .head()
                        .and_then(|h| {
                            h.headers
                                .iter()
                                .find(|(k, _)| k.eq_ignore_ascii_case("location"))
                                .map(|(_, v)| v.clone())
                        })
                        .and_then(|l| url::Url::parse(&u).ok()?.join(&l).ok())
                        .map(|t| t.to_string());
                    redirects.push((c.clone(), to));
                }
                let via = lines.iter().find_map(|l| l.via.clone()).or(q_via);
                if let Some(via) = via {
                    score = score_from(&index, &warcs, &via, &u)?;
                }
            }
            Err(e) => notes.push(format!("No capture index: {e}")),
        }
        Ok(Found {
            lines,
            log_incomplete,
            captures,
            redirects,
            score,
            notes,
        })
    })
    .await?;
    let enc = urlencode(&id);
    let story = |u: &str| format!("/crawls/{enc}/url?url={}", urlencode(u));
    let mut steps: Vec<Step> = Vec::new();
    let mut step = |time: Option<DateTime<Utc>>, what, detail: String, link| {
        steps.push(Step {
            time: time.map(rfc3339).unwrap_or_default(),
            what,
            detail,
            link,
            sort: (what != "found", time),
        })
    };
    // How it was found: the first line that says, else its queue entry.
    let first = found.lines.first();
    let origin = first
        .map(|l| {
            (
                l.hops.clone(),
                l.via.clone(),
                l.source.clone(),
                parse_time(&l.time),
            )
        })
        .or_else(|| {
            queued
                .as_ref()
                .map(|q| (q.hops.clone(), q.via.clone(), q.source.clone(), None))
        });
    if let Some((hops, via, source, time)) = origin {
        let last = hops
            .chars()
            .last()
            .map_or("seed".to_string(), |c| c.to_string());
        let detail = match &via {
            Some(v) => format!(
                "on {v} through {} (hop path {}), queued by {source}",
                hop_word(&last),
                if hops.is_empty() { "-" } else { &hops }
            ),
            None if hops.is_empty() => format!("a seed of the crawl (source {source})"),
            None => format!(
                "through {} (hop path {hops}), queued by {source}",
                hop_word(&last)
            ),
        };
        let detail = if time.is_some() {
            format!("{detail}; the time is its first line in the crawl log")
        } else {
            detail
        };
        step(
            time,
            "found",
            detail,
            via.as_deref().map(|v| ("its story".to_string(), story(v))),
        );
    }
    if let Some((t, hop, p)) = &found.score {
        step(
            Some(*t),
            "scored",
            format!(
                "the analysis of the page it was found on gave it (found there through {}) a score of {} (document {}, paragraph {}, anchor {}, URL {}, parent {})",
                hop_word(hop), p[5], p[0], p[1], p[2], p[3], p[4]
            ),
            None,
        );
    }
    for l in &found.lines {
        // A fetch is dated by its start (its line is written once it is archived).
        let t = fetch_start(l.fetch.as_deref()).or_else(|| parse_time(&l.time));
        let notes = if l.notes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", l.notes.join(", "))
        };
        match status_class(l.status) {
            "refused" => step(
                t,
                "refused",
                format!(
                    "{} ({}){notes}: never fetched in this crawl",
                    status_meaning(l.status).unwrap_or("refused"),
                    l.status
                ),
                None,
            ),
            "failed" => step(
                t,
                "failed",
                format!(
                    "{} ({}){notes}",
                    status_meaning(l.status).unwrap_or("no answer"),
                    l.status
                ),
                None,
            ),
            _ => step(
                t,
                "fetched",
                format!(
                    "HTTP {}{}{}{}{notes}",
                    l.status,
                    l.mime
                        .as_deref()
                        .map(|m| format!(", {m}"))
                        .unwrap_or_default(),
                    l.size.map(|s| format!(", {s} bytes")).unwrap_or_default(),
                    l.fetch
                        .as_deref()
                        .and_then(|f| f.rsplit_once('+'))
                        .map(|(_, ms)| format!(" in {ms} ms"))
                        .unwrap_or_default()
                ),
                None,
            ),
        }
    }
    for c in &found.captures {
        let time = c.time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        step(
            Some(c.time),
            "archived",
            format!(
                "{} capture, status {}, {}, record {} in {}",
                if c.revisit_of.is_some() {
                    "revisit"
                } else {
                    "a"
                },
                c.status,
                c.mime,
                c.record_id,
                c.location.file
            ),
            Some((
                "capture view".to_string(),
                format!(
                    "/crawls/{enc}/capture?url={}&at={}",
                    urlencode(&c.url),
                    urlencode(&time)
                ),
            )),
        );
    }
    for (c, to) in &found.redirects {
        match to {
            Some(to) => step(
                Some(c.time),
                "redirected",
                format!("status {} to {to}", c.status),
                Some(("its story".to_string(), story(to))),
            ),
            None => step(
                Some(c.time),
                "redirected",
                format!("status {} without a usable Location", c.status),
                None,
            ),
        }
    }
    steps.sort_by_key(|s| s.sort);
    // What holds now comes last.
    let mut now: Vec<Step> = Vec::new();
    if let Some(q) = &queued {
        let parts = q
            .parts
            .map(|p| {
                let c = score_cells(p);
                format!(
                    "; its latest analysis score: document {}, paragraph {}, anchor {}, URL {}, parent {}, total {}",
                    c[0], c[1], c[2], c[3], c[4], c[5]
                )
            })
            .unwrap_or_default();
        now.push(Step {
            time: String::new(),
            what: "queued",
            detail: format!(
                "waiting in its host's queue: priority {:.3}, {} score(s) received, seen {} time(s), source {}, hop path {}, {} failed attempt(s), about {} to its fetch (politeness only){parts}",
                q.priority,
                q.scores,
                q.discovered,
                q.source,
                if q.hops.is_empty() { "-" } else { &q.hops },
                q.retries,
                fmt_ms(q.eta_ms)
            ),
            link: Some((
                "its host's queue".to_string(),
                format!("/crawls/{enc}/frontier?host={}", urlencode(&host)),
            )),
            sort: (true, None),
        });
    }
    for p in &blocked {
        now.push(Step {
            time: String::new(),
            what: "blocked",
            detail: format!("matches the blocked pattern {p}: it is not queued or fetched while the pattern is in force"),
            link: None,
            sort: (true, None),
        });
    }
    steps.extend(now);
    let mut notes = found.notes;
    if found.log_incomplete {
        notes.push(format!(
            "The crawl log was read back {} MiB (or {MAX_LINES} lines of this URL) and not further: older lines are not shown.",
            SCAN_BUDGET >> 20
        ));
    }
    if let Some(n) = frontier_note {
        notes.push(n);
    }
    if steps.is_empty() {
        notes.push(
            "The crawl knows nothing of this URL: it was never found, queued, refused or fetched (or only while the crawl log was not kept).".into(),
        );
    }
    render(&StoryPage {
        chrome: Chrome::new(format!("Story of {url}"), Some(&id), "log"),
        log_href: format!("/crawls/{enc}/log?url={}", urlencode(&url)),
        captures: found.captures.len(),
        url,
        steps,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetches_are_dated_by_their_start() {
        let t = fetch_start(Some("20261125182000100+23")).unwrap();
        assert_eq!(rfc3339(t), "2026-11-25T18:20:00.100Z");
        assert_eq!(fetch_start(Some("garbage+1")), None);
        assert_eq!(fetch_start(None), None);
        assert_eq!(hop_word("R"), "a redirect");
    }
}
