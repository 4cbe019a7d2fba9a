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
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

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

/// One line of the log, its columns as written (`-` read as absent).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Entry {
    /// When the line was written (UTC).
    pub time: String,
    /// HTTP status, or a negative code (`docs/crawling.md`).
    pub status: i32,
    /// Bytes of the response as received.
    pub size: Option<u64>,
    /// The URL.
    pub url: String,
    /// Hop path from the seed (empty for a seed).
    pub hops: String,
    /// The page it was found on.
    pub via: Option<String>,
    /// The response's media type as sent (parameters dropped).
    pub mime: Option<String>,
    /// Fetch start (`YYYYMMDDHHMMSSmmm`) and duration (`+ms`).
    pub fetch: Option<String>,
    /// Payload digest.
    pub digest: Option<String>,
    /// Who queued it (`seed`, `crawl`, `robots`, an intake source).
    pub source: String,
    /// Annotations (`retries:N`, `will-retry`, a refusal's reason, a failure kind...).
    pub notes: Vec<String>,
}

/// How a line's status reads: a class of answers, or why there was none.
pub fn status_class(status: i32) -> &'static str {
    match status {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        500..=599 => "5xx",
        s if s > 0 => "other",
        -7 | -4000 | -5000 | -9998 => "refused",
        _ => "failed",
    }
}

/// What a negative status means, in words (`docs/crawling.md`).
pub fn status_meaning(status: i32) -> Option<&'static str> {
    Some(match status {
        -1 => "DNS failure",
        -2 => "connection failed",
        -3 => "connection broken",
        -4 => "timeout",
        -6 => "fetch failed",
        -7 => "refused: private address",
        -61 => "given up: robots.txt could not be had",
        -4000 => "refused: blacklisted",
        -5000 => "refused: out of scope",
        -9998 => "refused: robots.txt",
        _ => return None,
    })
}

fn opt(c: &str) -> Option<String> {
    (c != "-").then(|| c.to_string())
}

impl Entry {
    /// Parses a line (without its line break); `None` unless it has exactly twelve columns
    /// with a number for status and size.
    pub fn parse(line: &str) -> Option<Entry> {
        let mut c = line.split_ascii_whitespace();
        let mut next = || c.next();
        let time = next()?.to_string();
        let status = next()?.parse().ok()?;
        let size = match next()? {
            "-" => None,
            s => Some(s.parse().ok()?),
        };
        let url = next()?.to_string();
        let hops = next()?;
        let via = opt(next()?);
        let mime = opt(next()?);
        let _worker = next()?;
        let fetch = opt(next()?);
        let digest = opt(next()?);
        let source = next()?.to_string();
        let notes = next()?;
        if next().is_some() {
            return None;
        }
        Some(Entry {
            time,
            status,
            size,
            url,
            hops: if hops == "-" {
                String::new()
            } else {
                hops.into()
            },
            via,
            mime,
            fetch,
            digest,
            source,
            notes: if notes == "-" {
                vec![]
            } else {
                notes.split(',').map(str::to_string).collect()
            },
        })
    }

    /// The URL's host key (host and non-default port, as the frontier and the index key
    /// hosts); `None` for a URL that does not parse.
    pub fn host(&self) -> Option<String> {
        url::Url::parse(&self.url)
            .ok()
            .map(|u| crate::uri::host_key(&u))
    }

    /// The last hop (`L`, `E`, `R`, `M`, `P`), `seed` for a seed.
    pub fn last_hop(&self) -> String {
        self.hops
            .chars()
            .last()
            .map_or_else(|| "seed".to_string(), |c| c.to_string())
    }

    /// The media type, lowercased, as the reports group it.
    pub fn mime_key(&self) -> String {
        self.mime
            .as_deref()
            .map_or_else(|| "(none)".into(), str::to_ascii_lowercase)
    }
}

/// Which statuses a filter keeps.
#[derive(Debug, Clone, PartialEq)]
pub enum StatusFilter {
    /// Exactly this code.
    Code(i32),
    /// A class: `2xx`, `refused`, `failed`...
    Class(String),
}

