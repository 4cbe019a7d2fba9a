//! The crawl engine: one task that owns the crawl's parts (frontier, archiver, online stage,
//! blocklist) and drives workers.
//!
//! The loop: lease ready URLs from the frontier and start a worker per lease (fetch on tokio,
//! then the processor chain on a processor thread); take finished work back, append its records
//! to the WARC file, queue its outlinks through the one way in, and tell the frontier how the
//! fetch went. Every `COMMIT_EVERY` the WARC file is flushed and its checkpoint committed to
//! the store together with the frontier, so the store and the archive agree after any crash.

mod admit;
mod archiving;
mod copies;
pub(crate) use archiving::Archiver;
mod descriptors;
mod logging;
mod outlinks;
mod reading;
pub(super) mod responses;
mod results;
pub(super) mod retry;
mod robots;
mod spawn;
use spawn::FetchFailure;
mod steering;

use super::crawl_log::Refused;
use crate::store::{Key, Meta};

use super::control::Control;
use super::pipeline::{self, PipelineCtx, Processed};
use super::processors::Processors;
use super::stats::{Stats, Totals};
use crate::blocking::off_the_workers;
use crate::fetch::Fetcher;
use crate::frontier::contract::CrawlFrontier;
use crate::frontier::{Completion, Frontier, Lease, UrlLease};
use crate::spec::Spec;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How often staged work is made durable.
const COMMIT_EVERY: Duration = Duration::from_millis(200);
/// ... or after this many finished fetches, whichever comes first.
const COMMIT_AFTER: usize = 512;

/// Why the engine stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// Nothing left to fetch.
    Finished,
    /// `limits.max_pages` reached.
    MaxPages,
    /// `limits.max_duration_s` reached.
    MaxDuration,
    /// Asked to stop (Ctrl-C, API).
    Interrupted,
}

impl StopReason {
    /// The name used in summaries.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Finished => "finished",
            StopReason::MaxPages => "max-pages",
            StopReason::MaxDuration => "max-duration",
            StopReason::Interrupted => "interrupted",
        }
    }
}

/// Work coming back from a worker.
enum Done {
    Page(UrlLease, Result<Box<Processed>, FetchFailure>, Span),
    Robots(String, String, Result<Vec<Processed>, FetchFailure>, Span),
    /// The helper's second reading of kept pages (see `reading.rs`); `None` if it panicked.
    Reread(Option<crate::aah::Reread>),
}

/// When the engine started a worker, and how long the worker took until it reported.
#[derive(Debug, Clone, Copy)]
struct Span {
    started: Instant,
    took: Duration,
}

impl Span {
    fn since(started: Instant) -> Span {
        Span {
            started,
            took: started.elapsed(),
        }
    }
}

/// The engine's parts; built by `crawl::run`. Written against the frontier contract
/// ([`CrawlFrontier`]); [`Engine::new`] assembles it on the local [`Frontier`], and reads the
/// crawl's earlier state from its store, never through the frontier.
pub struct Engine<F: CrawlFrontier = Frontier> {
    spec: Arc<Spec>,
    frontier: F,
    archiver: Archiver,
    fetcher: Fetcher,
    ctx: Arc<PipelineCtx>,
    stats: Arc<Stats>,
    /// The online stages' state: topic and weight learning, focus statistics, the indexer.
    online: super::online::Online,
    /// Blocked URL patterns (see `block.rs`).
    blocklist: super::block::Blocklist,
    /// Copy rules learned per host (see `crawl::copies`).
    copies: super::copies::Copies,
    /// The crawl's durable state: the store, read when the engine is assembled, and the
    /// crawl's one transaction (what the parts staged since the last commit: first captures,
    /// the topic, blocked patterns, checkpoint and totals, the helper's learning), committed
    /// whole with the frontier's log.
    state: super::state::CrawlState,
    /// The crawl log (`logs/crawl.log`); `None` until opened.
    log: Option<crate::crawl::crawl_log::CrawlLog>,
    /// WARC files the crawl log has been rotated with.
    log_files: usize,
    inflight: usize,
    /// Second readings of the helper's kept pages running (see `reading.rs`).
    rereading: usize,
    since_commit: usize,
    tx: mpsc::UnboundedSender<Done>,
    rx: mpsc::UnboundedReceiver<Done>,
    /// The threads that run the processor chain, one per core (see `crawl::processors`).
    processors: Arc<Processors>,
    /// Whether fetching is paused, or capped, because file descriptors ran out.
    shortage: descriptors::Shortage,
    /// Processor threads (one per core).
    cores: usize,
}

