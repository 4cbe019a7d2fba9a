//! The engine's side of the online stages: setting up the analyzer, the application-aware
//! helper and the index for a crawl; and [`Online`], the part that owns their state on the
//! engine's side: per finished page, it learns reference pages into the topic and refits the
//! weights, keeps the live focus statistics, and hands the located capture and its web
//! objects to the indexer.

use super::focus::RecentFetch;
use super::pipeline::PageFacts;
use super::reindex::TextLimits;
use super::stats::Stats;
use super::CrawlError;
use crate::aah::{AppMatch, Helper};
use crate::analysis::{Analyzer, RawWeights, ReferenceVector, Topic, WeightLearner};
use crate::archive::{Checkpoint, RecordLocation};
use crate::frontier::UrlLease;
use crate::index::{
    self, CaptureDoc, Index, IndexError, Indexer, IndexerConfig, Location, ObjectDoc, RevisitOf,
};
use crate::spec::Spec;
use crate::store::{Entry, Key, Meta, Store};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Pages between two refits of the learned score weights.
pub const REFIT_PAGES: u64 = 50;

/// The crawl's analyzer: around the stored topic when the crawl resumes, else from the spec.
pub fn analyzer(spec: &Spec, store: &Store) -> Result<Option<Analyzer>, CrawlError> {
    let Some(cfg) = &spec.analysis else {
        return Ok(None);
    };
    let stored: Option<Topic> =
        super::state::read_json(store, &Key::Meta(Meta::Topic).bytes(), "the learned topic")?;
    let topic = stored.unwrap_or_else(|| cfg.topic.clone());
    Ok(Some(Analyzer::from_topic(topic, &cfg.scoring)))
}

/// The application-aware helper, when enabled: the spec's knowledge-base folder, or the
/// knowledge base built into the program. It keeps what it learns in the crawl's store.
pub fn helper(spec: &Spec, store: Store) -> Result<Option<Arc<Helper>>, CrawlError> {
    let Some(aah) = &spec.aah else {
        return Ok(None);
    };
    let h = match &aah.kb {
        Some(dir) => Helper::load(dir)?,
        None => Helper::from_kb(crate::aah::builtin()?),
    };
    Ok(Some(Arc::new(h.with_store(store))))
}

/// Opens the crawl's index and indexes what the archive holds beyond its last commit (the
/// documents a crash kept out of it).
pub fn open_index(
    spec: &Spec,
    data: &Path,
    warc_dir: &Path,
    limits: &TextLimits,
) -> Result<Index, CrawlError> {
    let dir = index::index_dir(data, spec.name());
    let index = Index::open(&dir)?;
    limits.save(&dir)?;
    let report = super::reindex::catch_up(&index, warc_dir, limits)?;
    if report.captures > 0 || !report.errors.is_empty() {
        tracing::info!(?report, "index caught up with the archive");
    }
    Ok(index)
}

/// Writes the topic where the server reads it (`topic.json`); the store keeps the copy that
/// counts, so a failed write only costs the live view.
pub fn write_topic(path: &Path, json: &[u8]) -> Result<(), CrawlError> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, json)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|source| CrawlError::Topic {
            path: path.display().to_string(),
            source,
        })
}

/// Starts the live indexer. The catch-up's writer lock can stay held for a moment after that
/// writer is dropped; nothing else in this process writes the index (the crawl store's lock
/// keeps a second process out), so a held lock is waited for, up to a second.
pub fn start_indexer(index: &Index) -> Result<Indexer, CrawlError> {
    let mut tries = 0;
    loop {
        match index.indexer(IndexerConfig::default()) {
            Err(IndexError::Locked { .. }) if tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            r => return Ok(r?),
        }
    }
}

/// Where a page's records landed, and what it was a revisit of.
pub struct Archived {
    /// Locations of the members appended: the response (or revisit) first.
    pub locations: Vec<RecordLocation>,
    /// For a revisit, the original capture.
    pub revisit_of: Option<RevisitOf>,
}

