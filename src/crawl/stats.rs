//! Live crawl statistics (lock-free counters shared with the progress bar and the API) and the
//! end-of-crawl summary.

use super::focus::{FocusSnapshot, FocusState};
use crate::frontier::pace::PacingView;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

/// Counters updated by the engine while the crawl runs.
#[derive(Debug)]
pub struct Stats {
    /// When this run started.
    pub started: Instant,
    /// Pages fetched and archived (robots.txt not counted), over every run of the crawl.
    pub pages: AtomicU64,
    /// `pages` when this run started.
    pub pages_at_start: AtomicU64,
    /// What `limits.max_pages` counts: responses archived in full with a 2xx status (revisits,
    /// redirects, error statuses and failed fetches are counted on their own).
    pub pages_archived: AtomicU64,
    /// robots.txt fetches.
    pub robots_fetches: AtomicU64,
    /// Responses by status class: index 1 = 1xx ... 5 = 5xx, 0 = other.
    pub status: [AtomicU64; 6],
    /// Response bytes received (headers and body, as on the wire).
    pub bytes_received: AtomicU64,
    /// Compressed bytes written to WARC files.
    pub warc_bytes: AtomicU64,
    /// Revisit records written instead of duplicate payloads.
    pub revisits: AtomicU64,
    /// URLs waiting in the frontier.
    pub queued: AtomicU64,
    /// Distinct URLs ever queued.
    pub discovered: AtomicU64,
    /// Links refused by scope, all reasons.
    pub out_of_scope: AtomicU64,
    /// URLs refused by robots.txt.
    pub robots_blocked: AtomicU64,
    /// Fetch attempts put back for a retry.
    pub retries: AtomicU64,
    /// Hosts known.
    pub hosts: AtomicU64,
    /// Fetches in flight.
    pub inflight: AtomicU64,
    /// Errors by kind (`dns`, `connect`, `timeout`, `http-5xx`, ...).
    pub errors: Mutex<BTreeMap<String, u64>>,
    /// Scope rejections by reason.
    pub rejected: Mutex<BTreeMap<String, u64>>,
    /// Intake items by source.
    pub intake: Mutex<BTreeMap<String, u64>>,
    /// Fetch durations: counts per bucket of [`LATENCY_BUCKETS_MS`] (last: above all), and the sum.
    pub latency: [AtomicU64; LATENCY_BUCKETS_MS.len() + 1],
    /// Sum of fetch durations in milliseconds.
    pub latency_sum_ms: AtomicU64,
    /// Notable events (host blocked, crawl finished), for live views.
    pub events: tokio::sync::broadcast::Sender<Event>,
    /// The last [`RECENT_EVENTS`] events, oldest first: what a page opened later shows (a
    /// broadcast reaches only those listening when it is sent), kept in `status.json`.
    pub recent_events: Mutex<std::collections::VecDeque<Event>>,
    /// Relevance, harvest ratio, languages, applications and recent fetches.
    pub focus: Mutex<FocusState>,
    /// Why fetching is paused right now for want of a local resource (the process ran out of
    /// file descriptors); `None` while fetching runs.
    pub fetching_paused: Mutex<Option<String>>,
    /// How choosy the crawl is and why ready hosts wait (`None`: not decided yet).
    pub pacing: Mutex<Option<PacingView>>,
    /// Moving average of the seconds a processor thread spends on one page (`None`: no page
    /// processed yet), from which the engine estimates what the threads can analyse.
    pub processing_secs: Mutex<Option<f64>>,
    /// The variant rules learned per host (see `crawl::copies`), as the engine last published
    /// them.
    pub copy_rules: Mutex<Vec<super::copies::CopyRule>>,
}

/// Distinct intake sources counted by name; later ones count under [`OTHER_SOURCE`].
pub const MAX_INTAKE_SOURCES: usize = 64;
/// The intake source that unknown sources fold into once [`MAX_INTAKE_SOURCES`] are known.
pub const OTHER_SOURCE: &str = "other";

