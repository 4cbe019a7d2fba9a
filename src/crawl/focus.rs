//! Live statistics of the online stages: page relevance, the harvest ratio, relevance per 100
//! pages over the crawl (ARCOMEM's Figure 8), the language and application mix, and the last
//! fetches with the score that brought each one.

use crate::model::ScoreParts;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// Analysed pages per point of the relevance series.
pub const SERIES_STEP: u64 = 100;
/// Fetches kept for the "last fetches" list.
pub const RECENT: usize = 50;
/// Hosts whose detected application is remembered for the live view.
const MAX_HOST_APPS: usize = 10_000;

/// One point of the relevance series: after `pages` analysed pages, the average relevance of
/// the last [`SERIES_STEP`] of them and the harvest ratio so far.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FocusPoint {
    /// Analysed pages so far.
    pub pages: u64,
    /// Mean relevance of the last `SERIES_STEP` analysed pages.
    pub avg_relevance: f64,
    /// Relevant pages / analysed pages, so far.
    pub harvest_ratio: f64,
}

/// One recent fetch, as the dashboard lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecentFetch {
    /// The URL fetched.
    pub url: String,
    /// HTTP status.
    pub status: u16,
    /// When it was fetched (RFC 3339).
    pub at: String,
    /// The page's relevance, when analysed.
    pub relevance: Option<f32>,
    /// The priority it was fetched with.
    pub priority: f32,
    /// Who queued it: `seed`, `crawl`, or an external scorer.
    pub source: String,
    /// Detected application.
    pub app: Option<String>,
    /// Detected page level.
    pub level: Option<String>,
    /// The score components of the link that queued it, when analysed.
    pub components: Option<ScoreParts>,
}

/// What the online stages observed so far. The counters are stored with the crawl's totals and
/// survive restarts; the recent fetches and per-host applications are live only.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FocusState {
    analysed: u64,
    relevant: u64,
    relevance_sum: f64,
    window_sum: f64,
    window_n: u64,
    series: Vec<FocusPoint>,
    languages: BTreeMap<String, u64>,
    applications: BTreeMap<String, u64>,
    #[serde(skip)]
    recent: VecDeque<RecentFetch>,
    #[serde(skip)]
    host_apps: BTreeMap<String, String>,
}

/// A copy of [`FocusState`] for the API, the cockpit and summaries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Focus")]
pub struct FocusSnapshot {
    /// Pages whose relevance was computed.
    pub analysed: u64,
    /// Of which relevant (relevance at least `scoring.threshold`, language wanted).
    pub relevant: u64,
    /// `relevant / analysed` (0 before the first page).
    pub harvest_ratio: f64,
    /// Mean relevance of all analysed pages.
    pub avg_relevance: f64,
    /// One point per [`SERIES_STEP`] analysed pages.
    pub series: Vec<FocusPoint>,
    /// Last fetches, newest first.
    pub recent: Vec<RecentFetch>,
    /// Analysed pages by language (`und` when unknown).
    pub languages: BTreeMap<String, u64>,
    /// Pages by detected application.
    pub applications: BTreeMap<String, u64>,
    /// The application detected on each host (live only).
    pub host_apps: BTreeMap<String, String>,
}

impl FocusState {
    /// Counts a fetched page's analysis: its relevance, whether it is relevant, its language.
    pub fn analysed(&mut self, relevance: f32, relevant: bool, lang: Option<&str>) {
        let r = f64::from(relevance);
        self.analysed += 1;
        self.relevant += u64::from(relevant);
        self.relevance_sum += r;
        self.window_sum += r;
        self.window_n += 1;
        *self
            .languages
            .entry(lang.unwrap_or("und").to_string())
            .or_insert(0) += 1;
        if self.window_n == SERIES_STEP {
            self.series.push(FocusPoint {
                pages: self.analysed,
                avg_relevance: self.window_sum / SERIES_STEP as f64,
                harvest_ratio: self.relevant as f64 / self.analysed as f64,
            });
            self.window_sum = 0.0;
            self.window_n = 0;
        }
    }

    /// Counts a page on which the application-aware helper detected `app`.
    pub fn application(&mut self, host: &str, app: &str) {
        *self.applications.entry(app.to_string()).or_insert(0) += 1;
        if self.host_apps.len() < MAX_HOST_APPS || self.host_apps.contains_key(host) {
            self.host_apps.insert(host.to_string(), app.to_string());
        }
    }

    /// Remembers a fetch for the live list.
    pub fn fetched(&mut self, f: RecentFetch) {
        if self.recent.len() == RECENT {
            self.recent.pop_back();
        }
        self.recent.push_front(f);
    }

    /// The state as served.
    pub fn snapshot(&self) -> FocusSnapshot {
        let ratio = |n: f64| {
            if self.analysed == 0 {
                0.0
            } else {
                n / self.analysed as f64
            }
        };
        FocusSnapshot {
            analysed: self.analysed,
            relevant: self.relevant,
            harvest_ratio: ratio(self.relevant as f64),
            avg_relevance: ratio(self.relevance_sum),
            series: self.series.clone(),
            recent: self.recent.iter().cloned().collect(),
            languages: self.languages.clone(),
            applications: self.applications.clone(),
            host_apps: self.host_apps.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_has_one_point_per_hundred_pages_and_the_running_harvest_ratio() {
        let mut f = FocusState::default();
        for i in 0..250u32 {
            // First 100 pages all relevant (0.5), the rest irrelevant (0.1).
            let r = if i < 100 { 0.5 } else { 0.1 };
            f.analysed(r, i < 100, Some("en"));
        }
        let s = f.snapshot();
        assert_eq!(s.analysed, 250);
        assert_eq!(s.relevant, 100);
        assert_eq!(s.series.len(), 2);
        assert!((s.series[0].avg_relevance - 0.5).abs() < 1e-6);
        assert!((s.series[0].harvest_ratio - 1.0).abs() < 1e-9);
        assert!((s.series[1].avg_relevance - 0.1).abs() < 1e-6);
        assert!((s.series[1].harvest_ratio - 0.5).abs() < 1e-9);
        assert!((s.harvest_ratio - 0.4).abs() < 1e-9);
        assert_eq!(s.languages["en"], 250);
    }

    #[test]
    fn recent_keeps_the_newest_first_and_is_bounded() {
        let mut f = FocusState::default();
        for i in 0..(RECENT + 5) {
            f.fetched(RecentFetch {
                url: format!("http://a/{i}"),
                status: 200,
                at: String::new(),
                relevance: None,
                priority: 1.0,
                source: "crawl".into(),
                app: None,
                level: None,
                components: None,
            });
        }
        let s = f.snapshot();
        assert_eq!(s.recent.len(), RECENT);
        assert_eq!(s.recent[0].url, format!("http://a/{}", RECENT + 4));
    }

    #[test]
    fn counters_survive_a_store_round_trip_but_live_lists_do_not() {
        let mut f = FocusState::default();
        f.analysed(0.3, true, None);
        f.application("a.example", "wordpress");
        let back: FocusState = serde_json::from_slice(&serde_json::to_vec(&f).unwrap()).unwrap();
        let s = back.snapshot();
        assert_eq!((s.analysed, s.relevant), (1, 1));
        assert_eq!(s.languages["und"], 1);
        assert_eq!(s.applications["wordpress"], 1);
        assert!(s.host_apps.is_empty());
    }
}