impl StatusFilter {
    /// Reads `404`, `-9998`, `4xx`, `refused` or `failed`.
    pub fn parse(v: &str) -> Result<StatusFilter, String> {
        let v = v.trim();
        if let Ok(n) = v.parse::<i32>() {
            return Ok(StatusFilter::Code(n));
        }
        let l = v.to_ascii_lowercase();
        match l.as_str() {
            "1xx" | "2xx" | "3xx" | "4xx" | "5xx" | "refused" | "failed" => {
                Ok(StatusFilter::Class(l))
            }
            _ => Err(format!(
                "{v:?} is not a status: a code (404, -9998), a class (2xx … 5xx), refused or failed"
            )),
        }
    }

    fn keeps(&self, status: i32) -> bool {
        match self {
            StatusFilter::Code(c) => *c == status,
            StatusFilter::Class(c) => status_class(status) == c,
        }
    }
}

/// Which lines to keep; every given condition must hold.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// The status.
    pub status: Option<StatusFilter>,
    /// The host key, exactly.
    pub host: Option<String>,
    /// A part of the URL.
    pub url: Option<String>,
    /// The last hop (`L`, `E`, `R`, `M`, `P`, or `seed`).
    pub hop: Option<String>,
    /// The source, exactly (`seed`, `crawl`, `robots`, an intake source).
    pub source: Option<String>,
    /// A part of an annotation (`robots`, `out-of-scope`, `timeout`...).
    pub reason: Option<String>,
    /// The media type's start (`text/html`, `image/`).
    pub mime: Option<String>,
}

impl Filter {
    /// Whether the filter keeps every line.
    pub fn is_empty(&self) -> bool {
        self.status.is_none()
            && self.host.is_none()
            && self.url.is_none()
            && self.hop.is_none()
            && self.source.is_none()
            && self.reason.is_none()
            && self.mime.is_none()
    }

    /// Whether `e` passes.
    pub fn keeps(&self, e: &Entry) -> bool {
        self.status.as_ref().is_none_or(|s| s.keeps(e.status))
            && self.url.as_ref().is_none_or(|u| e.url.contains(u.as_str()))
            && self
                .hop
                .as_ref()
                .is_none_or(|h| e.last_hop().eq_ignore_ascii_case(h))
            && self.source.as_ref().is_none_or(|s| &e.source == s)
            && self
                .reason
                .as_ref()
                .is_none_or(|r| e.notes.iter().any(|n| n.contains(r.as_str())))
            && self
                .mime
                .as_ref()
                .is_none_or(|m| e.mime_key().starts_with(&m.to_ascii_lowercase()))
            && self
                .host
                .as_ref()
                .is_none_or(|h| e.host().is_some_and(|eh| eh.eq_ignore_ascii_case(h)))
    }
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

/// Lines and bytes of one group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Tally {
    /// Lines.
    pub lines: u64,
    /// Bytes received (responses only).
    pub bytes: u64,
}

/// One host's lines, by what they say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HostTally {
    /// Responses received (any HTTP status).
    pub responses: u64,
    /// Their bytes, as received.
    pub bytes: u64,
    /// Responses by class.
    #[serde(rename = "2xx")]
    pub s2xx: u64,
    /// Redirects.
    #[serde(rename = "3xx")]
    pub s3xx: u64,
    /// Client errors.
    #[serde(rename = "4xx")]
    pub s4xx: u64,
    /// Server errors.
    #[serde(rename = "5xx")]
    pub s5xx: u64,
    /// Other statuses (1xx, or over 599).
    pub other: u64,
    /// Fetches that got no answer (DNS, connection, timeout...) and URLs given up (`-61`).
    pub failed: u64,
    /// URLs refused before any fetch (robots.txt, scope, blacklist, private address).
    pub refused: u64,
}

