//! Crawl workflows: a saved spec and its runs. "Run again" makes a new crawl (a new name, the
//! same spec) instead of resuming the old one, and records in the new crawl's `status.json` the
//! workflow it belongs to: the crawl whose spec was first run. A crawl that names no workflow is
//! its own, so every crawl made before workflows existed is a workflow with one run.

use super::CrawlView;
use serde::Serialize;
use std::collections::BTreeMap;

/// A workflow as the API lists it: its spec's seeds and every run, oldest first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[schemars(rename = "Workflow")]
pub struct WorkflowView {
    /// The workflow's id: the name of its first crawl.
    pub id: String,
    /// The seeds of its spec (every run has the same spec, its name aside).
    pub seeds: Vec<String>,
    /// The spec's topic keywords, if any.
    pub keywords: Vec<String>,
    /// Every run, oldest first (by creation time, then name).
    pub runs: Vec<CrawlView>,
}

/// Largest run number tried for a new run's name before giving up.
const MAX_RUNS: u32 = 100_000;

/// Longest crawl name (the spec's rule).
const MAX_NAME: usize = 64;

/// The names a new run of `workflow` may take, in order: `WORKFLOW-2`, `WORKFLOW-3`, ...; the
/// workflow's name is cut (at a character boundary, names being ASCII) so that each fits the
/// 64 characters a crawl name may have.
pub(super) fn run_names(workflow: &str) -> impl Iterator<Item = String> + '_ {
    (2..=MAX_RUNS).map(move |n| {
        let suffix = format!("-{n}");
        let keep = MAX_NAME.saturating_sub(suffix.len()).min(workflow.len());
        let mut cut = keep;
        while !workflow.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}{suffix}", &workflow[..cut])
    })
}

/// A crawl as [`group`] takes it.
pub(super) struct Run {
    /// The crawl.
    pub(super) view: CrawlView,
    /// The workflow its status names (`None`: its own).
    pub(super) workflow: Option<String>,
    /// Its spec's seeds.
    pub(super) seeds: Vec<String>,
    /// Its spec's topic keywords.
    pub(super) keywords: Vec<String>,
}

/// Groups crawls into workflows; `seeds` and `keywords` give each workflow's spec summary from
/// one of its runs.
pub(super) fn group(crawls: Vec<Run>) -> Vec<WorkflowView> {
    let mut by_id: BTreeMap<String, WorkflowView> = BTreeMap::new();
    for Run {
        view,
        workflow,
        seeds,
        keywords,
    } in crawls
    {
        let id = workflow.unwrap_or_else(|| view.id.clone());
        let w = by_id.entry(id.clone()).or_insert_with(|| WorkflowView {
            id,
            seeds,
            keywords,
            runs: vec![],
        });
        w.runs.push(view);
    }
    let mut out: Vec<WorkflowView> = by_id.into_values().collect();
    for w in &mut out {
        // RFC 3339 times in UTC with seconds sort as text; crawls without one come first.
        w.runs
            .sort_by(|a, b| (&a.created, &a.id).cmp(&(&b.created, &b.id)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_names_count_up_and_fit_the_name_rule() {
        let names: Vec<String> = run_names("birds").take(3).collect();
        assert_eq!(names, ["birds-2", "birds-3", "birds-4"]);
        let long = "x".repeat(64);
        let first = run_names(&long).next().unwrap();
        assert_eq!(first.len(), 64);
        assert!(first.ends_with("x-2"));
        let tenth = run_names(&long).nth(8).unwrap();
        assert_eq!((tenth.len(), tenth.ends_with("-10")), (64, true));
    }
}
