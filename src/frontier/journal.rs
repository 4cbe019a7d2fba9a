//! The frontier's files: URL records written once, and a log of operations made durable by
//! group commit.
//!
//! - `urls.dat` holds one record per URL (and a small patch per rescore): a frame of body
//!   length, CRC-32 and body. Records are appended and never rewritten; memory keeps each URL's
//!   newest record offset.
//! - `ops.log` holds batches, one per commit: a header (payload length, CRC-32, commit number,
//!   length of `urls.dat` at that commit) and the operations of that commit ([`super::ops`]).
//!
//! [`Journal::commit`] writes and syncs `urls.dat` first, then the batch: a batch never points
//! past URL bytes that could be lost. The commit number is also stored with the rest of the
//! crawl state (in sled, see [`super::Frontier::commit`]); on opening, batches up to that
//! number are replayed and anything after it (a batch whose companion state never committed, or
//! a torn write) is cut off, so the frontier and the crawl state always come back from the same
//! commit.
//!
//! The log is also the witness of the crawl state's commits: batch N+1 is written only once the
//! state holds commit N (and a compacted log, numbered N, once it holds N), so a log with a
//! whole batch numbered two or more past the state's number proves the state lost commits (a
//! damaged sled log can come back, silently, at an earlier commit), and [`Journal::open`] says so ([`JournalError::StateBehind`]) instead of
//! cutting those batches off. To witness the state's last commit too, the frontier writes a
//! *seal* after it ([`Journal::seal`]): an empty batch numbered as the next commit, which the
//! next commit overwrites and the next opening cuts off.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// A journal error, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Reading or writing a file failed.
    #[error("crawl state {path}: {op} failed: {source}")]
    Io {
        /// The file.
        path: String,
        /// What was being done.
        op: &'static str,
        /// The system's reason.
        source: std::io::Error,
    },
    /// A file holds something magpie never wrote, or lost what was committed.
    #[error("crawl state {path} is damaged: {what}; `magpie crawl --fresh` moves the crawl aside and starts over")]
    Damaged {
        /// The file.
        path: String,
        /// What is wrong.
        what: String,
    },
    /// The log proves the crawl state held a later commit than the one it holds now: the state
    /// lost committed writes (the caller names its file). Nothing was changed.
    #[error("crawl state is at commit {committed}, but the frontier's log {path} shows it reached commit {reached}")]
    StateBehind {
        /// The log.
        path: String,
        /// The commit the crawl state holds.
        committed: u64,
        /// The commit the log shows it held.
        reached: u64,
    },
}

const DATA_MAGIC: &[u8; 8] = b"MGPURL1\n";
const OPS_MAGIC: &[u8; 8] = b"MGPOPS1\n";
/// Bytes of a batch header: part of the log's format, not a tunable.
const BATCH_HEADER: usize = 28;
/// Batch kinds: one commit, or one chunk of a compacted log (all numbered as the commit it was
/// written after).
const COMMIT: u32 = 0;
/// (A chunk of a compacted log; see `COMMIT`.)
const CHECKPOINT: u32 = 1;
/// A record or batch larger than this is damage (a URL record is at most a few kilobytes).
const MAX_FRAME: u32 = 1 << 30;

/// The two files and what is staged for the next commit.
pub struct Journal {
    dir: PathBuf,
    data: File,
    /// Bytes of `urls.dat` in the file (synced at the next commit if `unsynced`).
    data_len: u64,
    /// Records were written to `urls.dat` since the last sync.
    unsynced: bool,
    /// URL records appended since the last commit.
    data_buf: Vec<u8>,
    ops: File,
    ops_len: u64,
    /// Operations since the last commit.
    ops_buf: Vec<u8>,
    /// The number of the last commit written.
    commit_no: u64,
    /// The next commit writes a batch even with nothing staged.
    forced: bool,
    /// The seal of `commit_no` is written after the last batch.
    sealed: bool,
    /// A rewrite of `ops.log` in progress.
    rewrite: Option<Rewrite>,
}