/// What the whole log says, added up: per host, per media type and per status code.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    /// Lines read.
    pub lines: u64,
    /// Lines that could not be read (too long, not twelve columns).
    pub unreadable: u64,
    /// Per host key ([`OTHER`] beyond [`MAX_HOSTS`]).
    pub hosts: HashMap<String, HostTally>,
    /// Responses per media type, lowercased (`(none)` without one).
    pub mimes: HashMap<String, Tally>,
    /// Lines per status code, negative codes included.
    pub statuses: HashMap<i32, Tally>,
}

/// The entry of `key`, or of `other` once `max` keys are counted: a log naming millions of
/// hosts must not hold millions of entries.
fn slot<K: std::hash::Hash + Eq, V: Default>(
    map: &mut HashMap<K, V>,
    key: K,
    other: K,
    max: usize,
) -> &mut V {
    let key = if map.len() >= max && !map.contains_key(&key) {
        other
    } else {
        key
    };
    map.entry(key).or_default()
}

impl Totals {
    /// Counts one visited line.
    pub fn add(&mut self, text: Option<&str>) {
        self.lines += 1;
        let Some(e) = text.and_then(Entry::parse) else {
            self.unreadable += 1;
            return;
        };
        let bytes = if e.status > 0 { e.size.unwrap_or(0) } else { 0 };
        let host = e.host().unwrap_or_else(|| "(unparsable URL)".into());
        let h = slot(&mut self.hosts, host, OTHER.to_string(), MAX_HOSTS);
        match status_class(e.status) {
            "2xx" => h.s2xx += 1,
            "3xx" => h.s3xx += 1,
            "4xx" => h.s4xx += 1,
            "5xx" => h.s5xx += 1,
            "refused" => h.refused += 1,
            "failed" => h.failed += 1,
            _ => h.other += 1,
        }
        if e.status > 0 {
            h.responses += 1;
            h.bytes += bytes;
            let m = slot(&mut self.mimes, e.mime_key(), OTHER.to_string(), MAX_MIMES);
            m.lines += 1;
            m.bytes += bytes;
        }
        let s = slot(&mut self.statuses, e.status, i32::MIN, MAX_STATUSES);
        s.lines += 1;
        s.bytes += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::crawl_log::{CrawlLog, Line, Refused};

    fn write_log(dir: &Path, n: usize) {
        let mut log = CrawlLog::open(dir).unwrap();
        for i in 0..n {
            let url = format!("http://h{}.example/p{i}", i % 3);
            log.write(&Line {
                status: if i % 5 == 0 { 404 } else { 200 },
                size: Some(100 + i as u64),
                url: &url,
                hops: if i == 0 { "" } else { "L" },
                mime: Some("text/html"),
                source: "crawl",
                ..Line::default()
            })
            .unwrap();
            if i == n / 2 {
                log.rotate(0).unwrap();
            }
        }
        log.refused(
            1,
            Refused::Robots,
            Line {
                url: "http://h0.example/private",
                hops: "L",
                source: "crawl",
                annotations: vec!["robots".into()],
                ..Line::default()
            },
        )
        .unwrap();
        log.flush().unwrap();
    }

    #[test]
    fn pages_go_back_through_every_file_with_filters() {
        let dir = tempfile::tempdir().unwrap();
        write_log(dir.path(), 40);
        let files = log_files(dir.path()).unwrap();
        assert_eq!(
            files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["crawl.00000.log", "crawl.log"]
        );
        // Every line, 7 at a time, newest first, exactly once.
        let mut seen = Vec::new();
        let mut from = None;
        loop {
            let p = page_back(&files, from.as_ref(), &Filter::default(), 7, 1 << 30).unwrap();
            assert!(p.lines.len() <= 7);
            seen.extend(p.lines.iter().map(|l| l.entry.url.clone()));
            match p.older {
                Some(c) => from = Some(Cursor::parse(&c.to_string()).unwrap()),
                None => break,
            }
        }
        assert_eq!(seen.len(), 41, "{seen:?}");
        assert_eq!(seen[0], "http://h0.example/private");
        assert_eq!(seen[1], "http://h0.example/p39");
        assert_eq!(seen[40], "http://h0.example/p0");
        // Filters: status class, host, hop, reason.
        let f = Filter {
            status: Some(StatusFilter::parse("4xx").unwrap()),
            host: Some("h0.example".into()),
            ..Filter::default()
        };
        let p = page_back(&files, None, &f, 100, 1 << 30).unwrap();
        let urls: Vec<_> = p.lines.iter().map(|l| l.entry.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "http://h0.example/p30",
                "http://h0.example/p15",
                "http://h0.example/p0"
            ]
        );
        let f = Filter {
            hop: Some("seed".into()),
            ..Filter::default()
        };
        assert_eq!(
            page_back(&files, None, &f, 100, 1 << 30)
                .unwrap()
                .lines
                .len(),
            1
        );
        let f = Filter {
            reason: Some("robots".into()),
            status: Some(StatusFilter::parse("refused").unwrap()),
            ..Filter::default()
        };
        let p = page_back(&files, None, &f, 100, 1 << 30).unwrap();
        assert_eq!(p.lines.len(), 1);
        assert_eq!(p.lines[0].entry.status, -9998);
        // A small budget ends the page early with a cursor to go on from.
        let f = Filter {
            url: Some("nowhere".into()),
            ..Filter::default()
        };
        let p = page_back(&files, None, &f, 10, 100).unwrap();
        assert!(
            p.budget_spent && p.lines.is_empty() && p.older.is_some(),
            "{p:?}"
        );
        assert!(matches!(
            page_back(&files, Some(&Cursor::parse("../etc:1").unwrap()), &f, 1, 1),
            Err(LogReadError::UnknownFile(_))
        ));
        assert!(Cursor::parse("crawl.log").is_err());
        // A file rotated away between the listing and the read reads as empty.
        let gone = dir.path().join("crawl.77777.log");
        assert_eq!(scan_back(&gone, 10, &mut 100, |_| true).unwrap(), None);
        assert_eq!(scan_forward(&gone, 5, |_| {}).unwrap(), 5);
        assert!(StatusFilter::parse("lots").is_err());
    }