/// The parts an engine owns, as `crawl::run` built them.
pub(super) struct Parts {
    pub frontier: Frontier,
    /// The crawl's store, which the engine reads its earlier state from.
    pub store: crate::store::Store,
    pub archiver: Archiver,
    pub fetcher: Fetcher,
    pub online: super::online::Online,
}

impl Engine<Frontier> {
    /// Assembles an engine; restores statistics and the blocked patterns from the store.
    pub(super) fn new(
        spec: Arc<Spec>,
        parts: Parts,
        ctx: Arc<PipelineCtx>,
        stats: Arc<Stats>,
    ) -> Result<Engine, super::CrawlError> {
        let Parts {
            frontier,
            store,
            archiver,
            fetcher,
            online,
        } = parts;
        let state = super::state::CrawlState::new(store);
        let totals: Option<Totals> =
            state.read_json(&Key::Meta(Meta::Totals), "the crawl's totals")?;
        if let Some(t) = totals {
            stats.restore(&t);
        }
        if let Some(a) = &spec.analysis {
            let s = &a.scoring;
            let mut focus = stats.focus.lock().unwrap_or_else(|p| p.into_inner());
            focus.configure(s.calibrate, s.threshold);
        }
        let blocklist = super::block::Blocklist::load(state.store())?;
        let copies = super::copies::Copies::load(state.store())?;
        *stats.copy_rules.lock().unwrap_or_else(|p| p.into_inner()) = copies.views();
        let (tx, rx) = mpsc::unbounded_channel();
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let processors = Processors::start(cores).map_err(super::CrawlError::Threads)?;
        Ok(Engine {
            spec,
            frontier,
            archiver,
            fetcher,
            ctx,
            stats,
            online,
            blocklist,
            copies,
            state,
            log: None,
            log_files: 0,
            inflight: 0,
            rereading: 0,
            since_commit: 0,
            tx,
            rx,
            processors: Arc::new(processors),
            shortage: descriptors::Shortage::default(),
            cores,
        })
    }
}

