//! The home page (`/`): every crawl with its outcome (completed, limit reached, stopped, failed,
//! no seed reachable, with the reason), pages fetched, rate, harvest ratio and queue, and the
//! lifecycle buttons; and `POST /crawls/{id}/action`, which those buttons submit. Stop asks
//! first: a stop ends the run, so the form answers with a confirmation page unless it says
//! `confirm=yes`.

use super::{local_path, render, see_other, Chrome, Form, PageError};
use crate::manager::{CrawlState, CrawlView};
use crate::web::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

/// One row of the crawl table.
pub struct Row {
    /// The crawl as the API lists it.
    pub view: CrawlView,
    /// Its path-safe id.
    pub href: String,
    /// Its state's name.
    pub state: &'static str,
    /// Why it is in its state, for a crawl that is not simply running or created.
    pub why: Option<String>,
    /// Pages per second of this run, formatted.
    pub rate: String,
    /// Relevant / analysed pages, formatted.
    pub harvest: String,
    /// Bytes received, formatted.
    pub bytes: String,
    /// The lifecycle actions its state allows: (action, label).
    pub actions: Vec<(&'static str, &'static str)>,
}

#[derive(Template)]
#[template(path = "crawls.html")]
struct CrawlsPage {
    chrome: Chrome,
    rows: Vec<Row>,
    /// Crawl folders whose spec could not be read.
    unopened: Vec<crate::manager::Unopened>,
}

#[derive(Template)]
#[template(path = "confirm_stop.html")]
struct ConfirmStop {
    chrome: Chrome,
    view: CrawlView,
    href: String,
    next: String,
}

/// A lifecycle button of the dashboard: rendered for every state, shown only in the states it
/// applies to, so `cockpit.js` can follow the crawl's state without a reload.
pub struct Button {
    /// The action posted (`start`, `pause`, `resume`, `stop`, `rerun`).
    pub action: &'static str,
    /// The element id (`action-start`, `action-rerun`, ...).
    pub id: &'static str,
    /// Its label.
    pub label: &'static str,
    /// The states it applies to, space-separated (`data-states`).
    pub states: &'static str,
    /// Whether it applies now.
    pub shown: bool,
}

/// Every lifecycle button, each marked with whether it applies to a crawl in `state`.
pub fn buttons(state: CrawlState) -> Vec<Button> {
    let name = super::state_name(state);
    [
        ("start", "action-start", "Start", "created"),
        ("rerun", "action-rerun", "Run again", "finished failed"),
        ("pause", "action-pause", "Pause", "running"),
        ("resume", "action-resume", "Resume", "paused"),
        ("stop", "action-stop", "Stop", "running paused"),
    ]
    .into_iter()
    .map(|(action, id, label, states)| Button {
        action,
        id,
        label,
        states,
        shown: states.split(' ').any(|s| s == name),
    })
    .collect()
}
/// The lifecycle actions a crawl in `state` offers.
pub fn actions_for(state: CrawlState) -> Vec<(&'static str, &'static str)> {
    match state {
        CrawlState::Created => vec![("start", "Start")],
        CrawlState::Running => vec![("pause", "Pause"), ("stop", "Stop")],
        CrawlState::Paused => vec![("resume", "Resume"), ("stop", "Stop")],
        CrawlState::Finished | CrawlState::Failed => vec![("rerun", "Run again")],
    }
}

/// A table row for one crawl.
pub fn row(view: CrawlView) -> Row {
    Row {
        href: format!("/crawls/{}", super::urlencode(&view.id)),
        state: super::state_name(view.state),
        why: match view.state {
            CrawlState::Running | CrawlState::Created => None,
            _ => Some(view.outcome.reason.clone()),
        },
        rate: format!("{:.2}", view.stats.pages_per_second),
        harvest: super::dashboard::pct(view.focus.harvest_ratio, view.focus.analysed),
        bytes: super::fmt_bytes(view.stats.bytes_received as f64),
        actions: actions_for(view.state),
        view,
    }
}

