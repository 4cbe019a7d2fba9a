//! The crawl log, `DIR/<crawl>/logs/crawl.log`: one line per fetch attempt and per refused
//! URL, in the column layout of Heritrix's `crawl.log`, so an operator can read and grep it
//! and existing crawl-log tools can split it.
//!
//! ```text
//! 2026-11-25T18:20:00.123Z   200      12345 http://a.example/x.html LL http://a.example/ text/html - 20261125182000100+23 sha1:2Z5… crawl -
//! 2026-11-25T18:20:00.140Z -9998          - http://a.example/private/ L http://a.example/ - - - - crawl robots
//! ```
//!
//! Columns: log time, status (HTTP, or a negative code: see [`Refused`] and `docs/crawling.md`),
//! size of the response as received, URL, hop path from the seed, the page it was found on,
//! MIME type, worker (`-`: magpie's fetches are tasks, not threads), fetch start and duration in
//! ms, payload digest, source (`seed`, `crawl`, `robots`, a scorer's name...), annotations. A
//! missing value is `-`, and whitespace and control characters inside a value are
//! percent-encoded (a space is `%20`, an LF `%0A`), so every line has exactly twelve columns.
//! The log is rotated with the WARC files: when a new WARC file is started the current log
//! becomes `crawl.<NNNNN>.log`, numbered like the WARC file it goes with.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Bytes of log lines gathered before the engine writes them out (off the async workers, as
/// it commits): more than a commit interval's lines at a few thousand fetches per second, so
/// the log is mostly written at commits. Writing a line never does I/O.
const BUFFER: usize = 256 << 10;

/// Refused URLs remembered so that one refused link found on many pages is logged once.
const MAX_REFUSALS_REMEMBERED: usize = 1 << 20;

/// Why a URL was not fetched, as Heritrix's negative status codes where one exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Disallowed by robots.txt (Heritrix `-9998`).
    Robots,
    /// Outside the crawl's scope (Heritrix `-5000`); the annotation says which rule.
    Scope,
    /// Blacklisted: by pattern, by an external scorer, or a spam domain (Heritrix `-4000`,
    /// "deleted by user").
    Blacklist,
    /// Its address is private and the spec does not allow private addresses (`-7`,
    /// Heritrix's "unfetchable URI").
    Private,
}

impl Refused {
    /// The status column.
    pub fn code(self) -> i32 {
        match self {
            Refused::Robots => -9998,
            Refused::Scope => -5000,
            Refused::Blacklist => -4000,
            Refused::Private => -7,
        }
    }
}

/// The status column of a failed fetch, by `FetchError::kind`: Heritrix's codes for DNS (-1),
/// connection (-2), broken connection (-3), timeout (-4), and -6 for anything else.
pub fn failure_code(kind: &str) -> i32 {
    match kind {
        "dns" => -1,
        "connect" | "tls" => -2,
        "io" => -3,
        "timeout" => -4,
        "private-address" => Refused::Private.code(),
        _ => -6,
    }
}

/// One line.
#[derive(Debug, Default)]
pub struct Line<'a> {
    /// HTTP status, or a negative code.
    pub status: i32,
    /// Bytes of the response as received.
    pub size: Option<u64>,
    /// The URL.
    pub url: &'a str,
    /// Hop path from the seed (`L`, `E`, `R`...; empty for a seed).
    pub hops: &'a str,
    /// The page it was found on.
    pub via: Option<&'a str>,
    /// MIME type of the response.
    pub mime: Option<&'a str>,
    /// Fetch start (`YYYYMMDDHHMMSSmmm`) and duration in ms.
    pub fetch: Option<(String, u64)>,
    /// Payload digest (`sha1:…`).
    pub digest: Option<&'a str>,
    /// Who queued it.
    pub source: &'a str,
    /// Notes: `retry:N`, `truncated:length`, `revisit`, a refusal's reason...
    pub annotations: Vec<String>,
}

