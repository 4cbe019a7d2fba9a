//! The crawl manager behind `magpie serve`: many crawls in one data folder, each with a
//! lifecycle (created → running ⇄ paused → finished, or failed) that survives server restarts.
//!
//! Each open crawl has one engine task, reached through its control channel. An engine holds
//! threads, its store and open files, so a crawl gets one only when it needs one: when it starts,
//! or when something must read or change its frontier before that (intake, a block pattern, a
//! frontier view), which opens it paused. A created crawl nobody has touched is its spec and its
//! status and nothing else. A running or paused crawl has an engine; a finished or failed one has
//! none, and is listed with the counters its `status.json` recorded.
//! The state is kept in `DATA/<name>/status.json` and restored by [`Manager::open`]: a crawl that
//! was running when the server stopped runs again.

use crate::crawl::focus::FocusSnapshot;
use crate::crawl::{
    self, control::FrontierView, control::Refusal, stats::Stats, stats::Summary,
    supervise::catch_panic, Control, CrawlError, CrawlOptions,
};
use crate::intake::{IntakeReport, Rejected, ScoredUrl};
use crate::spec::{Spec, SpecError};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

mod outcome;
mod seeds;
mod status;
mod steering;
mod unopened;
mod workflows;

pub use outcome::{classify, Outcome, OutcomeKind, StopMark};
pub use seeds::{any_problem, check_robots, check_seeds, SeedCheck};
use status::{read_status, write_status, Status};
pub use status::{record_cli_run, CrawlState};
pub use unopened::Unopened;
pub use workflows::WorkflowView;

/// A manager error; the web layer maps these to HTTP statuses.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// No crawl with this id.
    #[error("no crawl named {0:?}")]
    NotFound(String),
    /// A crawl with this name exists already.
    #[error("a crawl named {0:?} exists already")]
    Exists(String),
    /// The action does not apply in the crawl's state.
    #[error("crawl {id:?} is {state:?}: cannot {action}")]
    WrongState {
        /// Crawl id.
        id: String,
        /// Its state.
        state: CrawlState,
        /// What was asked.
        action: &'static str,
    },
    /// The spec is invalid.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The crawl's engine answered a steering request with no result.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A value given with a request cannot be used (the message starts with its field name).
    #[error("{0}")]
    Invalid(String),
    /// The data folder failed.
    #[error("data folder: {0}")]
    Io(#[from] std::io::Error),
}

struct Slot {
    spec: Arc<Spec>,
    stats: Arc<Stats>,
    status: Mutex<Status>,
    /// The engine's control channel; `None` while the crawl has no engine. Locked before
    /// `status` where both are held, so launching an engine and deciding that one is needed are
    /// one step.
    control: Mutex<Option<mpsc::UnboundedSender<Control>>>,
}

/// A crawl as the API lists it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[schemars(rename = "Crawl")]
pub struct CrawlView {
    /// The crawl id (its spec's `name`).
    pub id: String,
    /// Lifecycle state.
    pub state: CrawlState,
    /// Why it failed.
    pub error: Option<String>,
    /// Which way it is or ended (completed, limit reached, stopped by the operator at a given
    /// time, failed with the cause, no seed reachable), with the reason in a sentence.
    pub outcome: Outcome,
    /// Live statistics (the same figures as `magpie crawl`'s summary).
    pub stats: Summary,
    /// Relevance over the crawl, recent fetches with their scores, languages, applications.
    pub focus: FocusSnapshot,
    /// The workflow this crawl is a run of: the name of the crawl whose spec was first run
    /// (its own name when it is the first run).
    pub workflow: String,
    /// When the crawl was created (RFC 3339, UTC); for a crawl made before this was recorded,
    /// when its spec was written; `null` when that cannot be read either.
    pub created: Option<String>,
}

/// One term of a crawl's topic vector.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicTerm {
    /// The term as matched: a stem, or a phrase of stems (`solar power` → `solar pow`).
    pub term: String,
    /// Its weight in the topic vector.
    pub weight: f32,
}

