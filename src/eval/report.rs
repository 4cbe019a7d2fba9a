//! The evaluation report: one row per simulated crawl, rendered as a Markdown table.

use std::fmt;

use super::sim::Measures;
use crate::spec::RawWeights;

/// One simulated crawl in the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `breadth-first`, `best-first`, or the component change (`no anchor`, `with parent`).
    pub strategy: String,
    /// The update function (`-` for breadth-first).
    pub update: String,
    /// Balance per queue.
    pub bl: u32,
    /// The weights of the score components.
    pub weights: RawWeights,
    /// What the crawl achieved.
    pub measures: Measures,
}

/// One web of an evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct WebSummary {
    /// What web it is.
    pub description: String,
    /// Pages in the web.
    pub pages: usize,
    /// Of which on-topic.
    pub on_topic: usize,
    /// Of which targets (on-topic, not seeds).
    pub targets: usize,
    /// Harvest ratio of breadth-first (bl 1) on this web.
    pub breadth_harvest: f64,
    /// Harvest ratio of best-first (AVG, bl 1) on this web.
    pub best_harvest: f64,
}

/// The results of an evaluation: measures averaged over the webs crawled.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The webs crawled.
    pub webs: Vec<WebSummary>,
    /// Pages per crawl.
    pub budget: usize,
    /// The relevance threshold of the `relevant` column.
    pub threshold: f32,
    /// The heaviest terms of the (first web's) topic vector.
    pub top_terms: Vec<(String, f32)>,
    /// One row per configuration.
    pub rows: Vec<Row>,
}

impl Report {
    /// The first row with this strategy, update function and `bl`.
    pub fn row(&self, strategy: &str, update: &str, bl: u32) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.strategy == strategy && r.update == update && r.bl == bl)
    }

    /// Harvest ratio of best-first (AVG, bl 1) over breadth-first (bl 1).
    pub fn best_over_breadth(&self) -> Option<f64> {
        let best = self.row("best-first", "AVG", 1)?.measures.harvest;
        let breadth = self.row("breadth-first", "-", 1)?.measures.harvest;
        (breadth > 0.0).then(|| best / breadth)
    }

    /// The report as Markdown: a summary, then the table.
    pub fn markdown(&self) -> String {
        self.to_string()
    }
}

fn weight(w: f32) -> String {
    if w.fract() == 0.0 {
        format!("{w:.0}")
    } else {
        format!("{w}")
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Budget {} pages per crawl; measures averaged over {} web(s):",
            self.budget,
            self.webs.len()
        )?;
        writeln!(f)?;
        for w in &self.webs {
            writeln!(
                f,
                "- {}: {} targets; harvest ratio breadth-first {:.3}, best-first (AVG) {:.3}",
                w.description, w.targets, w.breadth_harvest, w.best_harvest
            )?;
        }
        writeln!(f)?;
        let terms: Vec<String> = self
            .top_terms
            .iter()
            .map(|(t, w)| format!("{t} {w:.2}"))
            .collect();
        writeln!(f, "Topic vector (heaviest terms): {}.", terms.join(", "))?;
        if let (Some(best), Some(breadth)) = (
            self.row("best-first", "AVG", 1),
            self.row("breadth-first", "-", 1),
        ) {
            let (b, r) = (best.measures.harvest, breadth.measures.harvest);
            if r > 0.0 && b < 1.0 {
                writeln!(
                    f,
                    "Best-first (AVG, bl 1) vs breadth-first (bl 1): harvest ratio {:.2}x, \
                     off-topic fetches {:.2}x fewer.",
                    b / r,
                    (1.0 - r) / (1.0 - b)
                )?;
            }
        }
        writeln!(f)?;
        writeln!(
            f,
            "| strategy | update | bl | weights d/p/a/u/parent | crawled | harvest ratio | \
             relevant (cos >= {}) | avg similarity | target recall |",
            self.threshold
        )?;
        writeln!(f, "|---|---|---:|---|---:|---:|---:|---:|---:|")?;
        for r in &self.rows {
            let w = &r.weights;
            let m = &r.measures;
            writeln!(
                f,
                "| {} | {} | {} | {}/{}/{}/{}/{} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
                r.strategy,
                r.update,
                r.bl,
                weight(w.document),
                weight(w.paragraph),
                weight(w.anchor),
                weight(w.url),
                weight(w.parent),
                m.crawled,
                m.harvest,
                m.relevant,
                m.similarity,
                m.target_recall
            )?;
        }
        Ok(())
    }
}
