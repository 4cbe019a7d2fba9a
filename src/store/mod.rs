//! The crawl's durable state: the only module that talks to sled.
//!
//! One sled tree holds everything, with a prefix per family of keys, all named in [`keys`].
//! Writes are staged in a [`WriteSet`], the crawl's one transaction, and applied with
//! [`Store::commit`] as
//! one atomic sled batch followed by a flush, so after a crash the state is exactly that of
//! the last commit. Background flushing is off: nothing reaches disk between commits in a way
//! recovery could observe half-applied. Reads see committed data only; callers keep their own
//! overlay of what they staged.
//!
//! A store that cannot be read is an error, never an empty store or a crash: sled panics on some
//! damaged logs and pages, and those panics (on opening, reading or committing) are caught and
//! reported as [`StoreError::Damaged`] naming the file.
//!
//! sled does not always notice damage, though: a log cut short or garbled can come back without
//! one of its batches, silently. So the store keeps a checksum of its entries (their count and
//! the XOR of a 128-bit hash of each), updated by every commit in the same batch, and recomputes
//! it from a full scan on opening: a store that lost or changed a committed write is
//! [`StoreError::Damaged`]. A store that came back whole but at an earlier commit adds up; the
//! frontier's log catches that one (see `frontier::journal`).

pub(crate) mod keys;
pub use keys::{Family, Key, Meta};
mod checksum;
mod write_set;
use checksum::Checksum;
pub use write_set::WriteSet;

use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A store error; names the path or operation.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// sled could not open the database (it is locked by another process, or damaged).
    #[error("cannot open crawl state at {path}: {source}")]
    Open {
        /// The state folder.
        path: String,
        /// sled's reason.
        source: sled::Error,
    },
    /// The state cannot be read, or holds something magpie never wrote. Starting over would
    /// fetch and archive the whole crawl again, so this stops the crawl instead.
    #[error("crawl state {path} is damaged: {what}; `magpie crawl --fresh` moves the crawl aside and starts over")]
    Damaged {
        /// The file (or folder) concerned.
        path: String,
        /// What is wrong.
        what: String,
    },
    /// A read or write failed.
    #[error("crawl state {op} failed: {source}")]
    Io {
        /// What was being done.
        op: &'static str,
        /// sled's reason.
        source: sled::Error,
    },
}

/// sled's log segment size for new stores. With sled's default (512 KiB) and a commit every
/// thousand or so writes, the memory sled holds grows much faster than the data: 8 KB of
/// resident memory per queued URL at a million URLs, and a minute to reopen. With 64 KiB
/// segments the whole process stays near 270 bytes per URL (the 64 MiB cache included) and
/// reopens in seconds. Items above a quarter segment (16 KiB) go to sled's blob files.
const SEGMENT_SIZE: usize = 64 * 1024;

/// The segment size of stores created before [`SEGMENT_SIZE`] was set (sled's default).
const OLD_SEGMENT_SIZE: usize = 512 * 1024;

/// How many times, and how long apart, `Store::open` tries again while the store's lock is held.
const LOCK_RETRIES: usize = 50;
const LOCK_RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// A key and its value.
pub type Entry = (Vec<u8>, Vec<u8>);

/// The crawl state database.
#[derive(Clone)]
pub struct Store {
    db: sled::Db,
    path: PathBuf,
    /// The checksum of the committed entries; held through a commit, so commits are serial.
    sum: Arc<Mutex<Checksum>>,
    /// The folder of a temporary store, removed with its last handle.
    _tmp: Option<std::sync::Arc<tempfile::TempDir>>,
}