/// Upper bounds of the fetch-latency histogram buckets, in milliseconds.
pub const LATENCY_BUCKETS_MS: [u64; 9] = [10, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

/// Events kept for pages opened after they happened.
pub const RECENT_EVENTS: usize = 100;

/// Something worth telling an operator as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// `host-blocked`, `crawl-finished`, `crawl-paused`, ...
    pub kind: String,
    /// Human-readable detail.
    pub detail: String,
    /// When it happened (RFC 3339, UTC, seconds; empty in events kept by older versions).
    #[serde(default)]
    pub at: String,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            started: Instant::now(),
            pages: AtomicU64::new(0),
            pages_at_start: AtomicU64::new(0),
            pages_archived: AtomicU64::new(0),
            robots_fetches: AtomicU64::new(0),
            status: Default::default(),
            bytes_received: AtomicU64::new(0),
            warc_bytes: AtomicU64::new(0),
            revisits: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            discovered: AtomicU64::new(0),
            out_of_scope: AtomicU64::new(0),
            robots_blocked: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            hosts: AtomicU64::new(0),
            inflight: AtomicU64::new(0),
            errors: Mutex::new(BTreeMap::new()),
            rejected: Mutex::new(BTreeMap::new()),
            intake: Mutex::new(BTreeMap::new()),
            latency: Default::default(),
            latency_sum_ms: AtomicU64::new(0),
            events: tokio::sync::broadcast::channel(256).0,
            recent_events: Mutex::new(std::collections::VecDeque::new()),
            focus: Mutex::new(FocusState::default()),
            fetching_paused: Mutex::new(None),
            pacing: Mutex::new(None),
            processing_secs: Mutex::new(None),
            copy_rules: Mutex::new(Vec::new()),
        }
    }
}

/// Counters that carry over when a crawl resumes (stored with every commit).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Totals {
    /// Pages fetched.
    pub pages: u64,
    /// Responses archived in full with a 2xx status; absent in crawls made before it was kept,
    /// whose budget then counts every page fetched.
    #[serde(default)]
    pub pages_archived: Option<u64>,
    /// robots.txt fetches.
    pub robots_fetches: u64,
    /// Responses by status class.
    pub status: [u64; 6],
    /// Response bytes received.
    pub bytes_received: u64,
    /// WARC bytes written.
    pub warc_bytes: u64,
    /// Revisit records.
    pub revisits: u64,
    /// Distinct URLs queued.
    pub discovered: u64,
    /// Scope rejections.
    pub out_of_scope: u64,
    /// robots.txt refusals.
    pub robots_blocked: u64,
    /// Retries.
    pub retries: u64,
    /// Errors by kind.
    pub errors: BTreeMap<String, u64>,
    /// Scope rejections by reason.
    pub rejected: BTreeMap<String, u64>,
    /// Counters of the online stages.
    #[serde(default)]
    pub focus: FocusState,
}

impl Stats {
    /// Counts one error of `kind`.
    pub fn error(&self, kind: &str) {
        *self
            .errors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(kind.to_string())
            .or_insert(0) += 1;
    }

    /// Counts one rejected link (`app-skip` and `discovery` links are in scope, so not counted
    /// out of scope).
    pub fn reject(&self, reason: &str) {
        // Copies skipped by a learned rule are in scope: their content is archived elsewhere.
        if !matches!(reason, "app-skip" | "discovery" | "copy") {
            self.out_of_scope.fetch_add(1, Relaxed);
        }
        *self
            .rejected
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(reason.to_string())
            .or_insert(0) += 1;
    }

    /// Counts one intake item from `source`. Sources are named by clients, so their number and
    /// length are bounded: past [`MAX_INTAKE_SOURCES`] distinct names, new ones count under
    /// [`OTHER_SOURCE`], and so does any name that is not a short token
    /// ([`crate::intake::is_source_token`], at most 64 characters; the intake refuses such names
    /// already), which keeps the metrics' `source` label (and this map) small whatever
    /// clients send.
    pub fn intake(&self, source: &str) {
        let mut by_source = self.intake.lock().unwrap_or_else(|e| e.into_inner());
        let known = by_source.contains_key(source) || by_source.len() < MAX_INTAKE_SOURCES;
        let key = if known && crate::intake::is_source_token(source) {
            source
        } else {
            OTHER_SOURCE
        };
        *by_source.entry(key.to_string()).or_insert(0) += 1;
    }

    /// Records one fetch duration.
    pub fn fetch_took(&self, ms: u64) {
        let i = LATENCY_BUCKETS_MS
            .iter()
            .position(|&b| ms <= b)
            .unwrap_or(LATENCY_BUCKETS_MS.len());
        self.latency[i].fetch_add(1, Relaxed);
        self.latency_sum_ms.fetch_add(ms, Relaxed);
    }

    /// Announces an event to live views (nobody listening is fine) and keeps it among the
    /// recent ones.
    pub fn event(&self, kind: &str, detail: impl Into<String>) {
        let event = Event {
            kind: kind.to_string(),
            detail: detail.into(),
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        };
        self.keep_events(std::iter::once(event.clone()));
        let _ = self.events.send(event);
    }