impl<F: CrawlFrontier> Engine<F> {
    /// Runs until the frontier is empty, a limit is hit, or [`Control::Stop`] arrives.
    /// A paused engine fetches nothing but still answers controls and intake.
    pub(super) async fn run(
        mut self,
        mut control: mpsc::UnboundedReceiver<Control>,
        mut paused: bool,
    ) -> Result<(StopReason, Vec<String>), super::CrawlError> {
        let mut reason = StopReason::Finished;
        let mut stopping = false;
        let mut last_commit = Instant::now();
        loop {
            self.resume_if_due(Instant::now());
            if !stopping && !paused {
                if self.stats.pages_archived.load(Relaxed) + self.inflight as u64
                    >= self.spec.limits.max_pages
                {
                    reason = StopReason::MaxPages;
                    stopping = true;
                } else if self.time_left().is_some_and(|t| t.is_zero()) {
                    reason = StopReason::MaxDuration;
                    stopping = true;
                } else {
                    self.dispatch()?;
                }
            }
            self.publish();
            if self.inflight == 0 && self.rereading == 0 {
                if stopping {
                    break;
                }
                if !paused && self.frontier.next_wake().is_none() {
                    self.commit()?;
                    last_commit = Instant::now();
                    if self.frontier.next_wake().is_none() {
                        break;
                    }
                    continue;
                }
            }
            // A ready host is only worth waking for when a worker could take its URL; at the
            // concurrency or page limit, waiting on its (past) time would spin the loop.
            let commit_at = last_commit + COMMIT_EVERY;
            let commit_at = match self.spec.limits.max_duration {
                Some(d) => commit_at.min(self.stats.started + d),
                None => commit_at,
            };
            let wake = match (self.frontier.next_wake(), self.shortage.until()) {
                _ if paused || stopping => commit_at,
                (_, Some(resume)) => resume.min(commit_at),
                (Some(t), None) if !self.at_capacity() => t.min(commit_at),
                _ => commit_at,
            };
            tokio::select! {
                Some(done) = self.rx.recv() => self.finish(done)?,
                _ = tokio::time::sleep_until(wake.into()) => {}
                Some(c) = control.recv() => match c {
                    Control::Pause => {
                        paused = true;
                        self.stats.event("crawl-paused", self.spec.name());
                    }
                    Control::Resume => {
                        paused = false;
                        self.stats.event("crawl-resumed", self.spec.name());
                    }
                    Control::Stop => {
                        if !stopping {
                            stopping = true;
                            reason = StopReason::Interrupted;
                        }
                    }
                    Control::Intake(items, reply) => {
                        let report = self.intake(items)?;
                        last_commit = Instant::now();
                        let _ = reply.send(report);
                    }
                    Control::Frontier { limit, host, reply } => {
                        let _ = reply.send(self.frontier_view(limit, host.as_deref()));
                    }
                    Control::Relaxations { host, reply } => {
                        let _ = reply.send(self.relaxations(host.as_deref()));
                    }
                    Control::Block { pattern, reply } => {
                        let report = self.block(&pattern)?;
                        last_commit = Instant::now();
                        let _ = reply.send(report);
                    }
                    Control::Unblock { pattern, reply } => {
                        let left = self.unblock(&pattern)?;
                        last_commit = Instant::now();
                        let _ = reply.send(left);
                    }
                },
            }
            // Take every result already back before the next command: one `select!` turn
            // handles one message, so a stream of large intake batches would otherwise starve
            // finished fetches (each batch takes tens of milliseconds).
            while let Ok(done) = self.rx.try_recv() {
                self.finish(done)?;
            }
            if last_commit.elapsed() >= COMMIT_EVERY || self.since_commit >= COMMIT_AFTER {
                self.commit()?;
                last_commit = Instant::now();
            }
        }
        self.archive_second_readings()?;
        self.commit()?;
        self.stats.set_fetching_paused(None);
        let files = self.archiver.files();
        self.publish();
        let last = self.archiver.checkpoint();
        off_the_workers(|| -> Result<(), super::CrawlError> {
            self.frontier.close()?;
            self.archiver.close()?;
            self.online.close(last)?;
            Ok(())
        })?;
        self.stats.event(
            "crawl-finished",
            format!("{}: {}", self.spec.name(), reason.as_str()),
        );
        Ok((reason, files))
    }

    /// Time left of this run before `limits.max_duration_s` (`None`: no time limit).
    fn time_left(&self) -> Option<Duration> {
        self.spec
            .limits
            .max_duration
            .map(|d| d.saturating_sub(self.stats.started.elapsed()))
    }

    /// Tells the frontier what the crawl has left, so it decides how choosy best-N may be.
    fn pace(&mut self, now: Instant) {
        let limits = &self.spec.limits;
        let spent = self.stats.pages_archived.load(Relaxed) + self.inflight as u64;
        let processing_rate = self
            .stats
            .processing_secs()
            .filter(|s| *s > 0.0)
            .map(|s| self.cores as f64 / s);
        let budget = crate::frontier::pace::Budget {
            pages_left: limits.max_pages.saturating_sub(spent),
            time_left: self.time_left(),
            concurrency: self.shortage.limit(limits.max_concurrency),
            processing_rate,
        };
        self.frontier.pace(budget, now);
    }

