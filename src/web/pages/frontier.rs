//! The frontier inspector (`/crawls/{id}/frontier`): the next URLs in fetch order with their
//! priority, source and history, the host queues with why each waits, one host's queue on its
//! own (`?host=`); and `POST` to send a URL a score or blacklist it, which goes through the
//! same scored-URL intake as external scorers (`Manager::intake`, source `cockpit`) and is
//! answered with the priority before and after and the update function that combined them.

use super::{fmt_ms, render, urlencode, Chrome, Form, PageError};
use crate::crawl::block::BlockReport;
use crate::frontier::host::HostView;
use crate::frontier::politeness::WaitReason;
use crate::frontier::view::QueuedUrl;
use crate::intake::ScoredUrl;
use crate::manager::ManagerError;
use crate::web::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

/// URLs shown when no `limit` is given.
pub const DEFAULT_LIMIT: usize = 100;
/// Most URLs shown.
pub const MAX_LIMIT: usize = 1000;
/// The source name the cockpit's intake items carry.
pub const SOURCE: &str = "cockpit";

/// Why a host waits, for people.
pub fn explain(wait: WaitReason, crawl_delay_ms: Option<u64>) -> String {
    match wait {
        WaitReason::Ready => "ready: may be fetched from now".into(),
        WaitReason::AdaptiveDelay => {
            "adaptive politeness pause after its last fetch (delay factor × fetch time)".into()
        }
        WaitReason::CrawlDelay => format!(
            "robots.txt Crawl-delay of {}",
            crawl_delay_ms.map_or_else(|| "?".into(), fmt_ms)
        ),
        WaitReason::RetryAfter => "the server asked for a pause (Retry-After on 429/503)".into(),
        WaitReason::ErrorBackoff => "backing off after errors".into(),
        WaitReason::BudgetExhausted => "max_pages_per_host reached".into(),
        WaitReason::Busy => "as many fetches in flight as allowed".into(),
    }
}

/// Why a host waits, for people, knowing whether the crawl is paused: a paused crawl fetches
/// nothing whatever the host's politeness, and a pause that has run out is no reason to wait.
pub fn explain_in(halted: Option<Halt>, h: &HostView) -> (String, String) {
    let own = explain(h.wait, h.crawl_delay_ms);
    match halted {
        Some(Halt::Paused) if h.queued > 0 => {
            return (
                "paused".into(),
                format!(
                    "the crawl is paused by the operator: nothing is fetched until it is \
                     resumed (then: {own})"
                ),
            )
        }
        Some(Halt::NotStarted) if h.queued > 0 => {
            return (
                "not started".into(),
                format!(
                    "the crawl has not started: nothing is fetched before it does (then: {own})"
                ),
            )
        }
        _ => {}
    }
    let spent = h.wait_ms == 0
        && matches!(
            h.wait,
            WaitReason::AdaptiveDelay
                | WaitReason::CrawlDelay
                | WaitReason::RetryAfter
                | WaitReason::ErrorBackoff
        );
    if spent {
        return (
            "now".into(),
            format!("ready: its last pause ({own}) has passed"),
        );
    }
    (fmt_ms(h.wait_ms), own)
}

/// Why a crawl with a frontier fetches nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// Paused by the operator.
    Paused,
    /// Created, not started (its frontier opened for a view or intake).
    NotStarted,
}

