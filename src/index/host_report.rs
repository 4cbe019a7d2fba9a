//! Per-host figures of the captures indexed (captures and revisits, not web objects): how many,
//! their mean relevance, how many reached a relevance threshold, and the application most of
//! them were detected as. Read from fast fields segment by segment, without loading a stored
//! document: at 100,000 captures a few milliseconds.

use super::{Index, IndexError};
use serde::Serialize;
use std::collections::HashMap;

/// One host's indexed captures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct HostCaptures {
    /// Captures and revisits indexed.
    pub captures: u64,
    /// Those with a relevance (analysed pages).
    pub analysed: u64,
    /// Their mean relevance.
    pub mean_relevance: Option<f64>,
    /// Those whose relevance reached the threshold given.
    pub relevant: u64,
    /// The application detected on most of its captures.
    pub app: Option<String>,
}

#[derive(Default)]
struct Acc {
    captures: u64,
    analysed: u64,
    sum: f64,
    relevant: u64,
    apps: HashMap<String, u64>,
}

impl Index {
    /// Per host key, the indexed captures' figures; `threshold` is the crawl's relevance
    /// threshold (`scoring.threshold`).
    pub fn host_captures(
        &self,
        threshold: f64,
    ) -> Result<HashMap<String, HostCaptures>, IndexError> {
        let searcher = self.reader.searcher();
        let ctx = || format!("{}: host figures", self.name);
        let mut all: HashMap<String, Acc> = HashMap::new();
        for segment in searcher.segment_readers() {
            let ff = segment.fast_fields();
            let (Some(kind), Some(host)) = (
                ff.str("kind").map_err(IndexError::tantivy(ctx()))?,
                ff.str("host").map_err(IndexError::tantivy(ctx()))?,
            ) else {
                continue;
            };
            let app = ff.str("app").map_err(IndexError::tantivy(ctx()))?;
            let relevance = ff.f64("relevance").ok();
            let alive = segment.alive_bitset();
            let mut by_ord: HashMap<u64, Acc> = HashMap::new();
            let mut app_names: HashMap<u64, String> = HashMap::new();
            let mut term = String::new();
            for doc in 0..segment.max_doc() {
                if alive.is_some_and(|a| !a.is_alive(doc)) {
                    continue;
                }
                let Some(k) = kind.ords().first(doc) else {
                    continue;
                };
                term.clear();
                if kind.ord_to_str(k, &mut term).unwrap_or(false) && term == "object" {
                    continue;
                }
                let Some(h) = host.ords().first(doc) else {
                    continue;
                };
                let acc = by_ord.entry(h).or_default();
                acc.captures += 1;
                if let Some(r) = relevance.as_ref().and_then(|c| c.first(doc)) {
                    acc.analysed += 1;
                    acc.sum += r;
                    if r >= threshold {
                        acc.relevant += 1;
                    }
                }
                if let Some(a) = app.as_ref().and_then(|c| c.ords().first(doc)) {
                    let name = match app_names.get(&a) {
                        Some(n) => n.clone(),
                        None => {
                            let mut n = String::new();
                            if let Some(c) = app.as_ref() {
                                c.ord_to_str(a, &mut n)
                                    .map_err(IndexError::io(&self.name))?;
                            }
                            app_names.insert(a, n.clone());
                            n
                        }
                    };
                    *acc.apps.entry(name).or_insert(0) += 1;
                }
            }
            for (ord, acc) in by_ord {
                term.clear();
                if !host
                    .ord_to_str(ord, &mut term)
                    .map_err(IndexError::io(&self.name))?
                {
                    continue;
                }
                let into = all.entry(term.clone()).or_default();
                into.captures += acc.captures;
                into.analysed += acc.analysed;
                into.sum += acc.sum;
                into.relevant += acc.relevant;
                for (a, n) in acc.apps {
                    *into.apps.entry(a).or_insert(0) += n;
                }
            }
        }
        Ok(all
            .into_iter()
            .map(|(h, a)| {
                let app = a
                    .apps
                    .into_iter()
                    .max_by(|x, y| x.1.cmp(&y.1).then_with(|| y.0.cmp(&x.0)))
                    .map(|(name, _)| name);
                let figures = HostCaptures {
                    captures: a.captures,
                    analysed: a.analysed,
                    mean_relevance: (a.analysed > 0).then(|| a.sum / a.analysed as f64),
                    relevant: a.relevant,
                    app,
                };
                (h, figures)
            })
            .collect())
    }
}