/// All crawls of a data folder.
pub struct Manager {
    data: PathBuf,
    hostname: String,
    crawls: Mutex<BTreeMap<String, Arc<Slot>>>,
    /// Crawl folders whose spec could not be read, found at open.
    unopened: Mutex<Vec<Unopened>>,
    /// Set while the server shuts down: crawls stopped then keep their state for the restart.
    closing: std::sync::atomic::AtomicBool,
    /// The runtime engines run on (the one [`Manager::open`] was called on): an engine launched
    /// on demand from a request handler must not live on that handler's short-lived runtime.
    runtime: tokio::runtime::Handle,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Manager {
    /// Opens the data folder and brings every crawl back in its last state: running and paused
    /// crawls get their engine, the others are listed with the counters their status recorded.
    pub async fn open(data: PathBuf, hostname: String) -> Result<Arc<Manager>, ManagerError> {
        std::fs::create_dir_all(&data)?;
        let m = Arc::new(Manager {
            data: data.clone(),
            hostname,
            crawls: Mutex::new(BTreeMap::new()),
            unopened: Mutex::new(Vec::new()),
            closing: std::sync::atomic::AtomicBool::new(false),
            runtime: tokio::runtime::Handle::current(),
        });
        for entry in std::fs::read_dir(&data)?.flatten() {
            // Files beside the crawls (the API token) are no crawls.
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let dir = entry.path();
            if entry.file_name().to_string_lossy().contains(".old-") {
                // A crawl moved aside by `--fresh` keeps its name in its spec: not a crawl.
                continue;
            }
            let Some(spec) = m.crawl_spec(&dir) else {
                continue;
            };
            let (mut status, counters) = read_status(&dir.join("status.json"));
            if status.created.is_none() {
                // Crawls made before creation times were recorded: when their spec was written.
                status.created = std::fs::metadata(dir.join("spec.json"))
                    .and_then(|m| m.modified())
                    .ok()
                    .map(rfc3339);
            }
            let id = spec.name().to_string();
            let stats = Stats::default();
            if let Some(c) = counters {
                c.restore(&stats);
            }
            let slot = Arc::new(Slot {
                spec: Arc::new(spec),
                stats: Arc::new(stats),
                status: Mutex::new(status.clone()),
                control: Mutex::new(None),
            });
            lock(&m.crawls).insert(id.clone(), slot.clone());
            let mut control = lock(&slot.control);
            match status.state {
                CrawlState::Paused => m.launch(&id, &slot, &mut control, true),
                CrawlState::Running => m.launch(&id, &slot, &mut control, false),
                CrawlState::Created | CrawlState::Finished | CrawlState::Failed => {}
            }
        }
        Ok(m)
    }

    /// Creates a crawl from a spec, in state `created`: its folder holds its spec and status, and
    /// nothing is opened until it starts or takes intake.
    /// A spec that arrives over the network may not name a knowledge-base folder: the server
    /// would read whatever folder it names and report other files' names and contents in its
    /// errors. Crawls of the server use the knowledge base built into the program.
    pub async fn create(self: &Arc<Self>, spec: Spec) -> Result<String, ManagerError> {
        self.create_run(spec, None)
    }

    /// Creates a crawl as [`Manager::create`] does, as a run of `workflow` (`None`: its own).
    fn create_run(
        self: &Arc<Self>,
        spec: Spec,
        workflow: Option<String>,
    ) -> Result<String, ManagerError> {
        if spec.written().aah.kb.is_some() {
            return Err(ManagerError::Invalid(
                "aah.kb: a crawl created through the server uses the built-in knowledge base; \
                 a knowledge-base folder can only be named in a spec run with magpie crawl"
                    .into(),
            ));
        }
        let id = spec.name().to_string();
        if lock(&self.crawls).contains_key(&id) || self.data.join(&id).exists() {
            return Err(ManagerError::Exists(id));
        }
        let slot = Arc::new(Slot {
            spec: Arc::new(spec),
            stats: Arc::new(Stats::default()),
            status: Mutex::new(Status {
                state: CrawlState::Created,
                error: None,
                stop_reason: None,
                stop: None,
                workflow,
                created: Some(rfc3339(std::time::SystemTime::now())),
            }),
            control: Mutex::new(None),
        });
        std::fs::create_dir_all(self.data.join(&id))?;
        // Written here, not only when the engine opens: a crawl that never ran must still be
        // found by the next start of the server.
        let layout = crate::crawl::layout::Layout::new(&self.data, &id);
        let spec_json = serde_json::to_string_pretty(slot.spec.written()).map_err(|e| {
            ManagerError::Io(std::io::Error::other(format!(
                "{}: {e}",
                layout.spec().display()
            )))
        })?;
        std::fs::write(layout.spec(), spec_json)?;
        self.save(&id, &slot)?;
        lock(&self.crawls).insert(id.clone(), slot.clone());
        Ok(id)
    }

    /// "Run again": a new crawl with the same spec under a new name (`WORKFLOW-2`, `-3`, ...,
    /// the first free one), recorded as a run of the workflow `id` belongs to, and started. The
    /// old crawl is left as it is: its captures stay its own. Returns the new crawl's id.
    pub fn run_again(self: &Arc<Self>, id: &str) -> Result<String, ManagerError> {
        let slot = self.slot(id)?;
        let workflow = lock(&slot.status)
            .workflow
            .clone()
            .unwrap_or_else(|| id.to_string());
        let mut last = None;
        for name in workflows::run_names(&workflow) {
            if lock(&self.crawls).contains_key(&name) || self.data.join(&name).exists() {
                continue;
            }
            let mut raw = slot.spec.written().clone();
            raw.name = name;
            let spec = Spec::validate(raw)?;
            match self.create_run(spec, Some(workflow.clone())) {
                Ok(new) => {
                    self.start(&new)?;
                    // Told in the old crawl's log too, and kept with its status.
                    slot.stats
                        .event("run-again", format!("{id}: run again as {new}"));
                    self.save(id, &slot)?;
                    return Ok(new);
                }
                // Taken between the check and the creation by another request: the next one.
                Err(ManagerError::Exists(n)) => last = Some(n),
                Err(e) => return Err(e),
            }
        }
        Err(ManagerError::Exists(last.unwrap_or(workflow)))
    }

    /// Every workflow (crawls grouped by the workflow they are runs of), with its runs.
    pub fn workflows(&self) -> Vec<WorkflowView> {
        let crawls = lock(&self.crawls).clone();
        workflows::group(
            crawls
                .iter()
                .map(|(id, s)| {
                    let written = s.spec.written();
                    workflows::Run {
                        view: view(id, s),
                        workflow: lock(&s.status).workflow.clone(),
                        seeds: written.seeds.clone(),
                        keywords: written.topic.keywords.clone(),
                    }
                })
                .collect(),
        )
    }

    fn slot(&self, id: &str) -> Result<Arc<Slot>, ManagerError> {
        lock(&self.crawls)
            .get(id)
            .cloned()
            .ok_or_else(|| ManagerError::NotFound(id.to_string()))
    }

    /// Writes the crawl's `status.json`; called from API handlers and crawl tasks, so the file
    /// work runs off the async workers.
    fn save(&self, id: &str, slot: &Slot) -> Result<(), ManagerError> {
        let status = lock(&slot.status).clone();
        crate::blocking::off_the_workers(|| {
            write_status(&self.data.join(id), &status, &slot.stats)
        })?;
        Ok(())
    }

    /// Sets and saves the crawl's state; a `status.json` that cannot be written is the
    /// caller's error (the action happened, but a restart would not know it).
    fn set_state(&self, id: &str, slot: &Slot, state: CrawlState) -> Result<(), ManagerError> {
        lock(&slot.status).state = state;
        self.save(id, slot)
    }

    /// Starts the crawl's engine task (paused or not) on the manager's runtime; its control
    /// channel goes into `control` (the slot's, locked by the caller).
    fn launch(
        self: &Arc<Self>,
        id: &str,
        slot: &Arc<Slot>,
        control: &mut Option<mpsc::UnboundedSender<Control>>,
        paused: bool,
    ) {
        let (tx, rx) = mpsc::unbounded_channel();
        *control = Some(tx);
        let opts = CrawlOptions {
            data: self.data.clone(),
            fresh: false,
            hostname: self.hostname.clone(),
        };
        let (me, id, slot) = (self.clone(), id.to_string(), slot.clone());
        let spec = (*slot.spec).clone();
        self.runtime.spawn(async move {
            // A panicking engine fails its crawl, with the reason; the server and the other
            // crawls go on, and the crawl can be started again (it resumes from disk).
            let result = catch_panic(crawl::run(spec, opts, slot.stats.clone(), rx, paused))
                .await
                .unwrap_or_else(|p| Err(CrawlError::Panicked(p)));
            let closing = me.closing.load(std::sync::atomic::Ordering::SeqCst);
            if closing && result.is_ok() {
                // Stopped by the server's shutdown: keep the state, so a restart resumes it, and
                // the counters, so a crawl that is not reopened then is listed with them.
                if let Err(e) = me.save(&id, &slot) {
                    tracing::error!("cannot save the state of crawl {id}: {e}");
                }
                *lock(&slot.control) = None;
                return;
            }
            {
                let mut st = lock(&slot.status);
                match result {
                    Ok(summary) => {
                        st.state = CrawlState::Finished;
                        st.stop_reason = Some(summary.stop_reason);
                    }
                    Err(e) => {
                        tracing::error!("crawl {id} failed: {e}");
                        st.state = CrawlState::Failed;
                        st.error = Some(e.to_string());
                    }
                }
            }
            if let Err(e) = me.save(&id, &slot) {
                // Nobody waits on this task: the error goes where the operator looks, the
                // crawl's listing, besides the log.
                tracing::error!("cannot save the state of crawl {id}: {e}");
                let mut st = lock(&slot.status);
                let saved = format!("its status.json was not saved: {e}");
                st.error = Some(match st.error.take() {
                    Some(before) => format!("{before}; {saved}"),
                    None => saved,
                });
            }
            *lock(&slot.control) = None;
        });
    }

    /// Gives a created (or paused) crawl without an engine its engine, paused, for something
    /// that must reach its frontier; a crawl with an engine, or in another state, is left alone.
    fn wake(self: &Arc<Self>, id: &str, slot: &Arc<Slot>) {
        let mut control = lock(&slot.control);
        let state = lock(&slot.status).state;
        if control.is_none() && matches!(state, CrawlState::Created | CrawlState::Paused) {
            self.launch(id, slot, &mut control, true);
        }
    }

    fn send(
        &self,
        id: &str,
        slot: &Slot,
        c: Control,
        action: &'static str,
    ) -> Result<(), ManagerError> {
        let state = lock(&slot.status).state;
        match lock(&slot.control).as_ref() {
            Some(tx) if tx.send(c).is_ok() => Ok(()),
            _ => Err(ManagerError::WrongState {
                id: id.to_string(),
                state,
                action,
            }),
        }
    }

    /// `start`: a created or paused crawl starts fetching; a finished one resumes from disk.
    pub fn start(self: &Arc<Self>, id: &str) -> Result<CrawlState, ManagerError> {
        let slot = self.slot(id)?;
        let state = lock(&slot.status).state;
        match state {
            CrawlState::Running => {}
            CrawlState::Created | CrawlState::Paused => {
                // Opened paused and resumed, as a crawl that took intake first would be.
                self.wake(id, &slot);
                self.send(id, &slot, Control::Resume, "start")?
            }
            CrawlState::Finished | CrawlState::Failed => {
                let mut control = lock(&slot.control);
                if control.is_some() {
                    return Err(ManagerError::WrongState {
                        id: id.into(),
                        state,
                        action: "start while stopping",
                    });
                }
                {
                    let mut st = lock(&slot.status);
                    st.error = None;
                    st.stop_reason = None;
                    st.stop = None;
                }
                self.launch(id, &slot, &mut control, false);
            }
        }
        slot.stats.event("crawl-started", id);
        self.set_state(id, &slot, CrawlState::Running)?;
        Ok(CrawlState::Running)
    }

    /// `pause`: fetches in flight finish; nothing new starts; state stays on disk.
    pub fn pause(&self, id: &str) -> Result<CrawlState, ManagerError> {
        let slot = self.slot(id)?;
        self.require(id, &slot, &[CrawlState::Running], "pause")?;
        self.send(id, &slot, Control::Pause, "pause")?;
        self.set_state(id, &slot, CrawlState::Paused)?;
        Ok(CrawlState::Paused)
    }

    /// `resume`: a paused crawl fetches again.
    pub fn resume(&self, id: &str) -> Result<CrawlState, ManagerError> {
        let slot = self.slot(id)?;
        self.require(
            id,
            &slot,
            &[CrawlState::Paused, CrawlState::Running],
            "resume",
        )?;
        self.send(id, &slot, Control::Resume, "resume")?;
        self.set_state(id, &slot, CrawlState::Running)?;
        Ok(CrawlState::Running)
    }

    /// `stop`: ends the crawl and seals its WARC files (asynchronously; the state turns
    /// `finished` when the engine is done). A created crawl that never opened has nothing to
    /// seal: it turns `finished` (`interrupted`) at once. `by` (`cockpit`, `api`) is recorded
    /// with the time, for the crawl's outcome.
    pub fn stop(&self, id: &str, by: &str) -> Result<CrawlState, ManagerError> {
        let slot = self.slot(id)?;
        let state = lock(&slot.status).state;
        if matches!(state, CrawlState::Finished | CrawlState::Failed) {
            return Ok(state);
        }
        {
            let control = lock(&slot.control);
            let mut st = lock(&slot.status);
            if st.stop.is_none() {
                st.stop = Some(StopMark::now(by));
            }
            if control.is_none() && st.state == CrawlState::Created {
                let reason = crate::crawl::engine::StopReason::Interrupted.as_str();
                st.state = CrawlState::Finished;
                st.stop_reason = Some(reason.to_string());
                drop((st, control));
                // Before the save, so the event is kept with the status.
                slot.stats
                    .event("crawl-finished", format!("{id}: {reason}"));
                self.save(id, &slot)?;
                return Ok(state);
            }
        }
        self.send(id, &slot, Control::Stop, "stop")?;
        Ok(state)
    }

    fn require(
        &self,
        id: &str,
        slot: &Slot,
        ok: &[CrawlState],
        action: &'static str,
    ) -> Result<(), ManagerError> {
        let state = lock(&slot.status).state;
        if ok.contains(&state) {
            Ok(())
        } else {
            Err(ManagerError::WrongState {
                id: id.into(),
                state,
                action,
            })
        }
    }

    /// Every crawl with its state and live statistics.
    pub fn list(&self) -> Vec<CrawlView> {
        let crawls = lock(&self.crawls).clone();
        crawls.iter().map(|(id, s)| view(id, s)).collect()
    }

    /// One crawl.
    pub fn get(&self, id: &str) -> Result<CrawlView, ManagerError> {
        Ok(view(id, &*self.slot(id)?))
    }

    /// The crawl's validated spec.
    pub fn spec(&self, id: &str) -> Result<Arc<Spec>, ManagerError> {
        Ok(self.slot(id)?.spec.clone())
    }

    /// The data folder (`DATA/<crawl>/` holds each crawl), for the index and export routes.
    pub fn data(&self) -> &std::path::Path {
        &self.data
    }

    /// The crawl's live statistics (for metrics and events).
    pub fn stats(&self, id: &str) -> Result<Arc<Stats>, ManagerError> {
        Ok(self.slot(id)?.stats.clone())
    }

    /// Asks every open crawl to stop and waits (up to `grace`) for them to seal their files.
    pub async fn shutdown(&self, grace: std::time::Duration) {
        self.closing
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let crawls = lock(&self.crawls).clone();
        for slot in crawls.values() {
            if let Some(tx) = lock(&slot.control).as_ref() {
                let _ = tx.send(Control::Stop);
            }
        }
        let deadline = tokio::time::Instant::now() + grace;
        while crawls.values().any(|s| lock(&s.control).is_some())
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}

fn view(id: &str, slot: &Slot) -> CrawlView {
    let status = lock(&slot.status).clone();
    let reason = status.stop_reason.clone().unwrap_or_default();
    let stats = slot.stats.summary(id, &reason, vec![]);
    let outcome = classify(
        status.state,
        status.stop_reason.as_deref(),
        status.error.as_deref(),
        &stats,
        status.stop.as_ref(),
        slot.spec.limits.max_pages,
    );
    CrawlView {
        id: id.to_string(),
        state: status.state,
        error: status.error,
        outcome,
        stats,
        focus: slot.stats.focus(),
        workflow: status.workflow.unwrap_or_else(|| id.to_string()),
        created: status.created,
    }
}

/// A time as RFC 3339 in UTC, to the second (as status files and the API write times).
fn rfc3339(t: std::time::SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