/// A hop path in words (`MLE`: listed in a sitemap, then a link, then a page requisite); the
/// seed itself has an empty path.
pub fn hops_in_words(hops: &str) -> String {
    if hops.is_empty() {
        return "a seed (no hop)".into();
    }
    hops.chars()
        .map(|c| match crate::model::Hop::from_code(c) {
            Some(crate::model::Hop::Link) => "L: a link".to_string(),
            Some(crate::model::Hop::Embed) => "E: a page requisite (embed)".to_string(),
            Some(crate::model::Hop::Redirect) => "R: a redirect".to_string(),
            Some(crate::model::Hop::Prerequisite) => "P: a prerequisite (robots.txt)".to_string(),
            Some(crate::model::Hop::Sitemap) => "M: a sitemap".to_string(),
            None => format!("{c}: unknown"),
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

/// A host row.
pub struct HostRow {
    /// The queue.
    pub view: HostView,
    /// Link to its own queue.
    pub href: String,
    /// Why it waits, for people.
    pub why: String,
    /// How long, for people.
    pub wait: String,
}

/// A URL row.
pub struct UrlRow {
    /// The queued URL.
    pub url: QueuedUrl,
    /// Priority, two decimals.
    pub priority: String,
    /// ETA, for people.
    pub eta: String,
    /// Cells of the latest analysis score's breakdown, when it has one.
    pub parts: Option<[String; 6]>,
    /// Its hop path in words.
    pub hops_words: String,
    /// Why it waits where it is.
    pub why: String,
}

#[derive(Template)]
#[template(path = "frontier.html")]
struct FrontierPage {
    chrome: Chrome,
    action: String,
    host: Option<String>,
    limit: usize,
    closed: Option<String>,
    urls: Vec<UrlRow>,
    hosts: Vec<HostRow>,
    /// The blocked URL patterns in force.
    patterns: Vec<String>,
    /// A pattern just removed, and how many are left.
    unblocked: Option<(String, usize)>,
    steered: Option<super::steer::Steered>,
    blocked: Option<BlockReport>,
    /// Why the last form was refused (a pattern that does not compile, a score out of range),
    /// shown on the page with what was typed.
    error: Option<String>,
    /// The pattern typed in the blacklist form, kept when it is refused.
    pattern: String,
    /// The crawl's update function and what it does.
    update: &'static str,
    update_help: &'static str,
    /// Why the crawl fetches nothing now, if it does not (said above the queues).
    halted: Option<Halt>,
    /// `frontier.balance_per_queue` and `politeness.min_delay_ms`, for the order explained.
    balance: u32,
    min_delay: String,
}

async fn build(
    state: &AppState,
    id: &str,
    limit: usize,
    host: Option<String>,
    steered: Option<super::steer::Steered>,
) -> Result<FrontierPage, PageError> {
    let spec = state.manager.spec(id)?;
    let update = spec.update;
    let halted = match state.manager.get(id)?.state {
        crate::manager::CrawlState::Paused => Some(Halt::Paused),
        crate::manager::CrawlState::Created => Some(Halt::NotStarted),
        _ => None,
    };
    let action = format!("/crawls/{}/frontier", urlencode(id));
    let chrome = Chrome::new(format!("Frontier of {id}"), Some(id), "frontier");
    let (urls, hosts, patterns, closed) =
        match state.manager.frontier(id, limit, host.clone()).await {
            Ok(v) => (v.urls, v.hosts, v.blocked, None),
            Err(ManagerError::WrongState { state, .. }) => (
                vec![],
                vec![],
                vec![],
                Some(format!(
                    "The crawl is {}: its frontier is closed. Run it again to inspect its queues.",
                    super::state_name(state)
                )),
            ),
            Err(e) => return Err(e.into()),
        };
    let waits: std::collections::HashMap<String, (WaitReason, u64)> = hosts
        .iter()
        .map(|h| (h.host.clone(), (h.wait, h.wait_ms)))
        .collect();
    let hosts = hosts
        .into_iter()
        .map(|h| {
            let (wait, why) = explain_in(halted, &h);
            HostRow {
                href: format!("{action}?host={}", urlencode(&h.host)),
                why,
                wait,
                view: h,
            }
        })
        .collect();
    // Per URL: the URLs of its host ahead of it, and what its host waits for.
    let mut ahead: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let urls = urls
        .into_iter()
        .map(|u| {
            let before = ahead.entry(u.host.clone()).or_insert(0);
            let n = *before;
            *before += 1;
            let why = match waits.get(&u.host) {
                _ if halted == Some(Halt::Paused) => "the crawl is paused".to_string(),
                _ if halted.is_some() => "the crawl has not started".to_string(),
                _ if n > 0 => {
                    format!("{n} URL(s) of its host go first (politeness: one at a time)")
                }
                Some((WaitReason::Ready, _)) | None => "next of its host; the host is ready".into(),
                Some((WaitReason::Busy, _)) => {
                    "next of its host, which has a fetch in flight".into()
                }
                Some((_, 0)) => "next of its host; the host is ready".into(),
                Some((w, _)) => format!("next of its host, which waits: {}", explain(*w, None)),
            };
            UrlRow {
                priority: format!("{:.3}", u.priority),
                eta: match halted {
                    Some(Halt::Paused) => "paused".into(),
                    Some(Halt::NotStarted) => "not started".into(),
                    None => fmt_ms(u.eta_ms),
                },
                parts: u.parts.map(super::score_cells),
                hops_words: hops_in_words(&u.hops),
                why,
                url: u,
            }
        })
        .collect();
    Ok(FrontierPage {
        chrome,
        action,
        host,
        limit,
        closed,
        urls,
        hosts,
        patterns,
        unblocked: None,
        steered,
        blocked: None,
        error: None,
        pattern: String::new(),
        update: super::steer::update_name(update),
        update_help: super::steer::update_help(update),
        halted,
        balance: spec.frontier.balance_per_queue,
        min_delay: fmt_ms(spec.frontier.politeness.min_delay.as_millis() as u64),
    })
}

/// `GET /crawls/{id}/frontier[?limit=N][&host=H]`.
pub async fn page(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    state.manager.get(&id)?;
    let q = super::Params::of(&req, &["limit", "host"])?;
    let limit = q
        .parse::<usize>("limit", "a whole number")?
        .unwrap_or(DEFAULT_LIMIT)
        .clamp(1, MAX_LIMIT);
    let host = q.get("host").map(str::to_string);
    let page = build(&state, &id, limit, host, None).await?;
    render(&page)
}

/// `POST /crawls/{id}/frontier`: `op=priority` with `url` and `score` in [0, 1], or
/// `op=blacklist` with `url` (both through the scored-URL intake, answered with its report),
/// `op=block` with `pattern` (blacklist every URL a regular expression matches), or
/// `op=unblock` with `pattern` (stop blocking it).
pub async fn steer(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let body = super::form_body(&req, payload).await?;
    let form = Form::read(&req, &state, &body)?;
    state.manager.get(&id)?;
    let host = form
        .get("host")
        .filter(|h| !h.is_empty())
        .map(str::to_string);
    match apply(&state, &id, &form, host.clone()).await {
        // What the operator typed and can fix is said on the inspector, the pattern kept.
        Err(e) if e.is_users() => {
            let mut page = build(&state, &id, DEFAULT_LIMIT, host, None).await?;
            page.error = Some(crate::web::error::redact(&e.to_string()));
            if form.get("op") == Some("block") {
                page.pattern = form.get("pattern").unwrap_or_default().to_string();
            }
            let status = actix_web::ResponseError::status_code(&e);
            super::render_status(&page, status)
        }
        r => r,
    }
}

/// Applies a checked steering form and renders the inspector with what it did.
async fn apply(
    state: &AppState,
    id: &str,
    form: &Form,
    host: Option<String>,
) -> Result<HttpResponse, PageError> {
    if form.required("op")? == "unblock" {
        // Exactly as blocked: not trimmed.
        let pattern = form
            .get("pattern")
            .filter(|p| !p.is_empty())
            .ok_or_else(|| PageError::field("pattern", "is required"))?
            .to_string();
        let left = match state.manager.unblock(id, pattern.clone()).await {
            Ok(n) => n,
            Err(ManagerError::Refused(r)) => match r.field() {
                Some(field) => return Err(PageError::field(field, r.reason())),
                None => return Err(ManagerError::Refused(r).into()),
            },
            Err(e) => return Err(e.into()),
        };
        let mut page = build(state, id, DEFAULT_LIMIT, host, None).await?;
        page.unblocked = Some((pattern, left));
        return render(&page);
    }
    if form.required("op")? == "block" {
        let pattern = form.required("pattern")?.to_string();
        let blocked = match state.manager.block(id, pattern).await {
            Ok(r) => r,
            Err(ManagerError::Refused(r)) => match r.field() {
                Some(field) => return Err(PageError::field(field, r.reason())),
                None => return Err(ManagerError::Refused(r).into()),
            },
            Err(e) => return Err(e.into()),
        };
        let mut page = build(state, id, DEFAULT_LIMIT, host, None).await?;
        page.blocked = Some(blocked);
        return render(&page);
    }
    let url = form.required("url")?.to_string();
    let (score, blacklist) = match form.required("op")? {
        "blacklist" => (None, true),
        "priority" => {
            let text = form.required("score")?;
            let score = text
                .parse::<f64>()
                .ok()
                .filter(|s| (0.0..=1.0).contains(s))
                .ok_or_else(|| {
                    PageError::field(
                        "score",
                        format!("{text:?} (for {url}) is not a number from 0 to 1"),
                    )
                })?;
            (Some(score), false)
        }
        other => {
            return Err(PageError::field(
                "op",
                format!("{other:?} is not priority, blacklist, block or unblock"),
            ))
        }
    };
    let item = ScoredUrl {
        crawl_id: id.to_string(),
        url,
        score,
        blacklist,
        source: Some(SOURCE.into()),
        via: None,
    };
    let steered = super::steer::apply(state, id, vec![item]).await?;
    let page = build(state, id, DEFAULT_LIMIT, host, Some(steered)).await?;
    render(&page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paused_crawl_says_it_is_paused_and_spent_pauses_are_not_reasons() {
        let h = HostView {
            host: "h".into(),
            queued: 3,
            inflight: 0,
            fetched: 0,
            errors: 0,
            wait: WaitReason::AdaptiveDelay,
            wait_ms: 0,
            crawl_delay_ms: None,
            ip: None,
        };
        let (wait, why) = explain_in(Some(Halt::Paused), &h);
        assert_eq!(wait, "paused");
        assert!(why.starts_with("the crawl is paused"), "{why}");
        let (wait, why) = explain_in(None, &h);
        assert_eq!(wait, "now");
        assert!(why.starts_with("ready: its last pause"), "{why}");
        let busy = HostView { wait_ms: 1500, ..h };
        assert_eq!(explain_in(None, &busy).0, "1.5 s");
        assert_eq!(explain_in(Some(Halt::NotStarted), &busy).0, "not started");
    }

    #[test]
    fn hop_paths_read_as_words() {
        assert_eq!(hops_in_words(""), "a seed (no hop)");
        assert_eq!(
            hops_in_words("MLE"),
            "M: a sitemap → L: a link → E: a page requisite (embed)"
        );
    }

    #[test]
    fn waits_are_explained() {
        assert!(explain(WaitReason::CrawlDelay, Some(5000)).contains("5.0 s"));
        assert!(explain(WaitReason::BudgetExhausted, None).contains("max_pages_per_host"));
    }
}