/// The online stages' state on the engine's side: the analyzer, the weight learner, the
/// published copy of the topic, the live indexer. Each page's worker gets the analyzer as it is
/// when the page is handed out ([`Online::analyzer`]); what is learned replaces it here.
pub(super) struct Online {
    /// The topical scorer, when the spec has a topic.
    analyzer: Option<Arc<Analyzer>>,
    stats: Arc<Stats>,
    indexer: Option<Indexer>,
    /// Where the topic is published for the server (`topic.json`).
    topic_file: Option<PathBuf>,
    /// A learned topic not yet published: written at the next commit, after the store holds
    /// it, off the async workers.
    unpublished: Option<Vec<u8>>,
    /// Learns the score weights from fetched pages (`scoring.learn`; see `analysis::learn`).
    learner: Option<WeightLearner>,
}

impl Online {
    /// The online part of a crawl; `learn` refits the weights as pages are fetched.
    pub(super) fn new(
        analyzer: Option<Analyzer>,
        stats: Arc<Stats>,
        indexer: Option<Indexer>,
        topic_file: Option<PathBuf>,
        learn: Option<&RawWeights>,
    ) -> Online {
        Online {
            analyzer: analyzer.map(Arc::new),
            stats,
            indexer,
            topic_file,
            unpublished: None,
            learner: learn.map(WeightLearner::new),
        }
    }

    /// Everything done with a page's online-stage results once its records are written:
    /// topic, weights, statistics, index. Returns the store write of a topic that changed, for
    /// the engine's next commit.
    pub(super) fn after_page(
        &mut self,
        lease: &UrlLease,
        status: u16,
        page: Option<PageFacts>,
        capture: Option<CaptureDoc>,
        archived: &Archived,
    ) -> Result<Option<Entry>, CrawlError> {
        let page = page.unwrap_or_default();
        let topic = match &page.reference {
            Some(reference) => self.learn_reference(reference)?,
            None => None,
        };
        if let (Some(parts), Some(a)) = (&lease.uri.parts, &page.analysis) {
            self.learn_weights(parts, a.relevance);
        }
        self.observe(lease, status, &page);
        if page.analysis.is_some() {
            self.calibrate(page.reference.is_some());
        }
        self.index_capture(
            capture,
            archived,
            page.app.as_ref(),
            Some(lease.uri.priority),
        )?;
        Ok(topic)
    }

    /// Hands a capture, located in the archive, to the indexer, with the web objects the
    /// helper extracted from it (a revisit's objects belong to the original).
    pub(super) fn index_capture(
        &self,
        capture: Option<CaptureDoc>,
        archived: &Archived,
        app: Option<&AppMatch>,
        priority: Option<f32>,
    ) -> Result<(), CrawlError> {
        let (Some(indexer), Some(doc)) = (&self.indexer, capture) else {
            return Ok(());
        };
        let Some((first, rest)) = archived.locations.split_first() else {
            return Ok(());
        };
        let doc = doc.finish(
            first.into(),
            rest.first().map(Location::from),
            priority,
            archived.revisit_of.clone(),
        );
        if let Some(m) = app.filter(|_| doc.revisit_of.is_none()) {
            for obj in &m.objects {
                let fields = obj.fields.iter().map(|(k, v)| (k.as_str(), v.as_str()));
                indexer.object(ObjectDoc::from_fields(&obj.kind, fields, &doc))?;
            }
        }
        indexer.capture(doc)?;
        Ok(())
    }

    /// Publishes a topic learned since the last commit, and tells the indexer how far the
    /// archive is committed (it commits tantivy now and then). Called with the engine's commit,
    /// after the store's, off the async workers.
    pub(super) fn commit(&mut self, checkpoint: Option<Checkpoint>) -> Result<(), CrawlError> {
        if let (Some(path), Some(json)) = (&self.topic_file, self.unpublished.take()) {
            write_topic(path, &json)?;
        }
        if let (Some(indexer), Some(cp)) = (&self.indexer, checkpoint) {
            indexer.commit(cp)?;
        }
        Ok(())
    }

