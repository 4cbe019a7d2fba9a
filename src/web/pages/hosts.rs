//! The hosts page (`/crawls/{id}/hosts`), the per-host report: per host, what the crawl log
//! says was done (responses, bytes, statuses by class, failed fetches, refusals), what the
//! capture index holds (captures, mean relevance, pages over the threshold, the application
//! detected), and while the crawl is open its politeness state from the frontier (queued, the
//! delay in force and why, how robots.txt applies). The log and the index outlive the crawl,
//! so a finished crawl's hosts keep their figures. Each row links to the host's captures in
//! search and export, its log lines and (while open) its queue. Below, the application-aware
//! helper's learned relaxations, and the copy rules learned there (URL variants serving a page
//! already fetched), each with its evidence.

use super::frontier::explain;
use super::{fmt_bytes, fmt_ms, render, urlencode, Chrome, PageError};
use crate::crawl::log_reader::HostTally;
use crate::index::HostCaptures;
use crate::manager::ManagerError;
use crate::web::reports::reports;
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use askama::Template;

/// Hosts listed at most (busiest first).
pub const MAX_HOSTS: usize = crate::web::reports::MAX_HOST_ROWS;

/// What the frontier says of a host while the crawl is open.
pub struct Live {
    /// Resolved address.
    pub ip: String,
    /// URLs queued.
    pub queued: u64,
    /// The delay in force, for people.
    pub delay: String,
    /// Why.
    pub why: String,
    /// How robots.txt applies.
    pub robots: String,
    /// Its queue in the frontier inspector.
    pub href: String,
}

/// One host row.
pub struct HostRow {
    /// The host key.
    pub host: String,
    /// From the crawl log.
    pub log: HostTally,
    /// Bytes received, for people.
    pub bytes: String,
    /// From the index.
    pub index: Option<HostCaptures>,
    /// Mean relevance, three decimals, or empty.
    pub relevance: String,
    /// The application detected.
    pub app: Option<String>,
    /// From the frontier, while the crawl is open.
    pub live: Option<Live>,
    /// Its captures in search.
    pub search: String,
    /// Its captures in the export form.
    pub export: String,
    /// Its lines in the log viewer.
    pub log_href: String,
}

#[derive(Template)]
#[template(path = "hosts.html")]
struct HostsPage {
    chrome: Chrome,
    closed: Option<String>,
    policy: String,
    hosts: Vec<HostRow>,
    more: usize,
    index_note: Option<String>,
    threshold: Option<f32>,
    reports_href: String,
    relaxations: Vec<crate::aah::Adoption>,
    copy_rules: Vec<crate::crawl::copies::CopyRule>,
}

/// `GET /crawls/{id}/hosts`.
pub async fn page(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let spec = state.manager.spec(&id)?;
    let p = &spec.frontier.politeness;
    let ms = |d: std::time::Duration| fmt_ms(d.as_millis() as u64);
    let policy = format!(
        "Pause between fetches from one host: {} × the last fetch's duration, at least {} and at most {}; {} per host at a time. robots.txt is {}.",
        p.delay_factor,
        ms(p.min_delay),
        ms(p.max_delay),
        p.max_parallel_per_host,
        if spec.politeness.respect_robots { "obeyed" } else { "ignored (the spec says so)" }
    );
    let enc = urlencode(&id);
    let frontier = format!("/crawls/{enc}/frontier");
    let (live, closed) = match state.manager.frontier(&id, 1, None).await {
        Ok(v) => (v.hosts, None),
        Err(ManagerError::WrongState { state, .. }) => (
            vec![],
            Some(format!(
                "The crawl is {}: its host queues are closed, so there is no politeness state; \
                 the figures below are read from the crawl log and the capture index.",
                super::state_name(state)
            )),
        ),
        Err(e) => return Err(e.into()),
    };
    let report = reports(&state, &id).await?;
    let respect = spec.politeness.respect_robots;
    let view = state.manager.get(&id)?;
    let (apps, copy_rules) = (view.focus.host_apps, view.stats.copy_rules);
    // Closed crawls cannot be asked; their host queues are reported closed above.
    let relaxations = state
        .manager
        .relaxations(&id, None)
        .await
        .unwrap_or_default();
    let mut live: std::collections::HashMap<String, Live> = live
        .into_iter()
        .map(|h| {
            let l = Live {
                ip: h.ip.map(|i| i.to_string()).unwrap_or_default(),
                queued: h.queued,
                delay: fmt_ms(h.wait_ms),
                why: explain(h.wait, h.crawl_delay_ms),
                robots: match (respect, h.crawl_delay_ms) {
                    (false, _) => "ignored".into(),
                    (true, Some(d)) => format!("obeyed; Crawl-delay {}", fmt_ms(d)),
                    (true, None) => "obeyed; no Crawl-delay".into(),
                },
                href: format!("{frontier}?host={}", urlencode(&h.host)),
            };
            (h.host, l)
        })
        .collect();
    let row = |host: String, log: HostTally, index: Option<HostCaptures>, live: Option<Live>| {
        let h = urlencode(&host);
        HostRow {
            bytes: fmt_bytes(log.bytes as f64),
            relevance: index
                .as_ref()
                .and_then(|c| c.mean_relevance)
                .map_or_else(String::new, |r| format!("{r:.3}")),
            app: index
                .as_ref()
                .and_then(|c| c.app.clone())
                .or_else(|| apps.get(&host).cloned()),
            search: format!("/crawls/{enc}/search?host={h}"),
            export: format!("/crawls/{enc}/export?host={h}"),
            log_href: format!("/crawls/{enc}/log?host={h}"),
            host,
            log,
            index,
            live,
        }
    };
    let mut hosts: Vec<HostRow> = report
        .hosts
        .into_iter()
        .map(|r| {
            let l = live.remove(&r.host);
            row(r.host, r.log, r.index, l)
        })
        .collect();
    // Hosts with URLs queued and nothing logged yet.
    let mut waiting: Vec<(String, Live)> = live.into_iter().collect();
    waiting.sort_by(|a, b| b.1.queued.cmp(&a.1.queued).then(a.0.cmp(&b.0)));
    hosts.extend(
        waiting
            .into_iter()
            .map(|(h, l)| row(h, HostTally::default(), None, Some(l))),
    );
    let more = report.more_hosts + hosts.len().saturating_sub(MAX_HOSTS);
    hosts.truncate(MAX_HOSTS);
    let page = HostsPage {
        relaxations,
        copy_rules,
        chrome: Chrome::new(format!("Hosts of {id}"), Some(&id), "hosts"),
        closed,
        policy,
        hosts,
        more,
        index_note: report.index_note,
        threshold: report.threshold,
        reports_href: format!("/crawls/{enc}/reports"),
    };
    render(&page)
}