/// The open crawl log of a crawl.
pub struct CrawlLog {
    dir: PathBuf,
    out: File,
    /// Lines written since the last flush.
    pending: Vec<u8>,
    refused: HashSet<u64>,
}

/// One column: `-` when missing or empty (as Heritrix writes it), else the value with
/// whitespace and control characters percent-encoded ([`crate::archive::escape_column`]), so
/// that no value (a scorer's `via`, a server's `Content-Type`, a refusal's reason) can split a
/// line or shift the columns after it.
fn column(s: Option<&str>) -> std::borrow::Cow<'_, str> {
    match s {
        Some(s) if !s.is_empty() => crate::archive::escape_column(s),
        _ => std::borrow::Cow::Borrowed("-"),
    }
}

impl Line<'_> {
    /// The line as written, ending in `\n`, with `now` as its first column: always exactly
    /// twelve space-separated columns and one line break, whatever the values hold.
    pub fn render(&self, now: &str) -> String {
        let size = self.size.map_or_else(|| "-".to_string(), |s| s.to_string());
        let fetch = self.fetch.as_ref().map(|(t, d)| format!("{t}+{d}"));
        let notes = self.annotations.join(",");
        format!(
            "{} {:>5} {size:>10} {} {} {} {} - {} {} {} {}\n",
            column(Some(now)),
            self.status,
            column(Some(self.url)),
            column(Some(self.hops)),
            column(self.via),
            column(self.mime),
            column(fetch.as_deref()),
            column(self.digest),
            column(Some(self.source)),
            column(Some(&notes)),
        )
    }
}

