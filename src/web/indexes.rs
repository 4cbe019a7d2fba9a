//! The capture indexes the server reads: each crawl's `DATA/<crawl>/index/` opened read-only
//! on first use, kept open, and reloaded so commits made since (by the running crawl or by
//! `magpie index rebuild`) become visible.
//!
//! Reading never takes the index's writer lock, so a crawl can write its index while the API
//! searches it. A crawl without an index yet gets [`IndexError::NoIndex`] (a 409), and nothing
//! is created on disk: the crawl (or a rebuild) is the only one that creates indexes.

use crate::index::{index_dir, Index, IndexError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often an index in use is reloaded: a commit is visible to the API within this time.
pub const REFRESH_EVERY: Duration = Duration::from_millis(250);

struct Entry {
    index: Arc<Index>,
    refreshed: Instant,
}

/// Open indexes by crawl id.
pub struct Indexes {
    data: PathBuf,
    open: Mutex<HashMap<String, Entry>>,
}

impl Indexes {
    /// The cache for the crawls of the data folder `data`.
    pub fn new(data: &Path) -> Indexes {
        Indexes {
            data: data.to_path_buf(),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// The index of `crawl` (an existing crawl: callers check that first), opened on first use
    /// and reloaded when the last reload is older than [`REFRESH_EVERY`]. Blocking: call it
    /// off the request threads.
    pub fn get(&self, crawl: &str) -> Result<Arc<Index>, IndexError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = open.get_mut(crawl) {
            if e.refreshed.elapsed() >= REFRESH_EVERY {
                e.index.refresh()?;
                e.refreshed = Instant::now();
            }
            return Ok(e.index.clone());
        }
        let dir = index_dir(&self.data, crawl);
        // `Index::open` would create an empty index; a reader must not.
        if !dir.join("meta.json").is_file() {
            return Err(IndexError::NoIndex {
                dir: dir.display().to_string(),
            });
        }
        let index = Arc::new(Index::open(&dir)?);
        open.insert(
            crawl.to_string(),
            Entry {
                index: index.clone(),
                refreshed: Instant::now(),
            },
        );
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::reindex::{rebuild, TextLimits};
    use crate::crawl::test_crawl::{Page, SimCrawl};
    use crate::index::{warc_dir, SearchQuery};

    fn total(index: &Index, q: &str) -> u64 {
        index.search(&SearchQuery::text(q)).expect("search").total
    }

    #[test]
    fn a_crawl_without_an_index_is_reported_and_nothing_is_created() {
        let data = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(data.path().join("c")).unwrap();
        let cache = Indexes::new(data.path());
        let err = cache.get("c").err().expect("no index");
        assert!(matches!(err, IndexError::NoIndex { .. }), "{err}");
        assert!(!index_dir(data.path(), "c").exists(), "nothing created");
    }

    #[test]
    fn reads_while_a_writer_holds_the_lock_and_sees_its_commits() {
        let data = tempfile::tempdir().unwrap();
        let warcs = warc_dir(data.path(), "c");
        let mut sim = SimCrawl::new(&warcs, 1 << 20);
        let first = sim.archive(Page::html("/one", "", "<title>One</title><p>osprey</p>"));
        let cp = sim.checkpoint();

        // The writer side, as a running crawl holds it.
        let live = Index::open(&index_dir(data.path(), "c")).unwrap();
        let mut writer = live.writer().unwrap();
        writer.add_capture(&first).unwrap();
        writer.commit(Some(&cp)).unwrap();

        let cache = Indexes::new(data.path());
        let read = cache.get("c").expect("opens read-only beside the writer");
        assert_eq!(total(&read, "osprey"), 1);
        assert!(
            matches!(read.writer().err(), Some(IndexError::Locked { .. })),
            "the writer lock is still the crawl's"
        );

        let second = sim.archive(Page::html("/two", "", "<title>Two</title><p>osprey</p>"));
        let cp = sim.checkpoint();
        writer.add_capture(&second).unwrap();
        writer.commit(Some(&cp)).unwrap();
        std::thread::sleep(REFRESH_EVERY);
        let read = cache.get("c").unwrap();
        assert_eq!(total(&read, "osprey"), 2, "the new commit is visible");
        drop(writer);
        sim.close();

        // A rebuild (writer taken and released again) is followed too.
        rebuild(&live, &warcs, &TextLimits::default()).unwrap();
        std::thread::sleep(REFRESH_EVERY);
        assert_eq!(total(&cache.get("c").unwrap(), "osprey"), 2);
    }
}
