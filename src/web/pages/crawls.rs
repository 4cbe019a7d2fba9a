//! The home page (`/`): every crawl with its state, pages fetched, rate, harvest ratio and queue, and the
//! lifecycle buttons; and `POST /crawls/{id}/action`, which those buttons submit.

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
}

/// The lifecycle actions a crawl in `state` offers.
pub fn actions_for(state: CrawlState) -> Vec<(&'static str, &'static str)> {
    match state {
        CrawlState::Created => vec![("start", "Start")],
        CrawlState::Running => vec![("pause", "Pause"), ("stop", "Stop")],
        CrawlState::Paused => vec![("resume", "Resume"), ("stop", "Stop")],
        CrawlState::Finished | CrawlState::Failed => vec![("start", "Run again")],
    }
}

/// A table row for one crawl.
pub fn row(view: CrawlView) -> Row {
    Row {
        href: format!("/crawls/{}", super::urlencode(&view.id)),
        state: super::state_name(view.state),
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
    let page = CrawlsPage { chrome, rows };
    render(&page)
}

/// `POST /crawls/{id}/action`: `action` is `start`, `pause`, `resume` or `stop`; then back to
/// the page the form was on.
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
        "pause" => {
            state.manager.pause(&id)?;
        }
        "resume" => {
            state.manager.resume(&id)?;
        }
        "stop" => {
            state.manager.stop(&id)?;
        }
        other => {
            return Err(PageError::field(
                "action",
                format!("{other:?} is not one of start, pause, resume, stop"),
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
    fn each_state_offers_its_actions() {
        assert_eq!(actions_for(CrawlState::Created), vec![("start", "Start")]);
        assert!(actions_for(CrawlState::Running).contains(&("pause", "Pause")));
        assert!(actions_for(CrawlState::Paused).contains(&("resume", "Resume")));
    }
}
