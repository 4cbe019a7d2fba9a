//! Live statistics of the online stages: page relevance, the harvest ratio, relevance per 100
//! pages over the crawl (ARCOMEM's Figure 8), the language and application mix, and the last
//! fetches with the score that brought each one.

use crate::model::ScoreParts;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// Analysed pages per point of the relevance series.
pub const SERIES_STEP: u64 = 100;
/// The calibrated threshold is this share of the *reference level* (see [`FocusState`]).
pub const CALIBRATION: f64 = 0.33;
/// Share of the analysed pages, the most relevant, whose relevance joins the reference pages'
/// in the reference level.
pub const TOP_SHARE: f64 = 0.01;
/// Buckets of the relevance histogram: relevance × 1000, rounded down.
const BUCKETS: usize = 1001;
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
///
/// Which pages count as relevant. Cosines with a topic vector depend on how the topic was built
/// (keywords alone give low ones, reference pages higher ones) and on the vocabulary of the
/// sites, so one fixed threshold fits few crawls: on a labelled web whose pages were 61% on
/// topic, 0.2 counted 3%. So by default (`scoring.calibrate`) the threshold is calibrated per
/// crawl: [`CALIBRATION`] × the *reference level*, the mean relevance of the pages known or
/// found to be most on topic: the reference pages (seeds and `reference_urls`, each measured
/// against the topic before it joined it, so not against itself; those that scored 0 against
/// an empty topic left out) and the [`TOP_SHARE`] most relevant analysed pages (at least one).
/// The relevance of every analysed page is kept in a histogram (steps of 0.001), so the harvest
/// ratio is always counted at the current threshold. Measured against human labels in
/// `docs/evaluation.md`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FocusState {
    analysed: u64,
    /// Pages flagged relevant by the analysis (at the analyzer's threshold when analysed);
    /// the count reported when the histogram does not cover every page (a crawl begun by an
    /// older version).
    relevant: u64,
    /// Analysed pages by relevance bucket (relevance × 1000, rounded down); empty until the
    /// first page.
    histogram: Vec<u64>,
    /// Sum and count of the reference pages' relevance (those above 0).
    reference_sum: f64,
    reference_n: u64,
    /// `scoring.calibrate` of the run (absent in states of older versions: flags counted).
    calibrate: Option<bool>,
    /// `scoring.threshold` of the run: the threshold without calibration, and before it.
    fixed: Option<f64>,
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
    /// Of which relevant (relevance at least `threshold`, language wanted).
    pub relevant: u64,
    /// `relevant / analysed` (0 before the first page).
    pub harvest_ratio: f64,
    /// Mean relevance of all analysed pages.
    pub avg_relevance: f64,
    /// The relevance a page needs to count as relevant: calibrated for this crawl's topic, or
    /// `scoring.threshold` (see `threshold_source`).
    #[serde(default)]
    pub threshold: f64,
    /// `calibrated` (0.33 × the mean relevance of the reference pages and of the 1% most
    /// relevant pages), or `spec` (`scoring.threshold`: calibration off, or no evidence yet).
    #[serde(default)]
    pub threshold_source: String,
    /// Mean relevance of the reference pages, as each was measured (0: none yet).
    #[serde(default)]
    pub reference_relevance: f64,
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
    /// Sets how this run decides relevance: `scoring.calibrate` and `scoring.threshold`.
    pub fn configure(&mut self, calibrate: bool, threshold: f32) {
        self.calibrate = Some(calibrate);
        self.fixed = Some(f64::from(threshold));
    }

    /// Counts the relevance of a reference page (a seed or one of `reference_urls`), measured
    /// before it joined the topic.
    pub fn reference(&mut self, relevance: f32) {
        let r = f64::from(relevance);
        if r.is_finite() && r > 0.0 {
            self.reference_sum += r;
            self.reference_n += 1;
        }
    }

    /// Pages analysed so far.
    pub fn snapshot_analysed(&self) -> u64 {
        self.analysed
    }

    /// Whether the histogram covers every analysed page.
    fn histogram_complete(&self) -> bool {
        !self.histogram.is_empty() && self.histogram.iter().sum::<u64>() == self.analysed
    }

    /// The threshold in force and whether it is calibrated.
    pub fn threshold(&self) -> (f64, bool) {
        let fixed = self.fixed.unwrap_or(0.2);
        if self.calibrate != Some(true) || !self.histogram_complete() {
            return (fixed, false);
        }
        // The most relevant pages, from the top bucket down.
        let want = ((self.analysed as f64 * TOP_SHARE).ceil() as u64).max(1);
        let (mut taken, mut sum) = (0u64, 0.0);
        for (b, &n) in self.histogram.iter().enumerate().rev() {
            let k = n.min(want - taken);
            taken += k;
            sum += k as f64 * (b as f64 + 0.5) / 1000.0;
            if taken == want {
                break;
            }
        }
        let n = taken + self.reference_n;
        if n == 0 {
            return (fixed, false);
        }
        let level = (sum + self.reference_sum) / n as f64;
        ((CALIBRATION * level).clamp(0.0, 1.0), true)
    }

    /// Pages relevant at the threshold in force.
    fn relevant_now(&self) -> u64 {
        if !self.histogram_complete() {
            return self.relevant;
        }
        let (t, _) = self.threshold();
        let first = ((t * 1000.0).ceil() as usize).min(BUCKETS);
        self.histogram[first..].iter().sum()
    }

    /// Counts a fetched page's analysis: its relevance, whether the analysis flagged it
    /// relevant, whether its language is wanted (a page in another language never counts as
    /// relevant: it goes to the histogram's lowest bucket), its language.
    pub fn analysed(&mut self, relevance: f32, relevant: bool, wanted: bool, lang: Option<&str>) {
        let r = f64::from(relevance);
        if self.histogram.is_empty() && self.analysed == 0 {
            self.histogram = vec![0; BUCKETS];
        }
        let b = if wanted { bucket(r) } else { 0 };
        if let Some(n) = self.histogram.get_mut(b) {
            *n += 1;
        }
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
                harvest_ratio: self.relevant_now() as f64 / self.analysed as f64,
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
        let relevant = self.relevant_now();
        let (threshold, calibrated) = self.threshold();
        FocusSnapshot {
            analysed: self.analysed,
            relevant,
            harvest_ratio: ratio(relevant as f64),
            avg_relevance: ratio(self.relevance_sum),
            threshold,
            threshold_source: if calibrated { "calibrated" } else { "spec" }.to_string(),
            reference_relevance: if self.reference_n == 0 {
                0.0
            } else {
                self.reference_sum / self.reference_n as f64
            },
            series: self.series.clone(),
            recent: self.recent.iter().cloned().collect(),
            languages: self.languages.clone(),
            applications: self.applications.clone(),
            host_apps: self.host_apps.clone(),
        }
    }
}