impl Store {
    /// Opens (or creates) the state in `path`. A damaged log that makes sled panic, and a store
    /// whose entries do not add up to the checksum its last commit wrote, are reported as
    /// [`StoreError::Damaged`] (naming `path/db`), not as a crash or as whatever sled read back.
    /// This reads every entry once (a full scan; see docs/benchmarks-frontier.md).
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut db = Store::open_sized(path)?;
        // A store closed a moment ago in this process may still be locked by sled's flusher
        // thread, which lets go shortly after the last handle drops: wait for it a little.
        // Another process that really holds the store still gets the error, a second later.
        for _ in 0..LOCK_RETRIES {
            match &db {
                Err(sled::Error::Io(e)) if e.to_string().contains("could not acquire lock") => {
                    std::thread::sleep(LOCK_RETRY_PAUSE);
                    db = Store::open_sized(path)?;
                }
                _ => break,
            }
        }
        let db = db.map_err(|source| match damage(&source) {
            true => StoreError::Damaged {
                path: path.join("db").display().to_string(),
                what: format!("sled cannot read it ({source})"),
            },
            false => StoreError::Open {
                path: path.display().to_string(),
                source,
            },
        })?;
        let store = Store {
            db,
            path: path.to_path_buf(),
            sum: Default::default(),
            _tmp: None,
        };
        store.verify()?;
        Ok(store)
    }

    /// Recomputes the checksum from every entry and compares it with the one the last commit
    /// stored; keeps it for the commits to come. A store from before the checksum existed has
    /// none: its first commit stores it.
    fn verify(&self) -> Result<(), StoreError> {
        let key = Key::Checksum.bytes();
        let mut sum = Checksum::default();
        let mut stored = None;
        let scan = self.guard("scan", || -> sled::Result<()> {
            for item in self.db.iter() {
                let (k, v) = item?;
                if *k == *key {
                    stored = Some(v);
                } else {
                    sum.add(&k, &v);
                }
            }
            Ok(())
        })?;
        scan.map_err(|source| self.failed("scan", source))?;
        if let Some(v) = stored {
            let Some(stored) = Checksum::decode(&v) else {
                return Err(self.damaged_db("its checksum entry does not decode".into()));
            };
            if stored != sum {
                return Err(self.damaged_db(format!(
                    "its entries do not add up to the checksum its last commit wrote ({} entries \
                     read, {} committed): it lost or changed committed writes",
                    sum.entries, stored.entries
                )));
            }
        }
        *self.sum.lock().unwrap_or_else(|e| e.into_inner()) = sum;
        Ok(())
    }

    /// The error for damage found in sled's files, naming its `db` file.
    pub fn damaged_db(&self, what: String) -> StoreError {
        StoreError::Damaged {
            path: self.path.join("db").display().to_string(),
            what,
        }
    }

    /// Opens sled; `Err` only when sled panicked on the files (a damaged log).
    fn open_sized(path: &Path) -> Result<sled::Result<sled::Db>, StoreError> {
        let open = || match Store::open_with(path, SEGMENT_SIZE) {
            // sled refuses another segment size than the one a store was created with.
            Err(sled::Error::Unsupported(why)) if why.contains("io buffer size") => {
                Store::open_with(path, OLD_SEGMENT_SIZE)
            }
            other => other,
        };
        catch_quietly(open).map_err(|why| StoreError::Damaged {
            path: path.join("db").display().to_string(),
            what: format!("its log cannot be read ({why})"),
        })
    }

    fn open_with(path: &Path, segment_size: usize) -> sled::Result<sled::Db> {
        sled::Config::new()
            .path(path)
            .flush_every_ms(None)
            .cache_capacity(64 * 1024 * 1024)
            .segment_size(segment_size)
            .open()
    }

    /// A throw-away store for tests and simulations, in a temporary folder deleted when the
    /// last handle drops (the frontier keeps its own files beside sled's).
    pub fn temporary() -> Result<Store, StoreError> {
        let dir = tempfile::tempdir().map_err(|e| StoreError::Damaged {
            path: std::env::temp_dir().display().to_string(),
            what: format!("no temporary folder can be made there ({e})"),
        })?;
        let db = sled::Config::new()
            .temporary(true)
            .flush_every_ms(None)
            .segment_size(SEGMENT_SIZE)
            .open()
            .map_err(|source| StoreError::Open {
                path: "(temporary)".into(),
                source,
            })?;
        Ok(Store {
            db,
            path: dir.path().to_path_buf(),
            sum: Default::default(),
            _tmp: Some(std::sync::Arc::new(dir)),
        })
    }

    /// The folder of the state, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The error for a persisted value that cannot be decoded: `what` names it (and why).
    pub fn damaged(&self, what: impl Into<String>) -> StoreError {
        StoreError::Damaged {
            path: self.path.display().to_string(),
            what: what.into(),
        }
    }

    /// Whether nothing at all is committed (a new store, or one whose files were emptied).
    pub fn is_empty(&self) -> bool {
        self.db.is_empty()
    }

    /// Reads a committed value.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.guard("get", || self.db.get(key))?
            .map(|v| v.map(|v| v.to_vec()))
            .map_err(|source| self.failed("get", source))
    }

    /// Committed entries whose key starts with `prefix`, in key order, at most `limit`,
    /// skipping those `skip` rejects.
    pub fn scan(
        &self,
        prefix: &[u8],
        limit: usize,
        mut skip: impl FnMut(&[u8]) -> bool,
    ) -> Result<Vec<Entry>, StoreError> {
        let mut out = Vec::new();
        let mut items = self.db.scan_prefix(prefix);
        while let Some(item) = self.guard("scan", || items.next())? {
            if out.len() >= limit {
                break;
            }
            let (k, v) = item.map_err(|source| self.failed("scan", source))?;
            if !skip(&k) {
                out.push((k.to_vec(), v.to_vec()));
            }
        }
        Ok(out)
    }

    /// Visits every committed entry under `prefix` (used once at start-up to rebuild memory).
    pub fn for_each(
        &self,
        prefix: &[u8],
        mut f: impl FnMut(&[u8], &[u8]),
    ) -> Result<(), StoreError> {
        let mut items = self.db.scan_prefix(prefix);
        while let Some(item) = self.guard("scan", || items.next())? {
            let (k, v) = item.map_err(|source| self.failed("scan", source))?;
            f(&k, &v);
        }
        Ok(())
    }

    /// Whether committing `ws` would change an entry (a write of the value already committed,
    /// or a removal of an absent key, changes nothing).
    pub fn changes(&self, ws: &WriteSet) -> Result<bool, StoreError> {
        let own = Key::Checksum.bytes();
        for (k, v) in &ws.ops {
            if *k != own && self.get(k)?.as_deref() != v.as_deref() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Applies the staged writes atomically, with the checksum they lead to, and makes them
    /// durable. Writes that change nothing are left out; so is the whole batch when none
    /// changes anything. Reading each key's committed value for the checksum costs a lookup
    /// per write, nearly always in sled's cache (see docs/crawling.md).
    pub fn commit(&self, ws: WriteSet) -> Result<(), StoreError> {
        let own = Key::Checksum.bytes();
        let mut kept = self.sum.lock().unwrap_or_else(|e| e.into_inner());
        let mut sum = *kept;
        let mut batch = sled::Batch::default();
        let mut changed = false;
        let read = self.guard("get", || -> sled::Result<()> {
            for (k, v) in ws.ops {
                if k == own {
                    continue;
                }
                let old = self.db.get(&k)?;
                if old.as_deref() == v.as_deref() {
                    continue;
                }
                if let Some(old) = &old {
                    sum.remove(&k, old);
                }
                match v {
                    Some(v) => {
                        sum.add(&k, &v);
                        batch.insert(k, v);
                    }
                    None => batch.remove(k),
                }
                changed = true;
            }
            Ok(())
        })?;
        read.map_err(|source| self.failed("get", source))?;
        if changed {
            batch.insert(own, sum.encode());
            self.guard("commit", || self.db.apply_batch(batch))?
                .map_err(|source| self.failed("commit", source))?;
            *kept = sum;
        }
        drop(kept);
        self.guard("flush", || self.db.flush())?
            .map_err(|source| self.failed("flush", source))?;
        Ok(())
    }

    /// The error for a failed sled operation: [`StoreError::Damaged`] naming the file when sled
    /// found its files damaged, else [`StoreError::Io`].
    fn failed(&self, op: &'static str, source: sled::Error) -> StoreError {
        match damage(&source) {
            true => self.damaged_db(format!("sled found it damaged during {op} ({source})")),
            false => StoreError::Io { op, source },
        }
    }

    /// Runs one sled operation; a panic in sled (it stops on some damaged pages) becomes
    /// [`StoreError::Damaged`] naming the file, so a damaged store never crashes the process.
    fn guard<T>(&self, op: &str, f: impl FnOnce() -> T) -> Result<T, StoreError> {
        catch_quietly(f)
            .map_err(|why| self.damaged_db(format!("sled stopped on it during {op} ({why})")))
    }

    /// Bytes the database occupies on disk.
    pub fn size_on_disk(&self) -> u64 {
        self.db.size_on_disk().unwrap_or(0)
    }
}

/// Whether a sled error means its files are damaged (rather than, say, locked or unwritable):
/// sled reports a failed checksum as corruption, and a file cut short as an unexpected end.
fn damage(e: &sled::Error) -> bool {
    match e {
        sled::Error::Corruption { .. } | sled::Error::ReportableBug(_) => true,
        sled::Error::Io(e) => matches!(
            e.kind(),
            std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::InvalidData
        ),
        _ => false,
    }
}

thread_local! {
    /// Set while [`catch_quietly`] runs on this thread: its panics are expected and reported.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, turning a panic into `Err(message)` without the panic being printed: sled panics
/// on some damaged logs, and the operator must see one error line naming the file, not a
/// backtrace. Panics on other threads still reach the previous hook.
fn catch_quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = std::panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "sled stopped on it".into())
            .chars()
            .take(200)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staged_writes_are_invisible_until_commit_then_durable() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            let mut ws = WriteSet::default();
            ws.put(b"qa".to_vec(), b"1".to_vec());
            ws.put(b"qb".to_vec(), b"2".to_vec());
            ws.delete(b"qb".to_vec());
            assert_eq!(ws.staged(b"qb"), Some(None));
            assert_eq!(store.get(b"qa").unwrap(), None);
            store.commit(ws).unwrap();
            assert_eq!(store.get(b"qa").unwrap().as_deref(), Some(&b"1"[..]));
            assert_eq!(store.get(b"qb").unwrap(), None);
        }
        let store = Store::open(dir.path()).unwrap();
        let rows = store.scan(b"q", 10, |_| false).unwrap();
        assert_eq!(rows, vec![(b"qa".to_vec(), b"1".to_vec())]);
    }

    #[test]
    fn scan_honours_limit_and_skip() {
        let store = Store::temporary().unwrap();
        let mut ws = WriteSet::default();
        for i in 0..10u8 {
            ws.put(vec![b'q', i], vec![i]);
        }
        ws.put(b"s1".to_vec(), vec![]);
        store.commit(ws).unwrap();
        let rows = store.scan(b"q", 3, |k| k[1] % 2 == 0).unwrap();
        let keys: Vec<u8> = rows.iter().map(|(k, _)| k[1]).collect();
        assert_eq!(keys, vec![1, 3, 5]);
        let mut n = 0;
        store.for_each(b"q", |_, _| n += 1).unwrap();
        assert_eq!(n, 10);
    }

    #[test]
    fn a_store_made_with_the_old_segment_size_still_opens() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = sled::Config::new()
                .path(dir.path())
                .segment_size(OLD_SEGMENT_SIZE)
                .open()
                .unwrap();
            db.insert(b"qa", b"1").unwrap();
            db.flush().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.get(b"qa").unwrap().as_deref(), Some(&b"1"[..]));
        let mut ws = WriteSet::default();
        ws.put(b"qb".to_vec(), b"2".to_vec());
        store.commit(ws).unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.scan(b"q", 10, |_| false).unwrap().len(), 2);
    }

    #[test]
    fn a_second_open_of_the_same_folder_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let first = Store::open(dir.path()).unwrap();
        let err = Store::open(dir.path()).err().expect("locked");
        assert!(err.to_string().contains("cannot open crawl state"));
        assert!(err.to_string().contains(&dir.path().display().to_string()));
        // Once closed, it opens again at once, even while sled's flusher thread winds down.
        drop(first);
        Store::open(dir.path()).expect("reopened once closed");
    }

    #[test]
    fn a_damaged_log_is_an_error_naming_the_file_not_a_panic_or_an_empty_store() {
        for damage in ["overwrite", "truncate"] {
            let dir = tempfile::tempdir().unwrap();
            {
                let store = Store::open(dir.path()).unwrap();
                for batch in 0..20u32 {
                    let mut ws = WriteSet::default();
                    for i in 0..100u32 {
                        ws.put(format!("q{batch}-{i}").into_bytes(), vec![7; 100]);
                    }
                    store.commit(ws).unwrap();
                }
            }
            let db = dir.path().join("db");
            let f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
            match damage {
                "overwrite" => std::os::unix::fs::FileExt::write_all_at(&f, &[0; 512], 0).unwrap(),
                _ => f.set_len(0).unwrap(),
            }
            drop(f);
            match Store::open(dir.path()) {
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.contains(&db.display().to_string()), "{msg}");
                    assert!(msg.contains("--fresh"), "{msg}");
                }
                // Truncated, sled takes the log for an empty one (the crawl refuses an empty
                // store it expected to hold a crawl). Overwritten, it either stops on it, or
                // reads back the state of some commit: all of them when the damaged bytes were
                // superseded, or only the first ones when it stopped early and the checksum
                // of that commit adds up (the frontier's log catches that case, not the store).
                // Depending on how its flusher laid the batches out, sled may also skip one
                // batch in the middle, silently: the checksum makes that an error.
                Ok(store) if damage == "truncate" => assert!(store.is_empty()),
                Ok(store) => {
                    let mut per_batch = [0u32; 20];
                    store
                        .for_each(b"q", |k, _| {
                            let k = std::str::from_utf8(&k[1..]).unwrap();
                            let batch: usize = k.split('-').next().unwrap().parse().unwrap();
                            per_batch[batch] += 1;
                        })
                        .unwrap();
                    let whole = per_batch.iter().take_while(|&&n| n == 100).count();
                    assert!(
                        per_batch[whole..].iter().all(|&n| n == 0),
                        "not the state of a commit: {per_batch:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_entry_lost_behind_the_checksum_is_damage_named_on_opening() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            let mut ws = WriteSet::default();
            for i in 0..10u32 {
                ws.put(format!("q{i}").into_bytes(), vec![7; 10]);
            }
            store.commit(ws).unwrap();
            // What sled may do to a damaged log: one committed write gone, the rest read back.
            store.db.remove(b"q3").unwrap();
            store.db.flush().unwrap();
        }
        let err = Store::open(dir.path()).err().expect("damaged");
        let msg = err.to_string();
        assert!(
            msg.contains("9 entries read, 10 committed") && msg.contains("--fresh"),
            "{msg}"
        );
    }

    #[test]
    fn a_panic_inside_sled_becomes_a_message() {
        assert_eq!(catch_quietly(|| 7), Ok(7));
        let quiet: Result<(), String> = catch_quietly(|| panic!("tried to serialize Free"));
        assert_eq!(quiet, Err("tried to serialize Free".to_string()));
        let store = Store::temporary().unwrap();
        let err = store
            .guard("get", || -> u8 { panic!("bad page") })
            .expect_err("damaged");
        assert!(err.to_string().contains("during get (bad page)"), "{err}");
    }
}