    #[test]
    fn long_and_partial_lines_are_bounded_and_totals_add_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.log");
        let good =
            "2026-01-01T00:00:00.000Z 200 10 http://a/x L http://a/ text/html - - - crawl -\n";
        let long = format!("x{}\n", "y".repeat(MAX_LINE + 10));
        let text = format!(
            "{good}{long}{good}garbage\n{good}2026-01-01T00:00:00.000Z 200 10 http://a/partial"
        );
        std::fs::write(&path, &text).unwrap();
        let mut lines = Vec::new();
        let mut budget = u64::MAX;
        let r = scan_back(&path, text.len() as u64, &mut budget, |(o, t)| {
            lines.push((o, t.map(str::to_string)));
            true
        })
        .unwrap();
        assert_eq!(r, None);
        assert_eq!(
            lines.len(),
            5,
            "the unfinished last line is left: {lines:?}"
        );
        assert_eq!(lines[3].1, None, "the long line is not kept");
        assert_eq!(lines[4].0, 0);
        let mut totals = Totals::default();
        let done = scan_forward(&path, 0, |(_, t)| totals.add(t)).unwrap();
        assert_eq!(done as usize, text.rfind('\n').unwrap() + 1);
        assert_eq!((totals.lines, totals.unreadable), (5, 2));
        let a = &totals.hosts["a"];
        assert_eq!((a.responses, a.bytes, a.s2xx), (3, 30, 3));
        assert_eq!(
            totals.mimes["text/html"],
            Tally {
                lines: 3,
                bytes: 30
            }
        );
        assert_eq!(totals.statuses[&200].lines, 3);
        // Going on from where it stopped reads nothing twice.
        let again = scan_forward(&path, done, |_| panic!("read twice")).unwrap();
        assert_eq!(again, done);
    }
}
