//! Reading the crawl log back (`crawl_log.rs` writes it): its lines parsed into their twelve
//! columns, the log files in order (`crawl.NNNNN.log` by number, then `crawl.log`), and two
//! bounded ways through them for the cockpit: backwards from an offset (the log viewer's pages,
//! newest first, and a URL's lines) and forwards from an offset (the reports' running totals).
//!
//! Nothing here holds a whole file: files are read in blocks of 64 KiB, a line is kept up to
//! [`MAX_LINE`] bytes (a longer one is reported as too long, never stored), and each walk stops
//! after the bytes its caller allows. The bytes after the last line break of a file (a line
//! still being written) are left for the next read.

use serde::Serialize;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

mod entry;
mod totals;

pub use entry::{status_class, status_meaning, Entry, Filter, StatusFilter};
pub use totals::{HostTally, Tally, Totals};

/// Bytes of one line kept at most; longer lines are counted as too long and skipped.
pub const MAX_LINE: usize = 16 << 10;
/// Bytes read at a time.
const BLOCK: usize = 64 << 10;
/// Hosts counted one by one at most; the rest are added up as [`OTHER`].
pub const MAX_HOSTS: usize = 100_000;
/// Media types counted one by one at most.
pub const MAX_MIMES: usize = 2_000;
/// Status codes counted one by one at most.
pub const MAX_STATUSES: usize = 1_000;
/// The bucket of the hosts, media types or codes beyond those limits.
pub const OTHER: &str = "(others)";

/// What went wrong reading the log: the file and the OS's words.
#[derive(Debug, thiserror::Error)]
pub enum LogReadError {
    /// A log file could not be listed, opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// A page cursor names no log file of this crawl.
    #[error("no log file {0:?} in this crawl (cursors look like crawl.00001.log:1234)")]
    UnknownFile(String),
    /// A page cursor that cannot be read.
    #[error("{0:?} is not a log position (FILE:OFFSET, as the page links give it)")]
    BadCursor(String),
}

/// One log file of a crawl.
#[derive(Debug, Clone)]
pub struct LogFile {
    /// Its name (`crawl.00001.log`, `crawl.log`).
    pub name: String,
    /// Its path.
    pub path: PathBuf,
    /// Its length when listed.
    pub len: u64,
    /// Device and inode (on Unix): a rotated file keeps them under its new name, so what was
    /// read of `crawl.log` is known to be read after it became `crawl.NNNNN.log`.
    pub identity: Option<(u64, u64)>,
}

#[cfg(unix)]
fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// The crawl's log files, oldest first: the rotated ones by number, then `crawl.log`. A crawl
/// without a log folder has none.
pub fn log_files(dir: &Path) -> Result<Vec<LogFile>, LogReadError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LogReadError::Io { path, source }
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(io(dir)(e)),
    };
    let mut files: Vec<(u64, LogFile)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let order = if name == "crawl.log" {
            u64::MAX
        } else if let Some(n) = name
            .strip_prefix("crawl.")
            .and_then(|r| r.strip_suffix(".log"))
            .and_then(|n| n.parse::<u64>().ok())
        {
            n
        } else {
            continue;
        };
        let path = entry.path();
        let meta = entry.metadata().map_err(io(&path))?;
        let file = LogFile {
            name,
            len: meta.len(),
            identity: identity(&meta),
            path,
        };
        files.push((order, file));
    }
    files.sort_by_key(|(n, _)| *n);
    Ok(files.into_iter().map(|(_, f)| f).collect())
}

/// A place in the log: the lines of `file` that end before `offset`, and those of the files
/// before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    /// The file's name.
    pub file: String,
    /// A byte offset in it (the start of a line).
    pub offset: u64,
}

impl Cursor {
    /// Reads `FILE:OFFSET`.
    pub fn parse(v: &str) -> Result<Cursor, LogReadError> {
        let bad = || LogReadError::BadCursor(v.chars().take(100).collect());
        let (file, offset) = v.rsplit_once(':').ok_or_else(bad)?;
        Ok(Cursor {
            file: file.to_string(),
            offset: offset.parse().map_err(|_| bad())?,
        })
    }
}

impl std::fmt::Display for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.offset)
    }
}

/// A line as the walks hand it over: where it starts, and its text, or `None` when it is
/// longer than [`MAX_LINE`] or not UTF-8.
pub type Visit<'a> = (u64, Option<&'a str>);

/// Puts `piece` before `acc`, keeping at most [`MAX_LINE`] bytes (`long` once over).
fn prepend(acc: &mut Vec<u8>, long: &mut bool, piece: &[u8]) {
    if *long || acc.len() + piece.len() > MAX_LINE {
        *long = true;
        acc.clear();
        return;
    }
    acc.splice(0..0, piece.iter().copied());
}

