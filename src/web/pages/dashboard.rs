//! The crawl dashboard (`/crawls/{id}`): the crawl's figures (rates, queue, hosts by state,
//! status classes, errors, harvest ratio) and the relevance chart, rendered at once and then
//! kept live by `cockpit.js` from the crawl's event stream; the last fetches with their score
//! components, the topic's top terms, the language and application mix, the lifecycle buttons,
//! and a log of notable events.

use super::crawls::{buttons, Button};
use super::{fmt_bytes, render, state_name, urlencode, Chrome, PageError};
use crate::crawl::focus::RecentFetch;
use crate::frontier::politeness::WaitReason;
use crate::manager::{CrawlView, TopicTerm};
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use askama::Template;

/// Hosts by what they are doing, from the frontier's host queues.
#[derive(Debug, Default, PartialEq)]
pub struct HostStates {
    /// Ready to fetch or fetching.
    pub active: usize,
    /// Waiting for politeness, robots.txt Crawl-delay, Retry-After or backoff.
    pub waiting: usize,
    /// Nothing queued, or out of budget.
    pub exhausted: usize,
}

/// Counts hosts by state.
pub fn host_states(hosts: &[crate::frontier::host::HostView]) -> HostStates {
    let mut s = HostStates::default();
    for h in hosts {
        match h.wait {
            _ if h.queued == 0 && h.inflight == 0 => s.exhausted += 1,
            WaitReason::BudgetExhausted => s.exhausted += 1,
            WaitReason::Ready | WaitReason::Busy => s.active += 1,
            _ => s.waiting += 1,
        }
    }
    s
}

#[derive(Template)]
#[template(path = "dashboard.html")]
struct DashboardPage {
    chrome: Chrome,
    view: CrawlView,
    state: &'static str,
    href: String,
    copy_href: String,
    buttons: Vec<Button>,
    events_url: String,
    /// The crawl's recent notable events, newest first: the log as it stood before the page
    /// was opened (the event stream adds the later ones).
    events: Vec<crate::crawl::stats::Event>,
    bytes: String,
    bytes_per_second: String,
    warc_bytes: String,
    harvest: String,
    avg_relevance: String,
    chart: super::chart::Chart,
    panels: Panels,
}

/// The panels `cockpit.js` re-renders while the crawl runs, served alone at
/// `/crawls/{id}/panels`: one rendering path for the first view and every update, so what the
/// operator sees live is escaped exactly as the page is.
#[derive(Template)]
#[template(path = "dashboard_panels.html")]
struct PanelsFragment {
    panels: Panels,
}

/// What the live panels show.
pub struct Panels {
    href: String,
    hosts: Option<HostStates>,
    statuses: Vec<(String, u64)>,
    errors: Vec<(String, u64)>,
    recent: Vec<FetchRow>,
    terms: Vec<TopicTerm>,
    languages: Vec<(String, u64)>,
    applications: Vec<(String, u64)>,
}

/// One of the last fetches, formatted.
pub struct FetchRow {
    /// The fetch.
    pub fetch: RecentFetch,
    /// Relevance, or `–` when not analysed.
    pub relevance: String,
    /// Priority it was fetched with.
    pub priority: String,
    /// Score components (document, paragraph, anchor, URL, parent, total), when analysed.
    pub parts: Option<[String; 6]>,
}

/// Topic terms shown.
pub const TOP_TERMS: usize = 20;

fn three(x: f32) -> String {
    format!("{x:.3}")
}

fn fetch_row(f: RecentFetch) -> FetchRow {
    FetchRow {
        relevance: f.relevance.map_or_else(|| "–".into(), three),
        priority: three(f.priority),
        parts: f.components.map(super::score_cells),
        fetch: f,
    }
}

/// A share in [0, 1] as a percentage, `–` before anything was counted.
pub fn pct(x: f64, counted: u64) -> String {
    if counted == 0 {
        "–".into()
    } else {
        format!("{:.1} %", x * 100.0)
    }
}

/// Gathers the live panels of a crawl.
async fn panels(state: &AppState, id: &str, view: &CrawlView) -> Panels {
    // Closed crawls have no host queues in memory; the dashboard then omits host states.
    let hosts = state
        .manager
        .frontier(id, 1, None)
        .await
        .ok()
        .map(|f| host_states(&f.hosts));
    let counts = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter().map(|(k, n)| (k.clone(), *n)).collect::<Vec<_>>()
    };
    let by_count = |m: &std::collections::BTreeMap<String, u64>| {
        let mut v = counts(m);
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    };
    let f = &view.focus;
    Panels {
        href: format!("/crawls/{}", urlencode(id)),
        hosts,
        statuses: counts(&view.stats.responses_by_status),
        errors: counts(&view.stats.errors_by_kind),
        recent: f.recent.iter().cloned().map(fetch_row).collect(),
        terms: state.manager.topic(id, TOP_TERMS).unwrap_or_default(),
        languages: by_count(&f.languages),
        applications: by_count(&f.applications),
    }
}

/// `GET /crawls/{id}`: the dashboard.
pub async fn page(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let view = state.manager.get(&id)?;
    let s = &view.stats;
    let per_second = if s.elapsed_seconds > 0.0 {
        s.bytes_received as f64 / s.elapsed_seconds
    } else {
        0.0
    };
    let f = &view.focus;
    let page = DashboardPage {
        harvest: pct(f.harvest_ratio, f.analysed),
        avg_relevance: if f.analysed == 0 {
            "–".into()
        } else {
            format!("{:.3}", f.avg_relevance)
        },
        chart: super::chart::chart(
            &f.series,
            state
                .manager
                .spec(&id)?
                .analysis
                .as_ref()
                .map(|a| a.scoring.threshold),
        ),
        panels: panels(&state, &id, &view).await,
        chrome: Chrome::new(format!("Crawl {id}"), Some(&id), "dashboard"),
        state: state_name(view.state),
        buttons: buttons(view.state),
        copy_href: format!("/crawls/new?from={}", urlencode(&id)),
        events_url: format!("/crawls/{}/events", urlencode(&id)),
        events: state
            .manager
            .stats(&id)?
            .recent_events()
            .into_iter()
            .rev()
            .collect(),
        bytes: fmt_bytes(s.bytes_received as f64),
        bytes_per_second: fmt_bytes(per_second),
        warc_bytes: fmt_bytes(s.warc_bytes as f64),
        href: format!("/crawls/{}", urlencode(&id)),
        view,
    };
    render(&page)
}

/// `GET /crawls/{id}/panels`: the live panels alone, an HTML fragment for `cockpit.js`.
pub async fn panels_fragment(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let view = state.manager.get(&id)?;
    super::render(&PanelsFragment {
        panels: panels(&state, &id, &view).await,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::host::HostView;

    fn host(queued: u64, wait: WaitReason) -> HostView {
        HostView {
            host: "h".into(),
            queued,
            inflight: 0,
            fetched: 0,
            errors: 0,
            wait,
            wait_ms: 0,
            crawl_delay_ms: None,
            ip: None,
        }
    }

    #[test]
    fn hosts_are_counted_by_state() {
        let hosts = [
            host(3, WaitReason::Ready),
            host(1, WaitReason::AdaptiveDelay),
            host(2, WaitReason::CrawlDelay),
            host(0, WaitReason::Ready),
            host(5, WaitReason::BudgetExhausted),
        ];
        assert_eq!(
            host_states(&hosts),
            HostStates {
                active: 1,
                waiting: 2,
                exhausted: 2
            }
        );
    }
}
