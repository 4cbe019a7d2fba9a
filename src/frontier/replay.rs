//! Opening the frontier: its memory rebuilt by replaying the log up to the commit the crawl
//! state records, and the log's compaction, which writes that memory back as one batch.
//!
//! Every operation is checked as it is replayed: one that does not fit what came before (a
//! record id out of order, an unknown host, a fingerprint seen twice) stops the crawl with an
//! error naming the file and the commit, because going on would lose a URL or fetch one twice.

use super::best_n::BestN;
use super::host::Host;
use super::journal::{Journal, JournalError};
use super::ops::{self, Op};
use super::table::{Row, Slot, UrlTable};
use super::{keys, Frontier, FrontierConfig, FrontierError, NO_HOST};
use crate::store::{Key, Meta, Store, StoreError, WriteSet};
use std::collections::HashMap;
use std::time::Instant;

/// Compaction starts when the log is this many times the size of a compacted one (and at
/// least [`COMPACT_MIN`]), so its cost stays a fixed share of the logging.
const COMPACT_RATIO: u64 = 4;
/// A log smaller than this is never compacted: compacting it would save little.
const COMPACT_MIN: u64 = 64 << 20;

/// The memory a replay builds.
#[derive(Default)]
struct Replay {
    table: UrlTable,
    hosts: Vec<Host>,
    ids: HashMap<String, u32>,
}

impl Replay {
    fn apply(&mut self, op: Op) -> Result<(), String> {
        let len = self.table.len();
        let known = |rid: u32| {
            ((rid as usize) < len)
                .then_some(rid)
                .ok_or_else(|| format!("URL {rid} before it was added"))
        };
        let slot = |b: u8| Slot::from_byte(b).ok_or_else(|| format!("state byte {b}"));
        match op {
            Op::Host { id, name, origin } => {
                if id as usize != self.hosts.len() || self.ids.contains_key(&name) {
                    return Err(format!("host {name} added as {id} out of order"));
                }
                self.ids.insert(name.clone(), id);
                self.hosts.push(Host::new(id, name, origin));
            }
            Op::Add {
                rid,
                host,
                fp,
                prio,
                slot: s,
                scores,
                sum,
                offset,
            } => {
                if rid as usize != len {
                    return Err(format!("URL {rid} added as URL {len}"));
                }
                if host != NO_HOST && host as usize >= self.hosts.len() {
                    return Err(format!("URL {rid} on unknown host {host}"));
                }
                if self.table.find(fp).is_some() {
                    return Err(format!("URL {rid} has the fingerprint of an earlier one"));
                }
                let slot = slot(s)?;
                if slot == Slot::Leased {
                    return Err(format!("URL {rid} added as leased"));
                }
                let row = Row {
                    fp,
                    host,
                    prio,
                    slot,
                    scores,
                    sum,
                    offset,
                };
                self.table.push(row).ok_or("too many URLs")?;
            }
            Op::Score {
                rid,
                prio,
                scores,
                sum,
                offset,
            } => {
                let rid = known(rid)?;
                self.table.set_scores(rid, prio, scores, sum);
                self.table.set_offset(rid, offset);
                self.table.set_patched(rid, true);
            }
            Op::Complete { rid, slot: s } => {
                let rid = known(rid)?;
                let slot = slot(s)?;
                self.table.set_slot(rid, slot);
                if let Some(h) = self.hosts.get_mut(self.table.host(rid) as usize) {
                    match slot {
                        Slot::Done => h.record.fetched += 1,
                        Slot::Failed => h.record.errors += 1,
                        _ => {}
                    }
                }
            }
            Op::Mark { rid, slot: s } => {
                let rid = known(rid)?;
                self.table.set_slot(rid, slot(s)?);
            }
            Op::Retry { rid, offset } => {
                let rid = known(rid)?;
                self.table.set_offset(rid, offset);
                self.table.set_patched(rid, false);
                if let Some(h) = self.hosts.get_mut(self.table.host(rid) as usize) {
                    h.record.errors += 1;
                }
            }
            Op::Counts {
                host,
                fetched,
                errors,
            } => {
                let h = self
                    .hosts
                    .get_mut(host as usize)
                    .ok_or_else(|| format!("counts of unknown host {host}"))?;
                h.record.fetched = fetched;
                h.record.errors = errors;
            }
        }
        Ok(())
    }
}