impl CrawlLog {
    /// Opens (appends to) `dir/crawl.log`, creating the folder.
    pub fn open(dir: &Path) -> io::Result<CrawlLog> {
        std::fs::create_dir_all(dir)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("crawl.log"))?;
        Ok(CrawlLog {
            dir: dir.to_path_buf(),
            out: file,
            pending: Vec::with_capacity(BUFFER),
            refused: HashSet::new(),
        })
    }

    /// Adds one line (see [`Line::render`]) to those the next [`CrawlLog::flush`] writes.
    pub fn write(&mut self, l: &Line) {
        let now = chrono::Utc::now()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        self.pending.extend_from_slice(l.render(&now).as_bytes());
    }

    /// Adds a refusal, once per URL (by fingerprint) for as long as it is remembered.
    pub fn refused(&mut self, fp: u64, why: Refused, line: Line) {
        if self.refused.len() < MAX_REFUSALS_REMEMBERED && !self.refused.insert(fp) {
            return;
        }
        self.write(&Line {
            status: why.code(),
            ..line
        })
    }

    /// Whether the lines gathered should be written out now rather than at the next commit.
    pub fn is_full(&self) -> bool {
        self.pending.len() >= BUFFER
    }

    /// Writes the gathered lines to the file (at every commit, and when full): blocking I/O,
    /// which the engine runs off the async workers.
    pub fn flush(&mut self) -> io::Result<()> {
        // What was written is dropped from `pending` even when a later write fails, so a
        // retry (or the drop) never writes a line twice.
        let (mut done, mut result) = (0, Ok(()));
        while done < self.pending.len() {
            match self.out.write(&self.pending[done..]) {
                Ok(0) => {
                    result = Err(io::ErrorKind::WriteZero.into());
                    break;
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.pending.drain(..done);
        result
    }

    /// Closes the current log as `crawl.<serial:05>.log` and starts a new `crawl.log`.
    pub fn rotate(&mut self, serial: usize) -> io::Result<()> {
        self.flush()?;
        let current = self.dir.join("crawl.log");
        std::fs::rename(&current, self.dir.join(format!("crawl.{serial:05}.log")))?;
        self.out = OpenOptions::new().create(true).append(true).open(current)?;
        Ok(())
    }
}

/// A crawl that stops on an error writes the lines gathered since its last commit (the
/// failing page's among them) as it is dropped; an error then has nowhere to go.
impl Drop for CrawlLog {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_value_can_add_a_line_or_a_column() {
        let forged =
            "x \r\n2026-01-01T00:00:00.000Z 200 1 http://forged/ L - - - - - - -\0\t\u{85}\u{2028}";
        let annotations = vec![forged.to_string(), "ok".into()];
        let line = Line {
            status: 200,
            size: Some(1),
            url: forged,
            hops: forged,
            via: Some(forged),
            mime: Some(forged),
            fetch: Some((forged.to_string(), 3)),
            digest: Some(forged),
            source: forged,
            annotations,
        };
        let text = line.render(forged);
        assert_eq!(text.matches('\n').count(), 1, "{text}");
        assert!(text.ends_with('\n'));
        let columns: Vec<&str> = text
            .trim_end_matches('\n')
            .split(' ')
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(columns.len(), 12, "{text}");
        assert_eq!(text.split_whitespace().count(), 12, "{text}");
        assert!(
            !text
                .chars()
                .any(|c| c != '\n' && crate::archive::is_control_char(c)),
            "{text:?}"
        );
        assert!(columns[3].starts_with("x%20%0D%0A2026-01-01"), "{text}");
        // Missing and empty values are `-`, as Heritrix writes them.
        let empty = Line {
            url: "http://a/",
            via: Some(""),
            ..Line::default()
        }
        .render("t");
        assert_eq!(empty, "t     0          - http://a/ - - - - - - - -\n");
    }

    /// Adding a line never writes: lines reach the file when flushed (or the log dropped), and
    /// the log says when it holds enough to be flushed before the next commit.
    #[test]
    fn lines_are_written_when_flushed_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = CrawlLog::open(dir.path()).unwrap();
        let file = dir.path().join("crawl.log");
        let line = Line {
            url: "http://a.example/",
            source: "crawl",
            ..Line::default()
        };
        let mut added = 0;
        while !log.is_full() {
            log.write(&line);
            added += 1;
        }
        assert!(added > 1000, "{added} lines fill the buffer");
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 0);
        log.flush().unwrap();
        assert!(!log.is_full());
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), added);
        // A crawl that stops on an error drops its log: what it gathered is written then.
        log.write(&line);
        drop(log);
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), added + 1);
    }

    #[test]
    fn lines_have_heritrix_columns_refusals_once_and_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = CrawlLog::open(dir.path()).unwrap();
        log.write(&Line {
            status: 200,
            size: Some(1234),
            url: "http://a.example/x y.html",
            hops: "LL",
            via: Some("http://a.example/"),
            mime: Some("text/html"),
            fetch: Some(("20261125182000100".into(), 23)),
            digest: Some("sha1:ABC"),
            source: "crawl",
            annotations: vec!["retry:1".into(), "revisit".into()],
        });
        let line = |url| Line {
            url,
            hops: "L",
            source: "crawl",
            ..Line::default()
        };
        log.refused(7, Refused::Robots, line("http://a.example/p"));
        log.refused(7, Refused::Robots, line("http://a.example/p"));
        log.rotate(0).unwrap();
        log.refused(8, Refused::Scope, line("http://b.example/"));
        log.flush().unwrap();
        let first = std::fs::read_to_string(dir.path().join("crawl.00000.log")).unwrap();
        let lines: Vec<Vec<&str>> = first
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(lines.len(), 2, "a refusal is logged once: {first}");
        assert_eq!(lines[0].len(), 12, "{first}");
        assert_eq!(
            &lines[0][1..],
            [
                "200",
                "1234",
                "http://a.example/x%20y.html",
                "LL",
                "http://a.example/",
                "text/html",
                "-",
                "20261125182000100+23",
                "sha1:ABC",
                "crawl",
                "retry:1,revisit"
            ]
        );
        assert_eq!(&lines[1][1..3], ["-9998", "-"]);
        let second = std::fs::read_to_string(dir.path().join("crawl.log")).unwrap();
        assert!(second.contains(" -5000 "), "{second}");
        assert_eq!(failure_code("timeout"), -4);
        assert_eq!(failure_code("private-address"), -7);
    }
}
