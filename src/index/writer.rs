//! Writing the index: [`Writer`] adds documents and commits with the WARC position reached;
//! [`Indexer`] runs a writer on its own thread so the crawl engine only sends documents over a
//! channel, and commits tantivy in batches.

use super::doc::{CaptureDoc, ObjectDoc};
use super::schema::{Fields, SCHEMA_VERSION};
use super::{CommitState, Index, IndexError};
use crate::archive::Checkpoint;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tantivy::{IndexReader, IndexWriter, TantivyDocument, TantivyError};

/// Memory tantivy may buffer before it writes a segment.
const WRITER_MEMORY: usize = 48 << 20;

/// Adds documents to an index and commits them together with the WARC position they reach.
///
/// Holds the index lock until dropped. Documents added since the last commit are discarded if
/// the writer is dropped or the process dies; the position stored with each commit lets
/// the crawl's catch-up (`crawl::reindex::catch_up`) index them again from the WARC files.
pub struct Writer {
    w: IndexWriter<TantivyDocument>,
    reader: IndexReader,
    fields: Fields,
    name: String,
    uncommitted: u64,
}

impl Writer {
    pub(super) fn new(index: &Index) -> Result<Writer, IndexError> {
        let w = index
            .inner
            .writer_with_num_threads(1, WRITER_MEMORY)
            .map_err(|e| match e {
                TantivyError::LockFailure(..) => IndexError::Locked {
                    dir: index.name.clone(),
                },
                e => IndexError::Tantivy {
                    context: index.name.clone(),
                    source: e,
                },
            })?;
        Ok(Writer {
            w,
            reader: index.reader.clone(),
            fields: index.fields.clone(),
            name: index.name.clone(),
            uncommitted: 0,
        })
    }

    /// Adds a capture or revisit.
    pub fn add_capture(&mut self, doc: &CaptureDoc) -> Result<(), IndexError> {
        self.add(doc.to_document(&self.fields))
    }

    /// Adds an extracted web object.
    pub fn add_object(&mut self, doc: &ObjectDoc) -> Result<(), IndexError> {
        self.add(doc.to_document(&self.fields))
    }

    fn add(&mut self, d: TantivyDocument) -> Result<(), IndexError> {
        self.w
            .add_document(d)
            .map_err(IndexError::tantivy(format!("{}: add", self.name)))?;
        self.uncommitted += 1;
        Ok(())
    }

    /// Documents added since the last commit.
    pub fn uncommitted(&self) -> u64 {
        self.uncommitted
    }

    /// Removes every document (takes effect at the next commit), before a rebuild.
    pub fn delete_all(&mut self) -> Result<(), IndexError> {
        self.w
            .delete_all_documents()
            .map_err(IndexError::tantivy(format!("{}: delete", self.name)))?;
        Ok(())
    }

    /// Makes everything added durable and visible, recording `position` (how far into the WARC
    /// files the index is complete; `None` keeps no position).
    pub fn commit(&mut self, position: Option<&Checkpoint>) -> Result<(), IndexError> {
        let state = CommitState {
            schema_version: SCHEMA_VERSION,
            position: position.cloned(),
        };
        let payload = serde_json::to_string(&state).map_err(|e| IndexError::Damaged {
            what: format!("index {}: the commit's payload", self.name),
            reason: e.to_string(),
        })?;
        let ctx = format!("{}: commit", self.name);
        let mut prepared = self.w.prepare_commit().map_err(IndexError::tantivy(&ctx))?;
        prepared.set_payload(&payload);
        prepared.commit().map_err(IndexError::tantivy(&ctx))?;
        self.uncommitted = 0;
        self.reader.reload().map_err(IndexError::tantivy(&ctx))?;
        Ok(())
    }
}

/// How the background indexer batches commits.
#[derive(Debug, Clone)]
pub struct IndexerConfig {
    /// Commit tantivy at most this often (each commit writes a segment; the WARC files are the
    /// durable copy meanwhile). Searches see new captures after the next commit.
    pub commit_every: Duration,
    /// Documents queued before [`Indexer::capture`] waits for the indexer thread.
    pub queue: usize,
}

impl Default for IndexerConfig {
    /// Commit every 5 seconds; queue up to 1,024 documents.
    fn default() -> Self {
        IndexerConfig {
            commit_every: Duration::from_secs(5),
            queue: 1024,
        }
    }
}

/// What the indexer thread did, reported by [`Indexer::close`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexerStats {
    /// Documents added.
    pub documents: u64,
    /// tantivy commits made.
    pub commits: u64,
}

enum Msg {
    Capture(Box<CaptureDoc>),
    Object(Box<ObjectDoc>),
    Durable(Checkpoint),
    Close(Option<Checkpoint>),
}

/// Feeds the index from a crawl on its own thread.
///
/// The engine thread only sends: [`Indexer::capture`] after appending a capture's records,
/// [`Indexer::commit`] after each crawl commit with the WARC checkpoint just made durable, and
/// [`Indexer::close`] at the end. Messages are handled in order, so every document sent before
/// a checkpoint lies before it in the WARC files.
pub struct Indexer {
    tx: Option<SyncSender<Msg>>,
    thread: Option<JoinHandle<Result<IndexerStats, IndexError>>>,
    /// The error that stopped the thread, as text, so a send that finds the thread gone can
    /// say why (the error itself is [`Indexer::close`]'s to return).
    cause: Arc<Mutex<Option<String>>>,
}