impl Frontier {
    /// Opens the frontier of the crawl whose state is `store`: replays its log (in the
    /// `frontier` folder beside the store's files) up to the commit the store records, then
    /// seals the log (see [`super::journal`]).
    ///
    /// A log that shows the store held a later commit than it does is
    /// [`StoreError::Damaged`] naming sled's `db` file: the store lost committed writes, and
    /// going on would cut the WARC files back to its older checkpoint.
    /// An older crawl's state is not read here: that is [`Frontier::migrate_older_state`],
    /// the explicit step after opening.
    pub fn open(store: Store, cfg: FrontierConfig) -> Result<Frontier, FrontierError> {
        let committed = match store.get(&Key::Meta(Meta::FrontierCommit).bytes())? {
            None => 0,
            Some(v) => std::str::from_utf8(&v)
                .ok()
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| store.damaged("the frontier's commit number"))?,
        };
        let mut r = Replay::default();
        let opened = Journal::open(&store.path().join("frontier"), committed, |payload| {
            ops::decode_all(payload, |op| r.apply(op))
        });
        let mut journal = match opened {
            Err(JournalError::StateBehind {
                path,
                committed,
                reached,
            }) => {
                return Err(store
                    .damaged_db(format!(
                        "it holds commit {committed}, but the frontier's log {path} shows it \
                         reached commit {reached}: the state database lost committed writes"
                    ))
                    .into())
            }
            other => other?,
        };
        journal.seal(false)?;
        let best = match cfg.best_n {
            Some(_) => BestN::default(),
            None => BestN::off(),
        };
        let mut f = Frontier {
            store,
            cfg,
            journal,
            table: r.table,
            hosts: r.hosts,
            ids: r.ids,
            slots: Default::default(),
            schedule: Default::default(),
            best,
            pacer: Default::default(),
            inflight: 0,
            queued: 0,
            poisoned: None,
            log_was_empty: false,
        };
        for rid in 0..f.table.len() as u32 {
            if f.table.slot(rid) != Slot::Available {
                continue;
            }
            let Some(h) = f.hosts.get_mut(f.table.host(rid) as usize) else {
                return Err(f
                    .store
                    .damaged(format!("queued URL {rid} has no host"))
                    .into());
            };
            h.queued += 1;
            h.enqueue(keys::inverted(f.table.prio(rid)), rid, &mut f.best);
            f.queued += 1;
        }
        let now = Instant::now();
        for hid in 0..f.hosts.len() as u32 {
            f.push(hid, now);
        }
        f.log_was_empty = committed == 0;
        Ok(f)
    }

    /// Makes everything staged durable, atomically: the frontier's log first, then the rest of
    /// the crawl state with the log's commit number (see [`super::journal`]).
    pub fn commit(&mut self) -> Result<(), FrontierError> {
        self.commit_with(WriteSet::default())
    }

    /// [`Frontier::commit`], with the rest of the crawl's transaction (`txn`: the writes its
    /// other parts staged), committed to the frontier's own store handle
    /// ([`Frontier::commit_around`]). Opening a crawl and tests commit so; a crawl's state
    /// commits its store itself.
    pub fn commit_with(&mut self, mut txn: WriteSet) -> Result<(), FrontierError> {
        let changes = self.store.changes(&txn)?;
        let store = self.store.clone();
        self.commit_around(changes, &mut |n| store.commit(stamped(&mut txn, n)))
    }

    /// Makes what the frontier staged durable in its log as commit `n`, then has the caller
    /// commit the store's batch carrying `n` (`commit_store`), then seals the log (proof that
    /// the store holds its last batch), puts a finished rewrite in place and starts one when
    /// the log has grown. Every commit that changes the store (`store_changes`) gets a batch
    /// of its own in the log (an empty one if the frontier staged nothing), so the store's
    /// commit number names one state of it, and the log can tell if the store loses one.
    pub fn commit_around(
        &mut self,
        store_changes: bool,
        commit_store: &mut dyn FnMut(u64) -> Result<(), StoreError>,
    ) -> Result<(), FrontierError> {
        if let Some(e) = self.poisoned.take() {
            return Err(e.into());
        }
        if !self.journal.is_dirty() && store_changes {
            self.journal.force();
        }
        let n = self.journal.commit()?;
        commit_store(n)?;
        self.journal.finish_rewrite(false)?;
        self.journal.seal(false)?;
        let compacted = 38 * self.table.len() as u64 + 64 * self.hosts.len() as u64;
        if self.journal.ops_len() > COMPACT_MIN.max(COMPACT_RATIO * compacted) {
            self.compact(false)?;
        }
        Ok(())
    }

    /// Rewrites the log as the frontier is now, in chunks of about 16 MB, on a thread of its
    /// own from a copy of the URL rows (nothing is staged right after a commit; URLs in flight
    /// are written as queued, as a crash would leave them). The new log takes over at a later
    /// commit, or at once with `wait`.
    pub fn compact(&mut self, wait: bool) -> Result<(), FrontierError> {
        // Bytes of queued records written per batch of the compacted log.
        const CHUNK: usize = 16 << 20;
        let t = self.table.snapshot();
        let hosts: Vec<(String, String, u64, u64)> = self
            .hosts
            .iter()
            .map(|h| {
                (
                    h.name.clone(),
                    h.origin.clone(),
                    h.record.fetched,
                    h.record.errors,
                )
            })
            .collect();
        let (mut next_host, mut next_rid) = (0usize, 0u32);
        self.journal.start_rewrite(move |v| {
            while next_host < hosts.len() && v.len() < CHUNK {
                let (name, origin, fetched, errors) = &hosts[next_host];
                let id = next_host as u32;
                Op::Host {
                    id,
                    name: name.clone(),
                    origin: origin.clone(),
                }
                .encode(v);
                Op::Counts {
                    host: id,
                    fetched: *fetched,
                    errors: *errors,
                }
                .encode(v);
                next_host += 1;
            }
            while (next_rid as usize) < t.len() && v.len() < CHUNK {
                let rid = next_rid;
                next_rid += 1;
                let (scores, sum) = t.scores(rid);
                let slot = match t.slot(rid) {
                    Slot::Leased => Slot::Available,
                    s => s,
                };
                Op::Add {
                    rid,
                    host: t.host(rid),
                    fp: t.fp(rid),
                    prio: t.prio(rid),
                    slot: slot as u8,
                    scores,
                    sum,
                    offset: t.offset(rid),
                }
                .encode(v);
                if t.patched(rid) {
                    // The patch flag comes back with a score entry of the same values.
                    Op::Score {
                        rid,
                        prio: t.prio(rid),
                        scores,
                        sum,
                        offset: t.offset(rid),
                    }
                    .encode(v);
                }
            }
            next_host < hosts.len() || (next_rid as usize) < t.len()
        })?;
        if wait {
            self.journal.finish_rewrite(true)?;
            self.journal.seal(false)?;
        }
        Ok(())
    }

    /// Commits what is staged and syncs the log's seal, for a crawl that stops cleanly: a
    /// store that later loses even this last commit is then caught on opening, whatever
    /// happens to the machine in between.
    pub fn close(&mut self) -> Result<(), FrontierError> {
        self.commit()?;
        self.journal.seal(true)?;
        Ok(())
    }

    /// Bytes the frontier's files and the rest of the crawl state take on disk.
    pub fn size_on_disk(&self) -> u64 {
        self.journal.size_on_disk() + self.store.size_on_disk()
    }

    /// Bytes the URL table holds in memory (for the benchmarks).
    pub fn table_bytes(&self) -> usize {
        self.table.heap_bytes()
    }
}

