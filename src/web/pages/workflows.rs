//! The workflows page (`/workflows`): every saved spec with its runs. "Run again" on a crawl
//! makes a new crawl of the same spec (a run of the same workflow); this page lists each
//! workflow's runs, oldest first, with their outcome, pages and creation time, and runs the
//! workflow again from its latest run.

use super::crawls::{row, Row};
use super::{render, urlencode, Chrome, PageError};
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use askama::Template;

/// One workflow as the page shows it.
pub struct WorkflowRow {
    /// The workflow's id (its first crawl's name).
    pub id: String,
    /// Its spec's seeds.
    pub seeds: Vec<String>,
    /// Its topic keywords, joined.
    pub keywords: String,
    /// Its runs, oldest first.
    pub runs: Vec<Row>,
    /// The path the Run again form posts to (the latest run's action).
    pub rerun: String,
    /// Where "Copy spec" starts the new-crawl form from.
    pub copy: String,
}

#[derive(Template)]
#[template(path = "workflows.html")]
struct WorkflowsPage {
    chrome: Chrome,
    workflows: Vec<WorkflowRow>,
}

/// `GET /workflows`: every workflow and its runs.
pub async fn page(state: web::Data<AppState>) -> Result<HttpResponse, PageError> {
    let workflows = state
        .manager
        .workflows()
        .into_iter()
        .map(|w| {
            let latest = w.runs.last().map_or(w.id.clone(), |r| r.id.clone());
            WorkflowRow {
                rerun: format!("/crawls/{}/action", urlencode(&latest)),
                copy: format!("/crawls/new?from={}", urlencode(&latest)),
                keywords: w.keywords.join(", "),
                seeds: w.seeds,
                runs: w.runs.into_iter().map(row).collect(),
                id: w.id,
            }
        })
        .collect();
    let chrome = Chrome::new("Workflows", None, "workflows");
    render(&WorkflowsPage { chrome, workflows })
}
