//! The hosts page (`/crawls/{id}/hosts`): per host, pages fetched, errors, the politeness delay
//! in force and why, how robots.txt applies to it, the web application detected on it, and the
//! patterns the application-aware helper relaxed and adopted there, with their evidence, and the
//! copy rules learned there (URL variants serving a page already fetched), with theirs.

use super::frontier::explain;
use super::{fmt_ms, render, urlencode, Chrome, PageError};
use crate::frontier::host::HostView;
use crate::manager::ManagerError;
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use askama::Template;

/// Hosts listed at most (busiest first).
pub const MAX_HOSTS: usize = 2000;

/// One host row.
pub struct HostRow {
    /// The host's queue.
    pub view: HostView,
    /// Its queue in the frontier inspector.
    pub href: String,
    /// The delay in force, for people.
    pub delay: String,
    /// Why.
    pub why: String,
    /// How robots.txt applies.
    pub robots: String,
    /// The application detected on it.
    pub app: Option<String>,
}

#[derive(Template)]
#[template(path = "hosts.html")]
struct HostsPage {
    chrome: Chrome,
    closed: Option<String>,
    policy: String,
    hosts: Vec<HostRow>,
    more: usize,
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
    let frontier = format!("/crawls/{}/frontier", urlencode(&id));
    let (mut hosts, closed) = match state.manager.frontier(&id, 1, None).await {
        Ok(v) => (v.hosts, None),
        Err(ManagerError::WrongState { state, .. }) => (
            vec![],
            Some(format!(
                "The crawl is {}: its host queues are closed.",
                super::state_name(state)
            )),
        ),
        Err(e) => return Err(e.into()),
    };
    hosts.sort_by(|a, b| b.fetched.cmp(&a.fetched).then(a.host.cmp(&b.host)));
    let more = hosts.len().saturating_sub(MAX_HOSTS);
    hosts.truncate(MAX_HOSTS);
    let respect = spec.politeness.respect_robots;
    let view = state.manager.get(&id)?;
    let (apps, copy_rules) = (view.focus.host_apps, view.stats.copy_rules);
    // Closed crawls cannot be asked; their host queues are reported closed above.
    let relaxations = state
        .manager
        .relaxations(&id, None)
        .await
        .unwrap_or_default();
    let hosts = hosts
        .into_iter()
        .map(|h| HostRow {
            href: format!("{frontier}?host={}", urlencode(&h.host)),
            delay: fmt_ms(h.wait_ms),
            why: explain(h.wait, h.crawl_delay_ms),
            robots: match (respect, h.crawl_delay_ms) {
                (false, _) => "ignored".into(),
                (true, Some(d)) => format!("obeyed; Crawl-delay {}", fmt_ms(d)),
                (true, None) => "obeyed; no Crawl-delay".into(),
            },
            app: apps.get(&h.host).cloned(),
            view: h,
        })
        .collect();
    let page = HostsPage {
        relaxations,
        copy_rules,
        chrome: Chrome::new(format!("Hosts of {id}"), Some(&id), "hosts"),
        closed,
        policy,
        hosts,
        more,
    };
    render(&page)
}