/// The store's batch of commit `n` (`txn`, taken): with the frontier's commit number, which
/// [`Frontier::open`] checks against its log.
pub(crate) fn stamped(txn: &mut WriteSet, n: u64) -> WriteSet {
    let mut txn = std::mem::take(txn);
    txn.put(
        Key::Meta(Meta::FrontierCommit).bytes(),
        n.to_string().into_bytes(),
    );
    txn
}

#[cfg(test)]
mod tests {
    use super::super::legacy::legacy_state;
    use super::super::tests::cfg;
    use super::*;
    use crate::frontier::keys::UrlState;
    use crate::model::CrawlUri;
    use crate::store::WriteSet;

    #[test]
    fn an_older_crawl_state_moves_into_the_log_and_resumes_where_it_stopped() {
        let dir = tempfile::tempdir().unwrap();
        legacy_state(&Store::open(dir.path()).unwrap());
        let mut f = Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, false)).unwrap();
        assert_eq!(f.queued(), 0, "an explicit step");
        assert!(f.migrate_older_state().unwrap());
        assert_eq!(f.queued(), 2);
        assert_eq!(f.state(13), Some(UrlState::Done));
        assert_eq!(f.host_view("a.test").unwrap().fetched, 1);
        drop(f);
        let mut f = Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, false)).unwrap();
        assert_eq!(f.queued(), 2, "moved once, and durable");
        assert!(!f.migrate_older_state().unwrap(), "once");
        assert!(
            f.store.scan(b"q", 10, |_| false).unwrap().is_empty(),
            "old keys gone"
        );
        let Some(super::super::Lease::Url(l)) = f.next(Instant::now()) else {
            panic!("a URL")
        };
        assert_eq!(l.uri.url, "http://a.test/12", "priority order kept");
    }

    #[test]
    fn an_older_queued_url_that_does_not_parse_is_damage_and_nothing_moves() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        legacy_state(&store);
        let mut ws = WriteSet::default();
        let mut v = 14u64.to_be_bytes().to_vec();
        keys::encode_uri_into(&mut v, &CrawlUri::seed("no scheme here"));
        ws.put(b"qa.test\0\0\0\0\0\0\0\0\0\0\0\0\x09".to_vec(), v);
        store.commit(ws).unwrap();
        let mut f = Frontier::open(store.clone(), cfg(0, false)).unwrap();
        let err = f.migrate_older_state().err().unwrap();
        assert!(err.to_string().contains("no scheme here"), "{err}");
        assert_eq!(store.scan(b"q", 10, |_| false).unwrap().len(), 3, "kept");
    }

    #[test]
    fn a_commit_number_the_log_never_reached_is_damage() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let mut f = Frontier::open(store.clone(), cfg(0, false)).unwrap();
        f.offer(1, "a", "http://a", CrawlUri::seed("http://a/1"));
        f.commit().unwrap();
        drop(f);
        let mut ws = WriteSet::default();
        ws.put(Key::Meta(Meta::FrontierCommit).bytes(), b"7".to_vec());
        store.commit(ws).unwrap();
        let err = Frontier::open(store.clone(), cfg(0, false)).err().unwrap();
        let msg = err.to_string();
        assert!(msg.contains("ops.log") && msg.contains("commit 7"), "{msg}");
        let mut ws = WriteSet::default();
        ws.put(Key::Meta(Meta::FrontierCommit).bytes(), b"x".to_vec());
        store.commit(ws).unwrap();
        let err = Frontier::open(store, cfg(0, false)).err().unwrap();
        assert!(err.to_string().contains("commit number"), "{err}");
    }

    #[test]
    fn a_compacted_log_reopens_as_the_same_frontier() {
        let dir = tempfile::tempdir().unwrap();
        let open = || Frontier::open(Store::open(dir.path()).unwrap(), cfg(0, false)).unwrap();
        let mut f = open();
        for fp in 1..=6u64 {
            let mut u = CrawlUri::seed(format!("http://a/{fp}"));
            u.priority = 0.1 * fp as f32;
            f.offer(fp, "a", "http://a", u);
        }
        let from = CrawlUri {
            source: "api:x".into(),
            inherited: 0.5,
            ..CrawlUri::seed("http://a/1")
        };
        let avg = crate::frontier::update::UpdateFn::Avg;
        f.score(1, "a", "http://a", from, 0.05, avg).unwrap();
        f.blacklist(5, "a").unwrap();
        f.blacklist(99, "b").unwrap();
        let Some(super::super::Lease::Url(l)) = f.next(Instant::now()) else {
            panic!("a URL")
        };
        f.complete(&l, super::super::Completion::Done, None, Instant::now());
        let Some(super::super::Lease::Url(inflight)) = f.next(Instant::now()) else {
            panic!("a URL")
        };
        f.commit().unwrap();
        let before = f.peek(10, None).unwrap();
        let states: Vec<_> = (1..=6).chain([99]).map(|fp| f.state(fp)).collect();
        f.compact(true).unwrap();
        drop(f);
        let f = open();
        assert_eq!(f.host_view("a").unwrap().fetched, 1);
        assert_eq!(
            (1..=6)
                .chain([99])
                .map(|fp| f.state(fp))
                .collect::<Vec<_>>(),
            states
        );
        let after = f.peek(10, None).unwrap();
        assert_eq!(
            after.len(),
            before.len() + 1,
            "the URL in flight is queued again"
        );
        assert_eq!(after[0].url, inflight.uri.url);
        let urls = |v: &[crate::frontier::view::QueuedUrl]| {
            v.iter()
                .map(|q| (q.url.clone(), q.priority, q.source.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            urls(&after[1..]),
            urls(&before),
            "same order, priorities and patches"
        );
        assert!(
            after.iter().any(|q| q.source == "api:x"),
            "the patch is still read"
        );
    }
}
