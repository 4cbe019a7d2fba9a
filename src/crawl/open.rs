//! Opening a crawl, off the async workers: the data folder, the store, the frontier, archive
//! recovery, the index and its catch-up, the WARC writer, the topic. All of it is
//! blocking file work, so `crawl::run` runs it on a blocking thread.

use super::dedup::Dedup;
use super::stages::Stages;
use super::{online, state, CrawlError, CrawlOptions};
use crate::aah::Helper;
use crate::analysis::Analyzer;
use crate::archive::{self, WarcWriter};
use crate::frontier::Frontier;
use crate::index::Indexer;
use crate::spec::Spec;
use crate::store::Store;
use std::path::PathBuf;
use std::sync::Arc;

/// The parts of an opened crawl, for the engine.
pub(super) struct Opened {
    pub spec: Arc<Spec>,
    pub stages: Stages,
    pub frontier: Frontier,
    /// The crawl's store, for the engine's reads and its one transaction.
    pub store: Store,
    pub writer: WarcWriter,
    pub helper: Option<Arc<Helper>>,
    pub dedup: Option<Dedup>,
    pub analyzer: Option<Analyzer>,
    pub indexer: Option<Indexer>,
}

/// Opens (or resumes) the crawl of `spec` under `opts.data`, recovers its archive to the last
/// checkpoint, and catches its index up.
pub(super) fn open(spec: Arc<Spec>, opts: &CrawlOptions) -> Result<Opened, CrawlError> {
    let stages = Stages::derive(&spec, opts);
    let layout = &stages.layout;
    let io_err = |path: PathBuf| {
        move |source| CrawlError::DataDir {
            path: path.display().to_string(),
            source,
        }
    };
    std::fs::create_dir_all(&opts.data).map_err(io_err(opts.data.clone()))?;
    if opts.fresh {
        if let Some(to) = layout.move_aside().map_err(io_err(layout.root.clone()))? {
            tracing::info!("moved the previous crawl aside to {}", to.display());
        }
    }
    let resuming = layout.exists();
    let store = state::open(layout)?;
    let spec_json =
        serde_json::to_string_pretty(spec.written()).map_err(|source| CrawlError::Encode {
            what: format!("the spec for {}", layout.spec().display()),
            source,
        })?;
    std::fs::write(layout.spec(), spec_json).map_err(io_err(layout.spec()))?;

    let helper = online::helper(&spec, store.clone())?;
    let dedup = spec.warc.dedup.then(|| Dedup::new(store.clone()));
    let mut frontier = Frontier::open(store.clone(), spec.frontier.clone())?;
    // An older crawl's queues, kept in sled before the frontier had its log, move into it once.
    frontier.migrate_older_state()?;
    let checkpoint = state::checkpoint(&store)?;
    let report = archive::recover(&layout.warc(), checkpoint.as_ref())?;
    tracing::info!(?report, resuming, "archive recovered");
    if report.kept_after_checkpoint > 0 {
        // The sealed file keeps them; their URLs are fetched and archived again.
        tracing::warn!(
            file = report.sealed.as_deref().unwrap_or_default(),
            bytes = report.kept_after_checkpoint,
            "records after the last commit kept in a sealed WARC file; their URLs are fetched again"
        );
    }
    let indexer = match spec.index {
        true => Some(online::start_indexer(&online::open_index(
            &spec,
            &opts.data,
            &layout.warc(),
            &stages.index_text,
        )?)?),
        false => None,
    };
    let writer = WarcWriter::create(stages.writer.clone())?;
    let analyzer = online::analyzer(&spec, &store)?;
    if let Some(a) = &analyzer {
        online::write_topic(&layout.topic(), &state::to_json(a.topic(), "the topic")?)?;
    }

    Ok(Opened {
        spec,
        stages,
        frontier,
        store,
        writer,
        helper,
        dedup,
        analyzer,
        indexer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_an_older_crawl_moves_its_queues_into_the_frontier_once() {
        let dir = tempfile::tempdir().unwrap();
        let spec = Spec::from_json(r#"{"name":"old","seeds":["http://a.test/"]}"#).unwrap();
        let opts = CrawlOptions {
            data: dir.path().to_path_buf(),
            fresh: false,
            hostname: "test".into(),
        };
        let layout = super::super::layout::Layout::new(dir.path(), "old");
        layout.create().unwrap();
        crate::frontier::legacy_state(&Store::open(&layout.state()).unwrap());
        let spec = Arc::new(spec);
        let opened = open(spec.clone(), &opts).expect("an older crawl opens");
        assert_eq!(opened.frontier.queued(), 2, "its queued URLs moved");
        drop(opened);
        let opened = open(spec, &opts).expect("and opens again");
        assert_eq!(opened.frontier.queued(), 2, "moved once");
    }
}
