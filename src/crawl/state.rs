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
use crate::frontier::contract::CrawlFrontier;
use crate::frontier::stamped;
use crate::store::{Key, Meta, Store, StoreError, WriteSet};
use serde::de::DeserializeOwned;

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
    if store.get(&Key::Meta(Meta::Created).bytes())?.is_some() {
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
    ws.put(
        Key::Meta(Meta::Created).bytes(),
        now.to_string().into_bytes(),
    );
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

/// The engine's way to the crawl's durable state: the store it reads earlier runs back from,
/// the one write set its parts stage into between commits, and the commit that makes them
/// durable with the frontier's log ([`CrawlState::commit`]). The frontier is not a way in: it
/// reads its own log and keys only.
pub(super) struct CrawlState {
    store: Store,
    txn: WriteSet,
}

impl CrawlState {
    pub(super) fn new(store: Store) -> CrawlState {
        CrawlState {
            store,
            txn: WriteSet::default(),
        }
    }

    /// Reads and decodes a committed JSON value (see [`read_json`]).
    pub(super) fn read_json<T: DeserializeOwned>(
        &self,
        key: &Key,
        what: &str,
    ) -> Result<Option<T>, CrawlError> {
        read_json(&self.store, &key.bytes(), what)
    }

    /// The store, for the parts that read their earlier state back when the crawl opens.
    pub(super) fn store(&self) -> &Store {
        &self.store
    }

    /// Stages a write for the next commit.
    pub(super) fn put(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.txn.put(key, value);
    }

    /// Stages the writes another part gathered (a page's learning).
    pub(super) fn append(&mut self, writes: WriteSet) {
        self.txn.append(writes);
    }

    /// Commits what was staged with the frontier's log, in the order that lets a crash at any
    /// point be recovered, which the frontier keeps ([`CrawlFrontier::commit_around`]): its
    /// log, numbered; then the store's batch, carrying that number; then its seal. The caller
    /// has synced the WARC file the staged checkpoint points into.
    pub(super) fn commit<F: CrawlFrontier + ?Sized>(
        &mut self,
        frontier: &mut F,
    ) -> Result<(), CrawlError> {
        let mut txn = std::mem::take(&mut self.txn);
        let changes = self.store.changes(&txn)?;
        let store = &self.store;
        frontier.commit_around(changes, &mut |n| store.commit(stamped(&mut txn, n)))?;
        Ok(())
    }
}

/// Reads and decodes a JSON value the crawl stored under `key`; `what` names it in the error
/// when it does not decode.
pub(super) fn read_json<T: DeserializeOwned>(
    store: &Store,
    key: &[u8],
    what: &str,
) -> Result<Option<T>, CrawlError> {
    match store.get(key)? {
        None => Ok(None),
        Some(v) => serde_json::from_slice(&v)
            .map(Some)
            .map_err(|e| store.damaged(format!("{what}: {e}")).into()),
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
pub(super) fn checkpoint(store: &Store) -> Result<Option<Checkpoint>, CrawlError> {
    read_json(
        store,
        &Key::Meta(Meta::Checkpoint).bytes(),
        "the WARC checkpoint",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::Frontier;
    use crate::model::CrawlUri;

    #[test]
    fn a_new_crawl_is_marked_and_an_old_store_without_the_mark_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path(), "c");
        let store = open(&layout).expect("a new crawl opens");
        assert!(store
            .get(&Key::Meta(Meta::Created).bytes())
            .unwrap()
            .is_some());
        drop(store);

        // A store written before the mark existed, holding a crawl, is taken and marked.
        let old = Layout::new(dir.path(), "old");
        {
            let store = Store::open(&old.state()).unwrap();
            let mut ws = WriteSet::default();
            ws.put(Key::Meta(Meta::LegacySeq).bytes(), b"3".to_vec());
            store.commit(ws).unwrap();
        }
        std::fs::create_dir_all(old.warc()).unwrap();
        std::fs::write(old.warc().join("x-00000.warc.gz"), b"").unwrap();
        let store = open(&old).expect("an old store opens");
        assert!(store
            .get(&Key::Meta(Meta::Created).bytes())
            .unwrap()
            .is_some());
    }

    fn cfg() -> crate::frontier::FrontierConfig {
        crate::frontier::FrontierConfig {
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
        }
    }

    #[test]
    fn stored_values_that_do_not_decode_are_errors_naming_them() {
        let store = Store::temporary().unwrap();
        let mut txn = crate::store::WriteSet::default();
        txn.put(Key::Meta(Meta::Topic).bytes(), b"[1,".to_vec());
        store.commit(txn).unwrap();
        let err =
            read_json::<Vec<u8>>(&store, &Key::Meta(Meta::Topic).bytes(), "the learned topic")
                .expect_err("damaged");
        let msg = err.to_string();
        assert!(
            msg.contains("the learned topic") && msg.contains("--fresh"),
            "{msg}"
        );
        assert_eq!(
            read_json::<u8>(&store, &Key::Meta(Meta::Blocked).bytes(), "x").unwrap(),
            None
        );
    }

    /// What a crawl committed: every entry of its store, and how many URLs its frontier saw.
    type Committed = (std::collections::BTreeMap<Vec<u8>, Vec<u8>>, usize);

    /// Opens the crawl as `crawl::open` does up to the archive's recovery (the store, then the
    /// frontier; these crawls have no older state to migrate), and reads back everything it
    /// holds.
    fn reopen(layout: &Layout) -> Result<Committed, CrawlError> {
        let store = open(layout)?;
        let frontier = Frontier::open(store.clone(), cfg())?;
        let mut entries = std::collections::BTreeMap::new();
        store.for_each(b"", |k, v| {
            entries.insert(k.to_vec(), v.to_vec());
        })?;
        Ok((entries, frontier.seen_count()))
    }

    /// Commits as a crawl does (`CrawlState::commit`), `commits` times: URLs queued in most
    /// commits, first captures added and removed, a checkpoint and (some commits) a value large
    /// enough for sled's blob files, and some commits that change only the store. Copies the crawl's files to `killed`
    /// while it is still open (what `kill -9` leaves), then closes it cleanly; returns what it
    /// committed.
    fn crawl_like(layout: &Layout, killed: &Layout, commits: u64) -> Committed {
        let store = open(layout).unwrap();
        let mut f = Frontier::open(store.clone(), cfg()).unwrap();
        let mut state = CrawlState::new(store.clone());
        for c in 0..commits {
            let txn = &mut state.txn;
            if c % 4 != 3 {
                for i in 0..8 {
                    let url = format!("http://a.test/{c}/{i}");
                    f.offer(c * 100 + i, "a.test", "http://a.test", CrawlUri::seed(url));
                }
            }
            for i in 0..15 {
                let digest = format!("sha1:{c}-{i}");
                txn.put(Key::FirstCapture(&digest).bytes(), vec![c as u8; 120]);
            }
            if c >= 4 {
                for i in 0..5 {
                    txn.delete(Key::FirstCapture(&format!("sha1:{}-{i}", c - 4)).bytes());
                }
            }
            if c % 25 == 0 {
                txn.put(Key::Meta(Meta::Topic).bytes(), vec![c as u8; 20_000]);
            }
            let cp = format!("{{\"file\":\"x.warc.gz\",\"offset\":{}}}", c * 1000);
            txn.put(Key::Meta(Meta::Checkpoint).bytes(), cp.into_bytes());
            state.commit(&mut f).unwrap();
        }
        copy_dir(&layout.root, &killed.root);
        f.close().unwrap();
        drop((f, state, store));
        let committed = reopen(layout).unwrap();
        assert_eq!(committed.1 as u64, (commits - commits / 4) * 8);
        committed
    }

    fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }

    /// Fault injection: `state/db` cut at a random length, or a random run of bytes in it
    /// overwritten by random bytes or zeros. Opening the crawl then either fails with an error
    /// naming `state/db`, or reads back every committed entry and URL as it was. Never an
    /// earlier commit, nor one with a commit missing: the crawl would cut its WARC files back
    /// to the older checkpoint. Stores of one, two and nine log segments, each closed cleanly
    /// or left as a killed crawl leaves it: sled finds much of the damage itself, but takes a
    /// log cut or garbled in its last segment for one that ends there (an earlier commit, which
    /// the frontier's log must catch). `MAGPIE_FAULT_SEED` repeats a run.
    #[test]
    fn a_cut_or_garbled_state_db_is_an_error_naming_it_or_reads_back_whole() {
        const TRIALS: usize = 300;
        let seed: u64 = std::env::var("MAGPIE_FAULT_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
            });
        eprintln!("fault injection seed: MAGPIE_FAULT_SEED={seed}");
        let mut rng = seed | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let dir = tempfile::tempdir().unwrap();
        let mut stores: Vec<(Layout, Committed, u64)> = Vec::new();
        for commits in [6, 20, 120] {
            let closed = Layout::new(dir.path(), &format!("closed-{commits}"));
            let killed = Layout::new(dir.path(), &format!("killed-{commits}"));
            let want = crawl_like(&closed, &killed, commits);
            for layout in [closed, killed] {
                let len = std::fs::metadata(layout.state().join("db")).unwrap().len();
                stores.push((layout, want.clone(), len));
            }
        }
        let (mut refused, mut whole) = (0, 0);
        for trial in 0..TRIALS {
            let (pristine, want, len) = &stores[trial % stores.len()];
            let len = *len;
            let layout = Layout::new(dir.path(), &format!("t{trial}"));
            copy_dir(&pristine.root, &layout.root);
            let db = layout.state().join("db");
            let f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
            let at = next() % len;
            let damage = match next() % 3 {
                0 => {
                    f.set_len(at).unwrap();
                    format!("cut to {at} of {len} bytes")
                }
                kind => {
                    let n = (1 + next() % 8192).min(len - at);
                    let bytes: Vec<u8> = match kind {
                        1 => (0..n).map(|_| next() as u8).collect(),
                        _ => vec![0; n as usize],
                    };
                    std::os::unix::fs::FileExt::write_all_at(&f, &bytes, at).unwrap();
                    let what = ["", "random bytes", "zeros"][kind as usize];
                    format!("{n} bytes at {at} of {len} overwritten with {what}")
                }
            };
            drop(f);
            let context = format!("seed {seed}, trial {trial}: {damage}");
            match reopen(&layout) {
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.contains(&db.display().to_string()), "{context}: {msg}");
                    refused += 1;
                }
                Ok(got) => {
                    assert!(got.0 == want.0, "{context}: the entries read back differ");
                    assert_eq!(got.1, want.1, "{context}: URLs");
                    whole += 1;
                }
            }
            std::fs::remove_dir_all(&layout.root).unwrap();
        }
        eprintln!("{refused} refused, {whole} read back whole");
        assert!(refused > TRIALS / 2, "most damage is noticed: {refused}");
    }
}