    /// Adds events to the recent ones (oldest first), dropping the oldest beyond
    /// [`RECENT_EVENTS`]; also how the events a status file kept are brought back.
    pub fn keep_events(&self, events: impl IntoIterator<Item = Event>) {
        let mut recent = self.recent_events.lock().unwrap_or_else(|e| e.into_inner());
        for e in events {
            if recent.len() == RECENT_EVENTS {
                recent.pop_front();
            }
            recent.push_back(e);
        }
    }

    /// The recent events, oldest first.
    pub fn recent_events(&self) -> Vec<Event> {
        self.recent_events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    /// Says why fetching is paused (`None`: it runs again).
    pub fn set_fetching_paused(&self, why: Option<String>) {
        *self
            .fetching_paused
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = why;
    }

    /// Why fetching is paused right now, if it is.
    pub fn fetching_paused(&self) -> Option<String> {
        self.fetching_paused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Counts the processing time of one page (a moving average, weight 0.05 per page).
    pub fn processed(&self, secs: f64) {
        if !secs.is_finite() {
            return;
        }
        let mut m = self
            .processing_secs
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *m = Some(m.map_or(secs, |v| v + 0.05 * (secs - v)));
    }

    /// The mean processing time of a page, if any was processed.
    pub fn processing_secs(&self) -> Option<f64> {
        *self
            .processing_secs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes the pacing in force.
    pub fn set_pacing(&self, p: PacingView) {
        *self.pacing.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
    }

    /// Counts a response by its status class.
    pub fn status(&self, code: u16) {
        let class = match code {
            100..=599 => (code / 100) as usize,
            _ => 0,
        };
        self.status[class].fetch_add(1, Relaxed);
    }

    /// Restores counters of earlier runs of the same crawl.
    pub fn restore(&self, t: &Totals) {
        self.pages.store(t.pages, Relaxed);
        self.pages_at_start.store(t.pages, Relaxed);
        self.pages_archived
            .store(t.pages_archived.unwrap_or(t.pages), Relaxed);
        self.robots_fetches.store(t.robots_fetches, Relaxed);
        for (a, v) in self.status.iter().zip(t.status) {
            a.store(v, Relaxed);
        }
        self.bytes_received.store(t.bytes_received, Relaxed);
        self.warc_bytes.store(t.warc_bytes, Relaxed);
        self.revisits.store(t.revisits, Relaxed);
        self.discovered.store(t.discovered, Relaxed);
        self.out_of_scope.store(t.out_of_scope, Relaxed);
        self.robots_blocked.store(t.robots_blocked, Relaxed);
        self.retries.store(t.retries, Relaxed);
        *self.errors.lock().unwrap_or_else(|e| e.into_inner()) = t.errors.clone();
        *self.rejected.lock().unwrap_or_else(|e| e.into_inner()) = t.rejected.clone();
        *self.focus.lock().unwrap_or_else(|e| e.into_inner()) = t.focus.clone();
    }

    /// The online stages' statistics as they are now.
    pub fn focus(&self) -> FocusSnapshot {
        self.focus
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .snapshot()
    }

    /// The carried-over counters, for storing.
    pub fn totals(&self) -> Totals {
        Totals {
            pages: self.pages.load(Relaxed),
            pages_archived: Some(self.pages_archived.load(Relaxed)),
            robots_fetches: self.robots_fetches.load(Relaxed),
            status: std::array::from_fn(|i| self.status[i].load(Relaxed)),
            bytes_received: self.bytes_received.load(Relaxed),
            warc_bytes: self.warc_bytes.load(Relaxed),
            revisits: self.revisits.load(Relaxed),
            discovered: self.discovered.load(Relaxed),
            out_of_scope: self.out_of_scope.load(Relaxed),
            robots_blocked: self.robots_blocked.load(Relaxed),
            retries: self.retries.load(Relaxed),
            errors: self
                .errors
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            rejected: self
                .rejected
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            focus: self.focus.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        }
    }

    /// The summary printed at the end (and served live by the API).
    pub fn summary(&self, crawl: &str, stop_reason: &str, warc_files: Vec<String>) -> Summary {
        let t = self.totals();
        let focus = t.focus.snapshot();
        let elapsed = self.started.elapsed().as_secs_f64();
        let labels = ["other", "1xx", "2xx", "3xx", "4xx", "5xx"];
        Summary {
            crawl: crawl.to_string(),
            stop_reason: stop_reason.to_string(),
            pages_fetched: t.pages,
            pages_archived: t.pages_archived.unwrap_or(t.pages),
            robots_fetches: t.robots_fetches,
            responses_by_status: labels
                .iter()
                .zip(t.status)
                .map(|(l, n)| (l.to_string(), n))
                .collect(),
            bytes_received: t.bytes_received,
            warc_bytes: t.warc_bytes,
            warc_files,
            revisits: t.revisits,
            urls_discovered: t.discovered,
            urls_queued: self.queued.load(Relaxed),
            urls_out_of_scope: t.out_of_scope,
            out_of_scope_by_reason: t.rejected,
            robots_blocked: t.robots_blocked,
            retries: t.retries,
            errors_by_kind: t.errors,
            hosts: self.hosts.load(Relaxed),
            elapsed_seconds: elapsed,
            pages_analysed: focus.analysed,
            pages_relevant: focus.relevant,
            harvest_ratio: focus.harvest_ratio,
            avg_relevance: focus.avg_relevance,
            applications: focus.applications,
            fetching_paused: self.fetching_paused(),
            pacing: self
                .pacing
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            copy_rules: self
                .copy_rules
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            pages_per_second: if elapsed > 0.0 {
                (t.pages - self.pages_at_start.load(Relaxed)) as f64 / elapsed
            } else {
                0.0
            },
        }
    }
}

/// The end-of-crawl summary (`magpie crawl --json`); counters cover every run of the crawl,
/// times and rates cover this run.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Statistics")]
pub struct Summary {
    /// Crawl name.
    pub crawl: String,
    /// `finished` (frontier empty), `max-pages`, `max-duration`, or `interrupted`.
    pub stop_reason: String,
    /// Pages fetched and archived, whatever their status (robots.txt not counted).
    pub pages_fetched: u64,
    /// What `limits.max_pages` counts: responses archived in full with a 2xx status, not
    /// revisits (redirects, error statuses and revisits are in `responses_by_status` and
    /// `revisits`, failed fetches in `errors_by_kind`).
    #[serde(default)]
    pub pages_archived: u64,
    /// robots.txt fetches.
    pub robots_fetches: u64,
    /// Responses by status class.
    pub responses_by_status: BTreeMap<String, u64>,
    /// Response bytes received.
    pub bytes_received: u64,
    /// Bytes written to WARC files.
    pub warc_bytes: u64,
    /// WARC files written by this run.
    pub warc_files: Vec<String>,
    /// Revisit records.
    pub revisits: u64,
    /// Distinct URLs queued.
    pub urls_discovered: u64,
    /// URLs still queued.
    pub urls_queued: u64,
    /// Links refused by scope.
    pub urls_out_of_scope: u64,
    /// ... by reason.
    pub out_of_scope_by_reason: BTreeMap<String, u64>,
    /// URLs refused by robots.txt.
    pub robots_blocked: u64,
    /// Retries.
    pub retries: u64,
    /// Errors by kind.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Hosts seen.
    pub hosts: u64,
    /// Seconds this run took.
    pub elapsed_seconds: f64,
    /// Pages whose relevance to the topic was computed (0 without a topic).
    #[serde(default)]
    pub pages_analysed: u64,
    /// Of which relevant.
    #[serde(default)]
    pub pages_relevant: u64,
    /// `pages_relevant / pages_analysed`.
    #[serde(default)]
    pub harvest_ratio: f64,
    /// Mean relevance of the analysed pages.
    #[serde(default)]
    pub avg_relevance: f64,
    /// Pages by application detected by the application-aware helper.
    #[serde(default)]
    pub applications: BTreeMap<String, u64>,
    /// Pages fetched per second in this run.
    pub pages_per_second: f64,
    /// Why fetching is paused right now although the crawl runs (the process ran out of file
    /// descriptors; see crawling.md); absent while fetching runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetching_paused: Option<String>,
    /// How choosy the crawl is: what binds it (its page budget or its time), the pace it keeps
    /// and why ready hosts wait (docs/crawl-spec.md, `limits.max_duration_s`); absent before the
    /// engine first decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<PacingView>,
    /// URL variants that serve a page already fetched under another URL (`?ref=`, print views,
    /// session parameters), learned per host with their evidence; URLs an adopted rule kept
    /// from being fetched are counted under `out_of_scope_by_reason.copy` (docs/crawling.md).
    #[serde(default)]
    pub copy_rules: Vec<super::copies::CopyRule>,
}