impl Indexer {
    pub(super) fn start(writer: Writer, cfg: IndexerConfig) -> Result<Indexer, IndexError> {
        let (tx, rx) = mpsc::sync_channel(cfg.queue.max(1));
        let cause = Arc::new(Mutex::new(None));
        let told = cause.clone();
        let thread = std::thread::Builder::new()
            .name("magpie-indexer".into())
            .spawn(move || {
                let result = run(writer, &rx, cfg.commit_every);
                if let Err(e) = &result {
                    *told.lock().unwrap_or_else(|p| p.into_inner()) = Some(stop_cause(e));
                }
                // Only now can a send fail, and find the cause stored.
                drop(rx);
                result
            })
            .map_err(IndexError::io("indexer thread"))?;
        Ok(Indexer {
            tx: Some(tx),
            thread: Some(thread),
            cause,
        })
    }

    fn send(&self, msg: Msg) -> Result<(), IndexError> {
        let Some(tx) = &self.tx else {
            return Err(IndexError::Stopped("closed".into()));
        };
        let sent = match tx.try_send(msg) {
            Ok(()) => Ok(()),
            // The indexer is behind: wait for room without holding an async worker.
            Err(mpsc::TrySendError::Full(msg)) => {
                crate::blocking::off_the_workers(|| tx.send(msg)).map_err(|_| ())
            }
            Err(mpsc::TrySendError::Disconnected(_)) => Err(()),
        };
        sent.map_err(|()| {
            let cause = self.cause.lock().unwrap_or_else(|p| p.into_inner()).clone();
            // The thread stores its error before its end drops the receiver; only a panic
            // ends it without one.
            IndexError::Stopped(cause.unwrap_or_else(|| "it panicked".into()))
        })
    }

    /// Queues a capture (cheap: a channel send; waits only when the queue is full, and then
    /// off the async workers).
    pub fn capture(&self, doc: CaptureDoc) -> Result<(), IndexError> {
        self.send(Msg::Capture(Box::new(doc)))
    }

    /// Queues an extracted web object.
    pub fn object(&self, doc: ObjectDoc) -> Result<(), IndexError> {
        self.send(Msg::Object(Box::new(doc)))
    }

    /// Tells the indexer that the WARC files are durable up to `checkpoint` (call after the
    /// crawl commit). It commits tantivy with this position when `commit_every` has passed.
    pub fn commit(&self, checkpoint: Checkpoint) -> Result<(), IndexError> {
        self.send(Msg::Durable(checkpoint))
    }

    /// Commits what is queued (with `checkpoint`, or the last durable one) and stops the
    /// thread; returns its statistics or the error that stopped it.
    pub fn close(mut self, checkpoint: Option<Checkpoint>) -> Result<IndexerStats, IndexError> {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(Msg::Close(checkpoint));
        }
        self.join()
    }

    fn join(&mut self) -> Result<IndexerStats, IndexError> {
        match self.thread.take() {
            Some(t) => t
                .join()
                .unwrap_or_else(|_| Err(IndexError::Stopped("the indexer thread panicked".into()))),
            None => Ok(IndexerStats::default()),
        }
    }
}

impl Drop for Indexer {
    /// Without [`Indexer::close`], uncommitted documents are dropped (the next start catches
    /// up from the WARC files).
    fn drop(&mut self) {
        self.tx.take();
        let _ = self.join();
    }
}

/// What stopped the indexer thread, said once, with the shortage named when the OS had no file
/// descriptor left for an index file.
pub(super) fn stop_cause(e: &IndexError) -> String {
    match e.out_of_descriptors() {
        Some(errno) => format!(
            "{e} (out of file descriptors, {errno}: raise the open-file limit; the index \
             catches up with the WARC files when the crawl runs again)"
        ),
        None => e.to_string(),
    }
}

fn run(mut w: Writer, rx: &Receiver<Msg>, every: Duration) -> Result<IndexerStats, IndexError> {
    let mut stats = IndexerStats::default();
    let mut last_commit = Instant::now();
    let mut durable: Option<Checkpoint> = None;
    while let Ok(msg) = rx.recv() {
        match msg {
            Msg::Capture(d) => {
                w.add_capture(&d)?;
                stats.documents += 1;
            }
            Msg::Object(d) => {
                w.add_object(&d)?;
                stats.documents += 1;
            }
            Msg::Durable(cp) => {
                durable = Some(cp);
                if w.uncommitted() > 0 && last_commit.elapsed() >= every {
                    w.commit(durable.as_ref())?;
                    stats.commits += 1;
                    last_commit = Instant::now();
                }
            }
            Msg::Close(cp) => {
                if cp.is_some() {
                    durable = cp;
                }
                if w.uncommitted() > 0 && durable.is_some() {
                    w.commit(durable.as_ref())?;
                    stats.commits += 1;
                }
                break;
            }
        }
    }
    Ok(stats)
}