/// Walks the lines of one file that end before `end`, newest first, reading at most `budget`
/// bytes (lowered by what is read). `visit` says whether to go on. Returns where to resume
/// (the lines before this offset are not visited yet), or `None` when the file's start was
/// reached.
pub fn scan_back(
    path: &Path,
    end: u64,
    budget: &mut u64,
    mut visit: impl FnMut(Visit) -> bool,
) -> Result<Option<u64>, LogReadError> {
    let io = |source| LogReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    // A file listed a moment ago may have been rotated (renamed) since: it is read under its
    // new name next time, and is empty here.
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let len = file.metadata().map_err(io)?.len();
    let mut pos = end.min(len);
    // The offset of the line break that ends the line being put together, once one is found:
    // bytes after the last line break are a line still being written, and are left.
    let mut line_end: Option<u64> = None;
    let (mut acc, mut long) = (Vec::new(), false);
    let mut buf = vec![0u8; BLOCK];
    let emit = |acc: &[u8], long: bool, start: u64, visit: &mut dyn FnMut(Visit) -> bool| {
        let text = if long {
            None
        } else {
            std::str::from_utf8(acc).ok()
        };
        visit((start, text))
    };
    loop {
        if pos == 0 {
            if line_end.is_some() && !emit(&acc, long, 0, &mut visit) {
                return Ok(Some(0));
            }
            return Ok(None);
        }
        if *budget == 0 {
            return Ok(Some(line_end.map_or(pos, |e| e + 1)));
        }
        let start = pos.saturating_sub(BLOCK as u64);
        let n = (pos - start) as usize;
        let block = &mut buf[..n];
        file.seek(SeekFrom::Start(start)).map_err(io)?;
        file.read_exact(block).map_err(io)?;
        *budget = budget.saturating_sub(n as u64);
        let mut right = n;
        for k in memchr::memrchr_iter(b'\n', block) {
            if line_end.is_some() {
                prepend(&mut acc, &mut long, &block[k + 1..right]);
                let line_start = start + k as u64 + 1;
                let go_on = emit(&acc, long, line_start, &mut visit);
                acc.clear();
                long = false;
                if !go_on {
                    return Ok(Some(line_start));
                }
            }
            line_end = Some(start + k as u64);
            right = k;
        }
        if line_end.is_some() {
            prepend(&mut acc, &mut long, &block[..right]);
        }
        pos = start;
    }
}

/// Walks the lines of one file from `from` (the start of a line) to its last line break,
/// oldest first. Returns the offset after the last line visited (where to go on next time).
pub fn scan_forward(
    path: &Path,
    from: u64,
    mut visit: impl FnMut(Visit),
) -> Result<u64, LogReadError> {
    let io = |source| LogReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match File::open(path) {
        Ok(f) => f,
        // Rotated since it was listed (see `scan_back`).
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(from),
        Err(e) => return Err(io(e)),
    };
    file.seek(SeekFrom::Start(from)).map_err(io)?;
    let mut buf = vec![0u8; BLOCK];
    let (mut acc, mut long) = (Vec::<u8>::new(), false);
    // Where the next line starts, and where the block read next starts.
    let (mut line_start, mut block_start) = (from, from);
    loop {
        let n = file.read(&mut buf).map_err(io)?;
        if n == 0 {
            return Ok(line_start);
        }
        let block = &buf[..n];
        let mut left = 0;
        for k in memchr::memchr_iter(b'\n', block) {
            let piece = &block[left..k];
            if long || acc.len() + piece.len() > MAX_LINE {
                visit((line_start, None));
            } else {
                acc.extend_from_slice(piece);
                visit((line_start, std::str::from_utf8(&acc).ok()));
            }
            acc.clear();
            long = false;
            line_start = block_start + k as u64 + 1;
            left = k + 1;
        }
        let rest = &block[left..];
        if long || acc.len() + rest.len() > MAX_LINE {
            long = true;
            acc.clear();
        } else {
            acc.extend_from_slice(rest);
        }
        block_start += n as u64;
    }
}

/// A line the log viewer shows: where it is, and what it says.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Shown {
    /// Its file.
    pub file: String,
    /// Its offset in the file.
    pub offset: u64,
    /// The line.
    pub entry: Entry,
}

/// A page of the log, newest line first.
#[derive(Debug, Default)]
pub struct LogPage {
    /// The lines kept by the filter.
    pub lines: Vec<Shown>,
    /// Where the next (older) page starts, unless the log's start was reached.
    pub older: Option<Cursor>,
    /// Bytes read.
    pub scanned: u64,
    /// Whether the page ends because the bytes allowed were read (not because it is full).
    pub budget_spent: bool,
    /// Lines longer than [`MAX_LINE`] passed over.
    pub too_long: u64,
    /// Lines that are not twelve readable columns, passed over.
    pub unreadable: u64,
}

/// The lines `filter` keeps, newest first, before `from` (from the log's end without it): at
/// most `limit` lines, reading at most `budget` bytes.
pub fn page_back(
    files: &[LogFile],
    from: Option<&Cursor>,
    filter: &Filter,
    limit: usize,
    budget: u64,
) -> Result<LogPage, LogReadError> {
    let mut page = LogPage::default();
    let (last, end) = match from {
        None => match files.len().checked_sub(1) {
            Some(i) => (i, files[i].len),
            None => return Ok(page),
        },
        Some(c) => {
            let i = files
                .iter()
                .position(|f| f.name == c.file)
                .ok_or_else(|| LogReadError::UnknownFile(c.file.chars().take(100).collect()))?;
            (i, c.offset)
        }
    };
    let mut left = budget;
    for i in (0..=last).rev() {
        let f = &files[i];
        let end = if i == last { end } else { f.len };
        let before = left;
        let resume = scan_back(&f.path, end, &mut left, |(offset, text)| {
            match text.map(Entry::parse) {
                None => page.too_long += 1,
                Some(None) => page.unreadable += 1,
                Some(Some(entry)) if filter.keeps(&entry) => page.lines.push(Shown {
                    file: f.name.clone(),
                    offset,
                    entry,
                }),
                Some(Some(_)) => {}
            }
            page.lines.len() < limit
        })?;
        page.scanned += before - left;
        match resume {
            Some(offset) if offset > 0 || i > 0 => {
                page.budget_spent = page.lines.len() < limit;
                page.older = Some(Cursor {
                    file: f.name.clone(),
                    offset,
                });
                return Ok(page);
            }
            Some(_) => return Ok(page),
            None => {}
        }
    }
    Ok(page)
}

#[cfg(test)]
mod tests;