    fn publish(&self) {
        self.stats.queued.store(self.frontier.queued(), Relaxed);
        self.stats
            .hosts
            .store(self.frontier.host_count() as u64, Relaxed);
        self.stats.inflight.store(self.inflight as u64, Relaxed);
    }

    /// Whether no further worker may start now (concurrency or page limit reached, or
    /// fetching paused for want of file descriptors).
    fn at_capacity(&self) -> bool {
        let limits = &self.spec.limits;
        self.inflight >= self.shortage.limit(limits.max_concurrency)
            || self.stats.pages_archived.load(Relaxed) + self.inflight as u64 >= limits.max_pages
            || self.shortage.paused(Instant::now())
    }

    /// Starts workers for every lease that is ready, up to the concurrency limit (lowered
    /// after file descriptors ran out); none while fetching is paused for that.
    fn dispatch(&mut self) -> Result<(), super::CrawlError> {
        if self.shortage.paused(Instant::now()) {
            return Ok(());
        }
        self.pace(Instant::now());
        let max = self.shortage.limit(self.spec.limits.max_concurrency);
        let max_pages = self.spec.limits.max_pages;
        while self.inflight < max
            && self.stats.pages_archived.load(Relaxed) + (self.inflight as u64) < max_pages
        {
            let Some(lease) = self.frontier.next(Instant::now()) else {
                break;
            };
            match lease {
                Lease::Robots { host, origin } => self.spawn_robots(host, origin),
                Lease::Url(l) if self.likely_copy(&l) => {
                    // Queued before its original was known: it waits last, like a likely copy
                    // admitted now.
                    self.frontier
                        .complete(&l, Completion::Untried, None, Instant::now());
                    self.frontier.demote(l.fp);
                }
                Lease::Url(l) => {
                    if self.frontier.robots_allows(&l.host, &l.uri.url) {
                        self.spawn_page(l);
                    } else {
                        self.stats.robots_blocked.fetch_add(1, Relaxed);
                        let u = &l.uri;
                        self.log_refusal(
                            l.fp,
                            Refused::Robots,
                            &u.url,
                            &u.hops,
                            u.via.as_deref(),
                            &u.source,
                            "robots",
                        )?;
                        self.frontier
                            .complete(&l, Completion::RobotsBlocked, None, Instant::now());
                    }
                }
            }
        }
        Ok(())
    }

    /// Makes the WARC file durable (fsync), then commits its checkpoint with the frontier and
    /// the counters: the store never points past bytes that could be lost.
    pub(super) fn commit(&mut self) -> Result<(), super::CrawlError> {
        off_the_workers(|| self.commit_now())
    }

    /// [`Engine::commit`]'s blocking file work: fsyncs of the WARC file, the frontier's log
    /// and sled, and the helper's and the indexer's commits.
    fn commit_now(&mut self) -> Result<(), super::CrawlError> {
        // Published with each commit rather than each turn of the loop: the count of held-back
        // hosts walks the ready hosts.
        self.stats.set_pacing(self.frontier.pacing());
        self.archiver.sync()?;
        self.flush_log()?;
        if let Some(cp) = self.archiver.checkpoint() {
            let v = super::state::to_json(&cp, "the WARC checkpoint")?;
            self.state.put(Key::Meta(Meta::Checkpoint).bytes(), v);
        }
        self.stage_copies()?;
        let totals = super::state::to_json(&self.stats.totals(), "the crawl's totals")?;
        self.state.put(Key::Meta(Meta::Totals).bytes(), totals);
        self.state.commit(&mut self.frontier)?;
        self.online.commit(self.archiver.checkpoint())?;
        self.since_commit = 0;
        Ok(())
    }
}
