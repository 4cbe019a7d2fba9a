//! Exact facet counts over all matches of a search (hosts, applications, languages, status
//! classes), read from fast fields by term ordinal: no stored documents are loaded.

use serde::Serialize;
use std::collections::HashMap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Column, StrColumn};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

/// Entries kept per facet, most frequent first.
pub const FACET_LIMIT: usize = 100;

/// One facet value and the number of matching documents that have it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FacetCount {
    /// The value (`example.org`, `en`, `2xx`, ...).
    pub value: String,
    /// Matching documents with this value.
    pub count: u64,
}

/// Counts over every match of a search, not only the page shown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Facets {
    /// By host key.
    pub hosts: Vec<FacetCount>,
    /// By detected application (documents without one are not counted).
    pub apps: Vec<FacetCount>,
    /// By language (documents without one are not counted).
    pub langs: Vec<FacetCount>,
    /// By HTTP status class: `2xx`, `3xx`, ...
    pub status_classes: Vec<FacetCount>,
}

impl Facets {
    /// The count for a value of one facet list, 0 when absent.
    pub fn count(list: &[FacetCount], value: &str) -> u64 {
        list.iter()
            .find(|c| c.value == value)
            .map_or(0, |c| c.count)
    }
}

#[derive(Default)]
pub(super) struct FacetCounts {
    hosts: HashMap<String, u64>,
    apps: HashMap<String, u64>,
    langs: HashMap<String, u64>,
    status: [u64; 10],
}

/// The collector; field names are those of the schema.
pub(super) struct FacetCollector;

const STR_FIELDS: [&str; 3] = ["host", "app", "lang"];

impl Collector for FacetCollector {
    type Fruit = Facets;
    type Child = SegmentFacets;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<SegmentFacets> {
        let ff = segment.fast_fields();
        let mut cols = Vec::with_capacity(STR_FIELDS.len());
        for name in STR_FIELDS {
            let col = ff.str(name)?;
            let counts = col.as_ref().map_or(0, |c| c.num_terms());
            cols.push((col, vec![0u64; counts]));
        }
        Ok(SegmentFacets {
            cols,
            status: ff.u64("status").ok(),
            status_counts: [0; 10],
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<FacetCounts>) -> tantivy::Result<Facets> {
        let mut all = FacetCounts::default();
        for f in fruits {
            for (into, from) in [
                (&mut all.hosts, f.hosts),
                (&mut all.apps, f.apps),
                (&mut all.langs, f.langs),
            ] {
                for (k, v) in from {
                    *into.entry(k).or_insert(0) += v;
                }
            }
            for (a, b) in all.status.iter_mut().zip(f.status) {
                *a += b;
            }
        }
        let status = all
            .status
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(class, &n)| (format!("{class}xx"), n))
            .collect();
        Ok(Facets {
            hosts: top(all.hosts),
            apps: top(all.apps),
            langs: top(all.langs),
            status_classes: top(status),
        })
    }
}

/// Most frequent first, ties by value; at most [`FACET_LIMIT`].
fn top(map: HashMap<String, u64>) -> Vec<FacetCount> {
    let mut v: Vec<FacetCount> = map
        .into_iter()
        .map(|(value, count)| FacetCount { value, count })
        .collect();
    v.sort_unstable_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    v.truncate(FACET_LIMIT);
    v
}

pub(super) struct SegmentFacets {
    cols: Vec<(Option<StrColumn>, Vec<u64>)>,
    status: Option<Column<u64>>,
    status_counts: [u64; 10],
}

impl SegmentCollector for SegmentFacets {
    type Fruit = FacetCounts;

    fn collect(&mut self, doc: DocId, _score: Score) {
        for (col, counts) in &mut self.cols {
            if let Some(col) = col {
                if let Some(ord) = col.ords().first(doc) {
                    if let Some(c) = counts.get_mut(ord as usize) {
                        *c += 1;
                    }
                }
            }
        }
        if let Some(s) = self.status.as_ref().and_then(|c| c.first(doc)) {
            if let Some(c) = self.status_counts.get_mut((s / 100) as usize) {
                *c += 1;
            }
        }
    }

    fn harvest(self) -> FacetCounts {
        let mut out = FacetCounts {
            status: self.status_counts,
            ..FacetCounts::default()
        };
        let mut maps = [&mut out.hosts, &mut out.apps, &mut out.langs];
        for ((col, counts), map) in self.cols.into_iter().zip(maps.iter_mut()) {
            let Some(col) = col else { continue };
            let mut term = String::new();
            for (ord, n) in counts.into_iter().enumerate() {
                if n == 0 {
                    continue;
                }
                term.clear();
                if col.ord_to_str(ord as u64, &mut term).unwrap_or(false) {
                    *map.entry(term.clone()).or_insert(0) += n;
                }
            }
        }
        out
    }
}