impl Journal {
    /// Opens (or creates) the files in `dir` and hands every batch up to commit `committed` to
    /// `replay`, in order; cuts off what follows. `replay` returns a description of damage.
    ///
    /// Fails with [`JournalError::StateBehind`], cutting off nothing, when whole batches after
    /// `committed` show that the crawl state held a later commit.
    pub fn open(
        dir: &Path,
        committed: u64,
        mut replay: impl FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<Journal, JournalError> {
        std::fs::create_dir_all(dir).map_err(io(dir, "creating the folder"))?;
        let data_path = dir.join("urls.dat");
        let ops_path = dir.join("ops.log");
        // A rewrite that never finished is left over; the log it would have replaced is whole.
        match std::fs::remove_file(dir.join("ops.log.new")) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(io(dir, "removing ops.log.new")(e))
            }
            _ => {}
        }
        let data = open_file(&data_path, DATA_MAGIC)?;
        let ops = open_file(&ops_path, OPS_MAGIC)?;
        let damaged = |what: String| JournalError::Damaged {
            path: ops_path.display().to_string(),
            what,
        };
        let ops_size = ops.metadata().map_err(io(&ops_path, "reading"))?.len();
        let mut r = BufReader::with_capacity(1 << 20, &ops);
        let mut pos = OPS_MAGIC.len() as u64;
        let mut skip = [0u8; 8];
        r.read_exact(&mut skip).map_err(io(&ops_path, "reading"))?;
        let (mut last, mut data_len) = (0u64, DATA_MAGIC.len() as u64);
        // The end of the last batch replayed.
        let mut end = pos;
        // The number and `urls.dat` length of the last whole batch read, replayed or not.
        let (mut seen, mut seen_len) = (0u64, data_len);
        // The last commit the crawl state is known to have held: batch N is written once it
        // holds N - 1, and a compacted log once it holds the commit its chunks are numbered as.
        let mut held = 0u64;
        let mut payload = Vec::new();
        // Whether only checkpoint chunks were read so far (a compacted log starts with them).
        let mut checkpoint = true;
        loop {
            let mut h = [0u8; BATCH_HEADER];
            let Ok(()) = r.read_exact(&mut h) else {
                break;
            };
            let len = u32::from_le_bytes(h[0..4].try_into().unwrap_or_default());
            let crc = u32::from_le_bytes(h[4..8].try_into().unwrap_or_default());
            let n = u64::from_le_bytes(h[8..16].try_into().unwrap_or_default());
            let dl = u64::from_le_bytes(h[16..24].try_into().unwrap_or_default());
            let kind = u32::from_le_bytes(h[24..28].try_into().unwrap_or_default());
            // A length past the end of the file is a torn or damaged header: never allocate it.
            if len > MAX_FRAME || pos + (BATCH_HEADER as u64) + u64::from(len) > ops_size {
                break;
            }
            payload.resize(len as usize, 0);
            if r.read_exact(&mut payload).is_err() {
                break;
            }
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(&h[8..]);
            hasher.update(&payload);
            // A compacted log starts with chunks all numbered as the commit it was written
            // after; commits follow one by one, up to the one the crawl state records.
            // Batches after the state's commit are read on, not replayed, to see whether the
            // state lost commits.
            let first = pos == OPS_MAGIC.len() as u64;
            let in_order = match kind {
                COMMIT => n == seen + 1,
                CHECKPOINT => checkpoint && (first || n == seen),
                _ => false,
            };
            if hasher.finalize() != crc || !in_order || dl < seen_len {
                break;
            }
            checkpoint &= kind == CHECKPOINT;
            held = held.max(if kind == CHECKPOINT { n } else { n - 1 });
            (seen, seen_len) = (n, dl);
            pos += (BATCH_HEADER + payload.len()) as u64;
            if n <= committed {
                replay(&payload).map_err(|what| damaged(format!("commit {n}: {what}")))?;
                (last, data_len, end) = (n, dl, pos);
            }
        }
        drop(r);
        if held > committed {
            return Err(JournalError::StateBehind {
                path: ops_path.display().to_string(),
                committed,
                reached: held,
            });
        }
        if last < committed {
            return Err(damaged(format!(
                "it ends at commit {last}, the crawl state at commit {committed}"
            )));
        }
        let on_disk = data.metadata().map_err(io(&data_path, "reading"))?.len();
        if on_disk < data_len {
            return Err(JournalError::Damaged {
                path: data_path.display().to_string(),
                what: format!("{on_disk} bytes, commit {committed} wrote {data_len}"),
            });
        }
        ops.set_len(end).map_err(io(&ops_path, "cutting off"))?;
        data.set_len(data_len)
            .map_err(io(&data_path, "cutting off"))?;
        Ok(Journal {
            dir: dir.to_path_buf(),
            data,
            data_len,
            unsynced: false,
            data_buf: Vec::new(),
            ops,
            ops_len: end,
            ops_buf: Vec::new(),
            commit_no: last,
            forced: false,
            sealed: false,
            rewrite: None,
        })
    }

    /// Makes the next [`Journal::commit`] write a batch even if nothing is staged: the crawl
    /// state changes in that commit, and the log must witness every commit that changes it.
    pub fn force(&mut self) {
        self.forced = true;
    }

    /// Writes the seal after the last batch (once; `sync`: and syncs it): an empty batch
    /// numbered as the next commit, proof that the crawl state holds the last one. Only call
    /// it when the state does (right after its commit, or on opening). Unsynced, the seal
    /// survives a killed process but not a machine that stops; the next commit overwrites it.
    pub fn seal(&mut self, sync: bool) -> Result<(), JournalError> {
        let path = self.dir.join("ops.log");
        if !self.sealed {
            let seal = frame(self.commit_no + 1, COMMIT, self.data_len, &[]);
            self.ops
                .write_all_at(&seal, self.ops_len)
                .map_err(io(&path, "writing"))?;
            self.sealed = true;
        }
        if sync {
            self.ops.sync_data().map_err(io(&path, "syncing"))?;
        }
        Ok(())
    }

    /// The operation buffer of the next commit (see [`super::ops`] for its encoding).
    pub fn ops(&mut self) -> &mut Vec<u8> {
        &mut self.ops_buf
    }

    /// Appends a URL record; returns its offset.
    #[cfg(test)]
    pub fn append(&mut self, body: &[u8]) -> Result<u64, JournalError> {
        self.append_with(|v| v.extend_from_slice(body))
    }

    /// Appends the URL record `encode` writes (straight into the staging buffer); returns its
    /// offset.
    pub fn append_with(&mut self, encode: impl FnOnce(&mut Vec<u8>)) -> Result<u64, JournalError> {
        let offset = self.data_len + self.data_buf.len() as u64;
        let dir = &self.dir;
        let full = || JournalError::Damaged {
            path: dir.join("urls.dat").display().to_string(),
            what: "it is full (a terabyte of URL records)".into(),
        };
        if offset > super::table::MAX_OFFSET {
            return Err(full());
        }
        let start = self.data_buf.len();
        self.data_buf.extend_from_slice(&[0; 8]);
        encode(&mut self.data_buf);
        let body = &self.data_buf[start + 8..];
        let Ok(len) = u32::try_from(body.len()).map(|l| l.min(MAX_FRAME)) else {
            self.data_buf.truncate(start);
            return Err(full());
        };
        let crc = crc32fast::hash(body);
        self.data_buf[start..start + 4].copy_from_slice(&len.to_le_bytes());
        self.data_buf[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
        if self.data_buf.len() >= SPILL {
            crate::blocking::off_the_workers(|| self.spill())?;
        }
        Ok(offset)
    }

    /// Reads the body of the record at `offset` (committed or staged).
    pub fn read(&self, offset: u64) -> Result<Vec<u8>, JournalError> {
        let damaged = |what: &str| JournalError::Damaged {
            path: self.data_path().display().to_string(),
            what: format!("the record at offset {offset} {what}"),
        };
        let frame = |bytes: &[u8]| -> Option<(u32, u32)> {
            let len = u32::from_le_bytes(bytes.get(0..4)?.try_into().ok()?);
            let crc = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?);
            Some((len, crc))
        };
        let body = if offset >= self.data_len {
            let at = (offset - self.data_len) as usize;
            let buf = self.data_buf.get(at..).unwrap_or_default();
            let (len, _) = frame(buf).ok_or_else(|| damaged("is cut short"))?;
            buf.get(8..8 + len as usize)
                .ok_or_else(|| damaged("is cut short"))?
                .to_vec()
        } else {
            let mut head = vec![0u8; 512];
            let got =
                read_at(&self.data, &mut head, offset).map_err(io(&self.data_path(), "reading"))?;
            head.truncate(got);
            let (len, crc) = frame(&head).ok_or_else(|| damaged("is cut short"))?;
            if len > MAX_FRAME || offset + 8 + u64::from(len) > self.data_len {
                return Err(damaged("runs past the end"));
            }
            let mut body = head.split_off(8);
            if body.len() < len as usize {
                let have = body.len();
                body.resize(len as usize, 0);
                self.data
                    .read_exact_at(&mut body[have..], offset + 8 + have as u64)
                    .map_err(io(&self.data_path(), "reading"))?;
            }
            body.truncate(len as usize);
            if crc32fast::hash(&body) != crc {
                return Err(damaged("fails its checksum"));
            }
            body
        };
        Ok(body)
    }

    /// Whether anything is staged.
    pub fn is_dirty(&self) -> bool {
        !self.ops_buf.is_empty() || !self.data_buf.is_empty() || self.unsynced || self.forced
    }

    /// Writes the staged URL records to the file (not synced), so the staging buffer stays
    /// small and the kernel may write them back before the commit's sync. Bytes past the last
    /// commit are cut off on reopening, so this changes nothing after a crash. (Starting their
    /// write-back at once with `sync_file_range` made 10 M inserts 12 % faster, but halved the
    /// rate at 100 M, where it throttled the writer to the disk's pace.)
    fn spill(&mut self) -> Result<(), JournalError> {
        if self.data_buf.is_empty() {
            return Ok(());
        }
        self.data
            .write_all_at(&self.data_buf, self.data_len)
            .map_err(io(&self.data_path(), "writing"))?;
        self.data_len += self.data_buf.len() as u64;
        self.data_buf.clear();
        self.unsynced = true;
        Ok(())
    }

    /// Writes and syncs what is staged as the next commit; returns its number (the last one's
    /// if nothing was staged).
    pub fn commit(&mut self) -> Result<u64, JournalError> {
        if !self.is_dirty() {
            return Ok(self.commit_no);
        }
        self.spill()?;
        if self.unsynced {
            let path = self.data_path();
            self.data.sync_data().map_err(io(&path, "syncing"))?;
            self.unsynced = false;
        }
        let n = self.commit_no + 1;
        let batch = frame(n, COMMIT, self.data_len, &self.ops_buf);
        let path = self.dir.join("ops.log");
        self.ops
            .write_all_at(&batch, self.ops_len)
            .map_err(io(&path, "writing"))?;
        self.ops.sync_data().map_err(io(&path, "syncing"))?;
        self.ops_len += batch.len() as u64;
        self.ops_buf.clear();
        self.commit_no = n;
        (self.forced, self.sealed) = (false, false);
        Ok(n)
    }

    /// Starts replacing the operation log by the whole state, right after a commit, on a
    /// thread of its own: `fill` appends the operations of the next chunk to its buffer and
    /// says whether more follow. The chunks, numbered as that commit, go to `ops.log.new`;
    /// [`Journal::finish_rewrite`] puts the file in place. Does nothing while one is running.
    pub fn start_rewrite(
        &mut self,
        mut fill: impl FnMut(&mut Vec<u8>) -> bool + Send + 'static,
    ) -> Result<(), JournalError> {
        if self.is_dirty() || self.rewrite.is_some() {
            return Ok(());
        }
        let tmp = self.dir.join("ops.log.new");
        let (n, data_len) = (self.commit_no, self.data_len);
        let write = move || -> Result<u64, JournalError> {
            let file = File::create(&tmp).map_err(io(&tmp, "creating"))?;
            let mut f = std::io::BufWriter::with_capacity(1 << 20, file);
            f.write_all(OPS_MAGIC).map_err(io(&tmp, "writing"))?;
            let mut len = OPS_MAGIC.len() as u64;
            let mut chunk = Vec::new();
            loop {
                chunk.clear();
                let more = fill(&mut chunk);
                let batch = frame(n, CHECKPOINT, data_len, &chunk);
                f.write_all(&batch).map_err(io(&tmp, "writing"))?;
                len += batch.len() as u64;
                if !more {
                    break;
                }
            }
            let f = f
                .into_inner()
                .map_err(|e| io(&tmp, "writing")(e.into_error()))?;
            f.sync_all().map_err(io(&tmp, "syncing"))?;
            Ok(len)
        };
        let thread = std::thread::Builder::new()
            .name("frontier-compact".into())
            .spawn(write)
            .map_err(io(&self.dir, "starting the compaction"))?;
        self.rewrite = Some(Rewrite {
            thread,
            from: self.ops_len,
        });
        Ok(())
    }

    /// Puts a finished rewrite in place (`wait`: waits for it to finish), right after a commit:
    /// the batches committed since it started are copied after it, it is synced, then renamed
    /// over the log, so a crash at any point leaves one whole log.
    pub fn finish_rewrite(&mut self, wait: bool) -> Result<(), JournalError> {
        let Some(rw) = self.rewrite.take_if(|rw| wait || rw.thread.is_finished()) else {
            return Ok(());
        };
        let tmp = self.dir.join("ops.log.new");
        let path = self.dir.join("ops.log");
        let len = rw.thread.join().map_err(|_| JournalError::Damaged {
            path: tmp.display().to_string(),
            what: "the compaction stopped".into(),
        })??;
        let mut tail = vec![0u8; (self.ops_len - rw.from) as usize];
        self.ops
            .read_exact_at(&mut tail, rw.from)
            .map_err(io(&path, "reading"))?;
        let f = OpenOptions::new()
            .write(true)
            .open(&tmp)
            .map_err(io(&tmp, "opening"))?;
        f.write_all_at(&tail, len).map_err(io(&tmp, "writing"))?;
        f.sync_all().map_err(io(&tmp, "syncing"))?;
        std::fs::rename(&tmp, &path).map_err(io(&path, "replacing"))?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(io(&self.dir, "syncing"))?;
        self.ops = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(io(&path, "opening"))?;
        self.ops_len = len + tail.len() as u64;
        self.sealed = false;
        Ok(())
    }

    /// Bytes on disk (both files).
    pub fn size_on_disk(&self) -> u64 {
        self.data_len + self.ops_len
    }

    /// Bytes of the operation log.
    pub fn ops_len(&self) -> u64 {
        self.ops_len
    }

    fn data_path(&self) -> PathBuf {
        self.dir.join("urls.dat")
    }
}

