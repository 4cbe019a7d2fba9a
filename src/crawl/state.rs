//! The crawl's persisted state as a crawl reads it back: opening the store, and decoding the
//! values the crawl keeps in it (WARC checkpoint, totals, topic, blocked patterns, digests).
//!
//! Nothing here ever falls back to a default: a state that is missing where a crawl was, empty
//! where it held a crawl, or holding a value that does not decode stops the crawl with an error
//! naming the file and what is damaged. Starting over silently would fetch and archive the whole
//! crawl a second time; `magpie crawl --fresh` is the one way to start over.

use super::layout::Layout;
use super::CrawlError;
use crate::archive::Checkpoint;
use crate::frontier::Frontier;
use crate::store::{Key, Store, StoreError, WriteSet};
use serde::de::DeserializeOwned;

/// The `m` key written into a new store by its first commit: a store without it that is empty
/// lost its contents.
pub(super) const CREATED_KEY: &str = "created";

/// Opens the crawl's store under `layout` (created if the crawl is new).
///
/// Fails when the folder holds WARC files but no store (`state/` deleted: resuming would be a
/// new crawl), and when the store was there before yet holds nothing (its files were truncated
/// or emptied; sled then opens an empty database). A store from before [`CREATED_KEY`] existed
/// that holds anything is taken as it is, and marked.
pub(super) fn open(layout: &Layout) -> Result<Store, CrawlError> {
    let state = layout.state();
    let db_existed = state.join("db").exists();
    if !db_existed {
        let files = warc_files(layout)?;
        if files > 0 {
            return Err(CrawlError::NoState {
                state: state.display().to_string(),
                warc: layout.warc().display().to_string(),
                files,
            });
        }
    }
    layout.create().map_err(|source| CrawlError::DataDir {
        path: layout.root.display().to_string(),
        source,
    })?;
    let store = Store::open(&state)?;
    if store.get(&Key::Meta(CREATED_KEY).bytes())?.is_some() {
        return Ok(store);
    }
    if db_existed && store.is_empty() {
        return Err(StoreError::Damaged {
            path: state.join("db").display().to_string(),
            what: "it holds nothing, yet this crawl ran before (truncated or emptied)".into(),
        }
        .into());
    }
    let mut ws = WriteSet::default();
    let now = serde_json::Value::from(chrono::Utc::now().to_rfc3339());
    ws.put(Key::Meta(CREATED_KEY).bytes(), now.to_string().into_bytes());
    store.commit(ws)?;
    Ok(store)
}

/// WARC files (sealed or `.open`) in the crawl's `warc/` folder.
fn warc_files(layout: &Layout) -> Result<usize, CrawlError> {
    let dir = layout.warc();
    let entries = match std::fs::read_dir(&dir) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(source) => {
            return Err(CrawlError::DataDir {
                path: dir.display().to_string(),
                source,
            })
        }
    };
    let mut n = 0;
    for entry in entries {
        let entry = entry.map_err(|source| CrawlError::DataDir {
            path: dir.display().to_string(),
            source,
        })?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if [".warc.gz", ".warc.gz.open", ".warc"]
            .iter()
            .any(|s| name.ends_with(s))
        {
            n += 1;
        }
    }
    Ok(n)
}

/// Reads and decodes a JSON value the crawl stored under `key`; `what` names it in the error
/// when it does not decode.
pub(super) fn read_json<T: DeserializeOwned>(
    frontier: &Frontier,
    key: &[u8],
    what: &str,
) -> Result<Option<T>, CrawlError> {
    match frontier.read(key)? {
        None => Ok(None),
        Some(v) => serde_json::from_slice(&v)
            .map(Some)
            .map_err(|e| frontier.damaged(format!("{what}: {e}")).into()),
    }
}

/// Encodes a value for the store; `what` names it if that fails (never an empty value stored in
/// its place, which the next run would read as damage).
pub(super) fn to_json<T: serde::Serialize + ?Sized>(
    value: &T,
    what: &str,
) -> Result<Vec<u8>, CrawlError> {
    serde_json::to_vec(value).map_err(|source| CrawlError::Encode {
        what: what.to_string(),
        source,
    })
}

/// The WARC checkpoint committed last, if any.
pub(super) fn checkpoint(frontier: &Frontier) -> Result<Option<Checkpoint>, CrawlError> {
    read_json(
        frontier,
        &Key::Meta("checkpoint").bytes(),
        "the WARC checkpoint",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_crawl_is_marked_and_an_old_store_without_the_mark_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path(), "c");
        let store = open(&layout).expect("a new crawl opens");
        assert!(store
            .get(&Key::Meta(CREATED_KEY).bytes())
            .unwrap()
            .is_some());
        drop(store);

        // A store written before the mark existed, holding a crawl, is taken and marked.
        let old = Layout::new(dir.path(), "old");
        {
            let store = Store::open(&old.state()).unwrap();
            let mut ws = WriteSet::default();
            ws.put(Key::Meta("seq").bytes(), b"3".to_vec());
            store.commit(ws).unwrap();
        }
        std::fs::create_dir_all(old.warc()).unwrap();
        std::fs::write(old.warc().join("x-00000.warc.gz"), b"").unwrap();
        let store = open(&old).expect("an old store opens");
        assert!(store
            .get(&Key::Meta(CREATED_KEY).bytes())
            .unwrap()
            .is_some());
    }

    #[test]
    fn stored_values_that_do_not_decode_are_errors_naming_them() {
        let store = Store::temporary().unwrap();
        let cfg = crate::frontier::FrontierConfig {
            politeness: crate::frontier::politeness::PolitenessConfig {
                min_delay: std::time::Duration::ZERO,
                max_delay: std::time::Duration::ZERO,
                delay_factor: 0.0,
                max_parallel_per_host: 1,
                max_parallel_per_ip: 1,
                max_retry_after: std::time::Duration::ZERO,
            },
            balance_per_queue: 1,
            max_pages_per_host: 10,
            respect_robots: false,
            best_n: None,
        };
        let mut txn = crate::store::WriteSet::default();
        txn.put(Key::Meta("topic").bytes(), b"[1,".to_vec());
        store.commit(txn).unwrap();
        let frontier = Frontier::open(store, cfg).unwrap();
        let err = read_json::<Vec<u8>>(&frontier, &Key::Meta("topic").bytes(), "the learned topic")
            .expect_err("damaged");
        let msg = err.to_string();
        assert!(
            msg.contains("the learned topic") && msg.contains("--fresh"),
            "{msg}"
        );
        assert_eq!(
            read_json::<u8>(&frontier, &Key::Meta("absent").bytes(), "x").unwrap(),
            None
        );
    }
}
