//! Running a crawl: opens (or resumes) the crawl's folder, recovers the archive, wires the stages
//! and drives the engine until it stops.
//!
//! Resume is implicit: running the same spec against the same data folder continues from the
//! last commit. Before the engine starts, the WARC file named in the last checkpoint is cut back
//! to that checkpoint (records past it belong to fetches the store does not know were done, and
//! they will be fetched again) and sealed, if it is still `.open`; a sealed file is never cut.

pub(crate) mod block;
pub(crate) mod control;
pub(crate) mod copies;
pub(crate) mod crawl_log;
pub(crate) mod dedup;
pub(crate) mod engine;
pub(crate) mod focus;
pub mod layout;
pub(crate) mod log_reader;
pub(crate) mod online;
mod open;
pub(crate) mod pipeline;
mod processors;
pub mod progress;
pub mod records;
pub mod reindex;
mod stages;
mod state;
pub mod stats;
pub(crate) mod supervise;
mod verdicts;

use crate::archive::ArchiveError;
use crate::fetch::{FetchError, Fetcher};
use crate::frontier::FrontierError;
use crate::scope::Scope;
use crate::spec::Spec;
use crate::store::StoreError;
pub use control::Control;
use engine::Engine;
use reindex::TextLimits;
use stats::{Stats, Summary};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Why a crawl could not run.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    /// The engine panicked (a bug); the crawl stops with the panic's message.
    #[error("the crawl engine panicked: {0}")]
    Panicked(String),
    /// The processor threads could not be started.
    #[error("cannot start the processor threads: {0}")]
    Threads(std::io::Error),
    /// The data folder cannot be used.
    #[error("data folder {path}: {source}")]
    DataDir {
        /// The folder.
        path: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The frontier failed.
    #[error(transparent)]
    Frontier(#[from] FrontierError),
    /// Writing the archive failed.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// The fetcher could not be built.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The topic or scoring cannot be used.
    #[error(transparent)]
    Analysis(#[from] crate::analysis::AnalysisError),
    /// The knowledge base cannot be loaded, or the helper's store failed.
    #[error(transparent)]
    Aah(#[from] crate::aah::AahError),
    /// The capture index failed.
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
    /// The crawl folder holds WARC files but no crawl state: resuming would start the crawl
    /// over and archive everything again.
    #[error("{state}: no crawl state, but {warc} holds {files} WARC file(s) of this crawl; `magpie crawl --fresh` moves the crawl aside and starts over")]
    NoState {
        /// The missing state folder.
        state: String,
        /// The WARC folder.
        warc: String,
        /// How many WARC files it holds.
        files: usize,
    },
    /// A value of the crawl state could not be encoded for the store; nothing was written.
    #[error("cannot encode {what} for the crawl state: {source}")]
    Encode {
        /// The value.
        what: String,
        /// serde_json's reason.
        source: serde_json::Error,
    },
    /// The topic cannot be published for the server (`topic.json`); the store holds it.
    #[error("cannot publish the topic to {path}: {source}")]
    Topic {
        /// The file.
        path: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The crawl log (`logs/crawl.log`) cannot be written.
    #[error("crawl log: {source}")]
    Log {
        /// What the OS said.
        source: std::io::Error,
    },
}

impl CrawlError {
    /// Whether the error is the crawl's persisted state that cannot be read or written (the
    /// store, or a record of the helper's in it), on which a crawl stops, as against one
    /// exchange's failure.
    pub(crate) fn damages_state(&self) -> bool {
        use crate::aah::AahError;
        matches!(
            self,
            CrawlError::Store(_) | CrawlError::Aah(AahError::Store(_) | AahError::Record { .. })
        )
    }
}

/// How to run a crawl.
#[derive(Debug, Clone)]
pub struct CrawlOptions {
    /// The data folder; the crawl lives in `data/<name>/`.
    pub data: PathBuf,
    /// Move an existing crawl of the same name aside and start over.
    pub fresh: bool,
    /// Name written into WARC file names and warcinfo (the crawling machine).
    pub hostname: String,
}

/// Runs (or resumes) a crawl until it finishes, hits a limit, or is stopped through `control`.
/// `stats` is updated live, for progress bars and the API. With `paused`, the crawl is opened
/// (and accepts intake) but fetches nothing until [`Control::Resume`].
pub async fn run(
    spec: Spec,
    opts: CrawlOptions,
    stats: Arc<Stats>,
    control: mpsc::UnboundedReceiver<Control>,
    paused: bool,
) -> Result<Summary, CrawlError> {
    let spec = Arc::new(spec);
    let opening = tokio::task::spawn_blocking(move || open::open(spec, &opts));
    let o = opening
        .await
        .map_err(|e| CrawlError::Panicked(format!("opening the crawl: {e}")))??;
    let (spec, stages) = (o.spec, o.stages);
    let fetcher = Fetcher::new(stages.fetch)?;
    let dedup_view = o.dedup.as_ref().map(|d| d.view());
    let ctx = Arc::new(pipeline_ctx(
        &spec,
        stages.pipeline_text,
        o.helper,
        dedup_view,
    ));
    let archiver = engine::Archiver::new(o.writer, o.dedup, stats.clone());
    let learn = spec
        .analysis
        .as_ref()
        .filter(|a| a.scoring.learn)
        .map(|a| &a.scoring.weights);
    let part = online::Online::new(
        o.analyzer,
        stats.clone(),
        o.indexer,
        Some(stages.layout.topic()),
        learn,
    );
    let parts = engine::Parts {
        frontier: o.frontier,
        store: o.store,
        archiver,
        fetcher,
        online: part,
    };
    let mut engine = Engine::new(spec.clone(), parts, ctx, stats.clone())?;
    engine.open_log(&stages.layout.logs())?;
    engine.offer_seeds()?;
    engine.commit()?;
    let (reason, files) = engine.run(control, paused).await?;
    Ok(stats.summary(spec.name(), reason.as_str(), files))
}

fn pipeline_ctx(
    spec: &Spec,
    text: TextLimits,
    helper: Option<Arc<crate::aah::Helper>>,
    dedup: Option<dedup::DedupView>,
) -> pipeline::PipelineCtx {
    pipeline::PipelineCtx {
        scope: Scope::new(spec),
        text,
        gzip_level: spec.warc.gzip_level,
        user_agent: spec.politeness.user_agent.clone(),
        helper,
        index: spec.index,
        obey_meta_robots: spec.politeness.respect_robots,
        dedup,
    }
}

/// This machine's host name, for WARC file names (letters, digits and `-` only).
pub fn machine_name() -> String {
    let raw = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let clean: String = raw
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() {
        "localhost".into()
    } else {
        clean
    }
}

#[cfg(test)]
#[path = "spec_extremes_tests.rs"]
mod spec_extremes_tests;
#[cfg(test)]
pub(crate) mod test_crawl;