/// `GET /`: the crawl table.
pub async fn page(state: web::Data<AppState>) -> Result<HttpResponse, PageError> {
    let rows = state.manager.list().into_iter().map(row).collect();
    let chrome = Chrome::new("Crawls", None, "crawls");
    let unopened = state.manager.unopened();
    let page = CrawlsPage {
        chrome,
        rows,
        unopened,
    };
    render(&page)
}

/// `POST /crawls/{id}/action`: `action` is `start`, `pause`, `resume` or `stop`, then back to
/// the page the form was on; or `rerun` ("Run again": a new crawl of the same spec, a run of the
/// same workflow, started), then to the new crawl's dashboard.
pub async fn action(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let body = super::form_body(&req, payload).await?;
    let form = Form::read(&req, &state, &body)?;
    let id = id.into_inner();
    match form.required("action")? {
        "start" => {
            let (manager, crawl) = (state.manager.clone(), id.clone());
            state
                .on_crawl_runtime(async move { manager.start(&crawl) })
                .await??;
        }
        "rerun" => {
            let (manager, crawl) = (state.manager.clone(), id.clone());
            let new = state
                .on_crawl_runtime(async move { manager.run_again(&crawl) })
                .await??;
            return Ok(see_other(&format!("/crawls/{}", super::urlencode(&new))));
        }
        "pause" => {
            state.manager.pause(&id)?;
        }
        "resume" => {
            state.manager.resume(&id)?;
        }
        "stop" if form.get("confirm") != Some("yes") => {
            let view = state.manager.get(&id)?;
            let href = format!("/crawls/{}", super::urlencode(&id));
            let page = ConfirmStop {
                chrome: Chrome::new(format!("Stop {id}?"), Some(&id), "dashboard"),
                next: local_path(form.get("next")).to_string(),
                href,
                view,
            };
            return super::render(&page);
        }
        "stop" => {
            state.manager.stop(&id, "cockpit")?;
        }
        other => {
            return Err(PageError::field(
                "action",
                format!("{other:?} is not one of start, pause, resume, stop, rerun"),
            ))
        }
    }
    Ok(see_other(local_path(form.get("next"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_followed() {
        assert_eq!(local_path(Some("/crawls/a")), "/crawls/a");
        assert_eq!(local_path(Some("//evil.example/")), "/");
        assert_eq!(local_path(Some("https://evil.example/")), "/");
        assert_eq!(local_path(Some("/\\evil.example")), "/");
        // Browsers drop tabs and line breaks: `/<TAB>/evil.example` is `//evil.example`.
        for sneaky in [
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r\n/x",
            "/ /evil.example",
        ] {
            assert_eq!(local_path(Some(sneaky)), "/", "{sneaky:?}");
        }
        assert_eq!(local_path(None), "/");
    }

    #[test]
    fn each_button_shows_in_its_states_only() {
        let shown = |s| {
            buttons(s)
                .into_iter()
                .filter(|b| b.shown)
                .map(|b| b.id)
                .collect::<Vec<_>>()
        };
        assert_eq!(shown(CrawlState::Created), ["action-start"]);
        assert_eq!(shown(CrawlState::Running), ["action-pause", "action-stop"]);
        assert_eq!(shown(CrawlState::Paused), ["action-resume", "action-stop"]);
        assert_eq!(shown(CrawlState::Finished), ["action-rerun"]);
        assert_eq!(shown(CrawlState::Failed), ["action-rerun"]);
    }

    #[test]
    fn each_state_offers_its_actions() {
        assert_eq!(actions_for(CrawlState::Created), vec![("start", "Start")]);
        assert!(actions_for(CrawlState::Running).contains(&("pause", "Pause")));
        assert!(actions_for(CrawlState::Paused).contains(&("resume", "Resume")));
        assert_eq!(
            actions_for(CrawlState::Finished),
            vec![("rerun", "Run again")]
        );
    }
}