/// The histogram bucket of a relevance (clamped into [0, 1]; not a number: 0).
fn bucket(r: f64) -> usize {
    if r.is_finite() {
        ((r.clamp(0.0, 1.0) * 1000.0) as usize).min(BUCKETS - 1)
    } else {
        0
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
            f.analysed(r, i < 100, true, Some("en"));
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
    fn the_calibrated_threshold_follows_the_reference_pages_and_the_most_relevant_ones() {
        let mut f = FocusState::default();
        f.configure(true, 0.2);
        // Two reference pages measured at 0.30 and 0.34; 60 pages at 0.15 (on topic, though
        // under the fixed 0.2), 40 at 0.03.
        f.reference(0.30);
        f.reference(0.34);
        f.reference(0.0); // measured against an empty topic: no evidence
        for i in 0..100 {
            f.analysed(if i < 60 { 0.15 } else { 0.03 }, false, true, Some("en"));
        }
        let (t, calibrated) = f.threshold();
        // Reference level: (0.30 + 0.34 + the top 1% page, 0.1505) / 3.
        let level = (0.30 + 0.34 + 0.1505) / 3.0;
        assert!(calibrated);
        assert!((t - CALIBRATION * level).abs() < 1e-6, "{t}");
        let s = f.snapshot();
        assert_eq!(
            s.relevant, 60,
            "the on-topic pages count, the fixed 0.2 would count none"
        );
        assert!((s.harvest_ratio - 0.6).abs() < 1e-9);
        assert_eq!(s.threshold_source, "calibrated");
        assert!((s.reference_relevance - 0.32).abs() < 1e-6);
        assert!((s.series[0].harvest_ratio - 0.6).abs() < 1e-9);
    }

    #[test]
    fn the_threshold_scales_with_the_topic_s_cosines() {
        // The same crawl with every cosine a third as large: the same pages count.
        let mut f = FocusState::default();
        f.configure(true, 0.2);
        f.reference(0.1);
        for i in 0..100 {
            f.analysed(if i < 60 { 0.05 } else { 0.01 }, false, true, None);
        }
        assert_eq!(f.snapshot().relevant, 60);
    }

    #[test]
    fn without_calibration_the_spec_threshold_counts_and_unwanted_languages_never_do() {
        let mut f = FocusState::default();
        f.configure(false, 0.2);
        f.reference(0.3);
        f.analysed(0.25, true, true, Some("en"));
        f.analysed(0.15, false, true, Some("en"));
        f.analysed(0.9, false, false, Some("de"));
        let s = f.snapshot();
        assert_eq!((s.relevant, s.threshold_source.as_str()), (1, "spec"));
        assert!((s.threshold - 0.2).abs() < 1e-6);
        // A state from an older version has no histogram: the analysis' flags count.
        let old: FocusState =
            serde_json::from_str(r#"{"analysed":10,"relevant":4,"relevance_sum":2.0}"#).unwrap();
        let s = old.snapshot();
        assert_eq!((s.analysed, s.relevant), (10, 4));
        assert_eq!(s.threshold_source, "spec");
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
        f.analysed(0.3, true, true, None);
        f.application("a.example", "wordpress");
        let back: FocusState = serde_json::from_slice(&serde_json::to_vec(&f).unwrap()).unwrap();
        let s = back.snapshot();
        assert_eq!((s.analysed, s.relevant), (1, 1));
        assert_eq!(s.languages["und"], 1);
        assert_eq!(s.applications["wordpress"], 1);
        assert!(s.host_apps.is_empty());
    }
}