    /// Closes the indexer at the end of the crawl, at the archive's last checkpoint.
    pub(super) fn close(&mut self, last: Option<Checkpoint>) -> Result<(), CrawlError> {
        if let Some(indexer) = self.indexer.take() {
            indexer.close(last)?;
        }
        Ok(())
    }

    /// The analyzer as it is now, for the next page handed out.
    pub(super) fn analyzer(&self) -> Option<Arc<Analyzer>> {
        self.analyzer.clone()
    }

    /// Whether the crawl scores pages against a topic.
    pub(super) fn topical(&self) -> bool {
        self.analyzer.is_some()
    }

    /// Adds a reference page to the topic vector, for the pages handed out after it; returns
    /// the topic's store write.
    fn learn_reference(&mut self, v: &ReferenceVector) -> Result<Option<Entry>, CrawlError> {
        let Some(current) = &self.analyzer else {
            return Ok(None);
        };
        let mut a = (**current).clone();
        a.add_reference_vector(v);
        let json = super::state::to_json(a.topic(), "the learned topic")?;
        self.unpublished = Some(json.clone());
        self.analyzer = Some(Arc::new(a));
        Ok(Some((Key::Meta(Meta::Topic).bytes(), json)))
    }

    /// Counts a fetched page as evidence of what its link's components predict, and every
    /// [`REFIT_PAGES`] pages shares an analyzer with the weights refitted.
    fn learn_weights(&mut self, link: &crate::model::ScoreParts, relevance: f32) {
        let Some(learner) = &mut self.learner else {
            return;
        };
        learner.observe(link, relevance);
        if learner.observed() % REFIT_PAGES != 0 {
            return;
        }
        let (Some(current), Some(w)) = (&self.analyzer, learner.fit()) else {
            return;
        };
        self.stats.event(
            "weights-learned",
            format!(
                "after {} pages: document {:.2}, paragraph {:.2}, anchor {:.2}, url {:.2}, parent {:.2}",
                learner.observed(),
                w.document,
                w.paragraph,
                w.anchor,
                w.url,
                w.parent
            ),
        );
        self.analyzer = Some(Arc::new(current.with_weights(w)));
    }

    /// With a calibrated threshold (`scoring.calibrate`), shares an analyzer that flags pages
    /// relevant at it, so the analysis records and the `parent` score agree with the harvest
    /// ratio: after every reference page and every [`REFIT_PAGES`] analysed pages.
    fn calibrate(&mut self, reference: bool) {
        let (threshold, calibrated, analysed) = {
            let f = self.stats.focus.lock().unwrap_or_else(|p| p.into_inner());
            let (t, c) = f.threshold();
            (t, c, f.snapshot_analysed())
        };
        if !calibrated || !(reference || analysed % REFIT_PAGES == 0) {
            return;
        }
        let Some(current) = &self.analyzer else {
            return;
        };
        let t = threshold as f32;
        if (current.threshold() - t).abs() < 1e-4 {
            return;
        }
        self.analyzer = Some(Arc::new(current.with_threshold(t)));
    }

    fn observe(&self, lease: &UrlLease, status: u16, page: &PageFacts) {
        let mut f = self.stats.focus.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(a) = &page.analysis {
            f.analysed(a.relevance, a.relevant, a.lang_wanted, a.lang.as_deref());
            if page.reference.is_some() {
                f.reference(a.relevance);
            }
        }
        let app = page.app.as_ref().and_then(|m| m.application.as_ref());
        if let Some(app) = app {
            f.application(&lease.host, &app.name);
        }
        f.fetched(RecentFetch {
            url: lease.uri.url.clone(),
            status,
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            relevance: page.analysis.as_ref().map(|a| a.relevance),
            priority: lease.uri.priority,
            source: lease.uri.source.clone(),
            app: app.map(|a| a.name.clone()),
            level: page
                .app
                .as_ref()
                .and_then(|m| m.level.as_ref())
                .map(|l| l.name.clone()),
            components: lease.uri.parts,
        });
    }
}