/// Frames a batch: payload length, CRC-32 (of what follows it), commit number, length of
/// `urls.dat`, kind; then the payload.
fn frame(n: u64, kind: u32, data_len: u64, payload: &[u8]) -> Vec<u8> {
    let mut batch = Vec::with_capacity(BATCH_HEADER + payload.len());
    batch.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    batch.extend_from_slice(&[0; 4]);
    batch.extend_from_slice(&n.to_le_bytes());
    batch.extend_from_slice(&data_len.to_le_bytes());
    batch.extend_from_slice(&kind.to_le_bytes());
    batch.extend_from_slice(payload);
    let crc = crc32fast::hash(&batch[8..]);
    batch[4..8].copy_from_slice(&crc.to_le_bytes());
    batch
}

/// A rewrite of the operation log running on its own thread.
struct Rewrite {
    /// Writes `ops.log.new`; its length when done.
    thread: std::thread::JoinHandle<Result<u64, JournalError>>,
    /// Length of `ops.log` when the state was taken: the batches after it are copied over.
    from: u64,
}

/// Staged URL records are written out past this many bytes.
const SPILL: usize = 4 << 20;

/// Opens a journal file, writing its magic into a new one and checking it in an old one.
fn open_file(path: &Path, magic: &[u8; 8]) -> Result<File, JournalError> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io(path, "opening"))?;
    let len = f.metadata().map_err(io(path, "reading"))?.len();
    if len == 0 {
        f.write_all_at(magic, 0).map_err(io(path, "writing"))?;
        f.sync_all().map_err(io(path, "syncing"))?;
        return Ok(f);
    }
    let mut head = [0u8; 8];
    if f.read_exact_at(&mut head, 0).is_err() || &head != magic {
        return Err(JournalError::Damaged {
            path: path.display().to_string(),
            what: "it does not start as a magpie frontier file does".into(),
        });
    }
    Ok(f)
}

/// Reads as much as the file has at `offset` into `buf`.
fn read_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read_at(&mut buf[got..], offset + got as u64)? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

fn io<'a>(path: &'a Path, op: &'static str) -> impl Fn(std::io::Error) -> JournalError + 'a {
    move |source| JournalError::Io {
        path: path.display().to_string(),
        op,
        source,
    }
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
