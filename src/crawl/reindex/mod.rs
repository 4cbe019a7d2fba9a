//! Rebuilding documents from the WARC files: every sealed file for a full rebuild, or only the
//! records after the index's stored position when a restarted crawl catches up.
//!
//! A capture is the `response` or `revisit` record plus the `request` and `metadata` records
//! that follow it with `WARC-Concurrent-To` naming it; the metadata's `hopsFromSeed` decides,
//! as in the crawl pipeline, whether the body is parsed for text.

mod cli;
mod limits;

pub use cli::{run_index, IndexCommand};
pub use limits::TextLimits;

use crate::archive::{ArchiveError, Checkpoint, RecordHead, WarcReader};
use crate::http::body::decode_entity;
use crate::http::head::HttpHead;
use crate::index::{CaptureDoc, Index, IndexError, Location, ObjectDoc, RevisitOf, Writer};
use crate::model::{ExchangeInfo, Hop};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

/// Bytes of a record block read to find the HTTP head.
const HEAD_PROBE: u64 = 64 * 1024;
/// Bytes of a metadata block read for its `hopsFromSeed`.
const MAX_METADATA: u64 = 1 << 20;

/// What a rebuild or catch-up did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RebuildReport {
    /// WARC files read (wholly or from the stored position).
    pub files: usize,
    /// Capture documents added (revisits included).
    pub captures: u64,
    /// Of which revisits.
    pub revisits: u64,
    /// Capture records that could not be indexed (no date, no URL).
    pub skipped: u64,
    /// Compressed bytes read.
    pub bytes: u64,
    /// Damage met (the rest of a damaged file is skipped).
    pub errors: Vec<String>,
    /// The position committed with the index.
    pub position: Option<Checkpoint>,
}

/// Whether the crawl pipeline parses an exchange's body for text: a 2xx HTML response
/// (or one without a type) that is neither a robots.txt fetch (`P`) nor a sitemap (`M`).
pub fn wants_text(info: &ExchangeInfo, hops: &str) -> bool {
    let last = hops.chars().last().and_then(Hop::from_code);
    (200..300).contains(&info.status)
        && matches!(
            info.mime().as_str(),
            "text/html" | "application/xhtml+xml" | ""
        )
        && !matches!(last, Some(Hop::Prerequisite | Hop::Sitemap))
}

/// Replaces the whole index with documents read from every sealed WARC file in `warc_dir`.
pub fn rebuild(
    index: &Index,
    warc_dir: &Path,
    opts: &TextLimits,
) -> Result<RebuildReport, IndexError> {
    let mut w = index.writer()?;
    w.delete_all()?;
    let files = warc_files(warc_dir)?;
    let plan: Vec<(PathBuf, u64)> = files.into_iter().map(|p| (p, 0)).collect();
    scan_and_commit(&mut w, &plan, opts)
}

/// Indexes the records written after the position of the last index commit (all of them
/// for an empty index): run at crawl start, after the archive is recovered, so the
/// documents of records a crash kept out of the index are added.
pub fn catch_up(
    index: &Index,
    warc_dir: &Path,
    opts: &TextLimits,
) -> Result<RebuildReport, IndexError> {
    let files = warc_files(warc_dir)?;
    let position = index.position()?;
    let plan: Vec<(PathBuf, u64)> = match &position {
        None if index.num_docs() > 0 => return rebuild(index, warc_dir, opts),
        None => files.into_iter().map(|p| (p, 0)).collect(),
        Some(cp) => {
            let mut plan = Vec::new();
            for p in files {
                let name = file_name(&p);
                if name.as_str() > cp.file.as_str() {
                    plan.push((p, 0));
                } else if name == cp.file {
                    let len = std::fs::metadata(&p).map_err(IndexError::io(&p))?.len();
                    if cp.offset > len {
                        // The file is shorter than the index believes: start over.
                        return rebuild(index, warc_dir, opts);
                    }
                    plan.push((p, cp.offset));
                }
            }
            plan
        }
    };
    let mut w = index.writer()?;
    scan_and_commit(&mut w, &plan, opts)
}

fn scan_and_commit(
    w: &mut Writer,
    plan: &[(PathBuf, u64)],
    opts: &TextLimits,
) -> Result<RebuildReport, IndexError> {
    let mut scan = Scan {
        opts,
        pending: None,
        report: RebuildReport::default(),
    };
    for (path, from) in plan {
        let end = scan.file(w, path, *from)?;
        scan.report.position = Some(Checkpoint {
            file: file_name(path),
            offset: end,
        });
    }
    scan.flush(w)?;
    if scan.report.captures > 0 || w.uncommitted() > 0 || scan.report.position.is_some() {
        w.commit(scan.report.position.as_ref())?;
    }
    Ok(scan.report)
}

/// Sealed WARC files (`*.warc.gz`, `*.warc`) in name order, which is the order written.
pub(crate) fn warc_files(dir: &Path) -> Result<Vec<PathBuf>, IndexError> {
    let mut files = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(e) => {
            return Err(IndexError::Io {
                path: dir.into(),
                source: e,
            })
        }
    };
    for e in entries {
        let p = e.map_err(IndexError::io(dir))?.path();
        let name = file_name(&p);
        if name.ends_with(".warc.gz") || name.ends_with(".warc") {
            files.push(p);
        }
    }
    files.sort();
    Ok(files)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A capture whose request and metadata records may still follow: what the live crawl had
/// when it built the capture's document, read back from the records.
struct Pending {
    /// The exchange, from the record's WARC and HTTP heads.
    info: ExchangeInfo,
    /// `WARC-Record-ID` of the response or revisit record.
    record_id: String,
    /// Hop path from the seed, from the metadata record.
    hops: String,
    /// The body bytes read, when the body may need parsing.
    body: Option<Vec<u8>>,
    /// For a revisit, the original it refers to.
    revisit_of: Option<RevisitOf>,
    /// The response or revisit record.
    location: Location,
    /// The request and metadata records after it.
    related: Option<Location>,
    /// What the crawl's metadata records say about the page.
    notes: Notes,
}

/// The crawl's own findings about a capture, read back from its metadata records: the fields
/// `magpie-priority`, `magpie-relevance`, `magpie-lang`, `magpie-app` and `magpie-level`, and
/// the web objects of the application-aware helper's record.
#[derive(Debug, Default)]
struct Notes {
    priority: Option<f32>,
    relevance: Option<f32>,
    lang: Option<String>,
    app: Option<String>,
    level: Option<String>,
    objects: Vec<(String, Vec<(String, String)>)>,
}

impl Notes {
    /// Reads the crawl's fields; a number that does not read is the record's damage, named in
    /// the error (the fields read before it are kept).
    fn read_fields(&mut self, block: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(block);
        let number = |k: &str, v: &str| {
            v.parse::<f32>()
                .map(Some)
                .map_err(|_| format!("{k} {v:?} is not a number"))
        };
        for line in text.lines() {
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let (k, v) = (k.trim(), v.trim());
            match k {
                "magpie-priority" => self.priority = number(k, v)?,
                "magpie-relevance" => self.relevance = number(k, v)?,
                "magpie-lang" => self.lang = Some(v.to_string()),
                "magpie-app" => self.app = Some(v.to_string()),
                "magpie-level" => self.level = Some(v.to_string()),
                _ => {}
            }
        }
        Ok(())
    }

    /// Reads the helper's web objects; a record that is no JSON is damaged.
    fn read_app(&mut self, block: &[u8]) -> Result<(), String> {
        let v = serde_json::from_slice::<serde_json::Value>(block)
            .map_err(|e| format!("the helper's reading is no JSON: {e}"))?;
        let Some(objects) = v.get("objects").and_then(|o| o.as_array()) else {
            return Ok(());
        };
        for o in objects {
            let kind = o.get("type").and_then(|t| t.as_str()).unwrap_or_default();
            let fields = o
                .get("fields")
                .and_then(|f| f.as_object())
                .map(|f| {
                    f.iter()
                        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                        .collect()
                })
                .unwrap_or_default();
            self.objects.push((kind.to_string(), fields));
        }
        Ok(())
    }
}

struct Scan<'a> {
    opts: &'a TextLimits,
    pending: Option<Pending>,
    report: RebuildReport,
}

impl Scan<'_> {
    /// Reads one file from `from`; returns the offset reached (the file's end).
    fn file(&mut self, w: &mut Writer, path: &Path, from: u64) -> Result<u64, IndexError> {
        let name = file_name(path);
        let mut f = File::open(path).map_err(IndexError::io(path))?;
        let len = f.metadata().map_err(IndexError::io(path))?.len();
        f.seek(SeekFrom::Start(from))
            .map_err(IndexError::io(path))?;
        self.report.files += 1;
        self.report.bytes += len.saturating_sub(from);
        let mut r =
            WarcReader::with_origin(BufReader::with_capacity(256 << 10, f), name.clone(), from)?;
        loop {
            match self.record(w, &mut r, &name) {
                Ok(true) => {}
                Ok(false) => break,
                Err(IndexError::Archive(e @ ArchiveError::Corrupt { .. })) => {
                    self.report.errors.push(e.to_string());
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(len)
    }

    /// Handles the next record; `false` at the end of the file.
    fn record(
        &mut self,
        w: &mut Writer,
        r: &mut WarcReader<BufReader<File>>,
        name: &str,
    ) -> Result<bool, IndexError> {
        let Some(head) = r.next_record()? else {
            return Ok(false);
        };
        match head.record_type() {
            "response" | "revisit" => {
                self.flush(w)?;
                let revisit = head.record_type() == "revisit";
                let probe = head.content_length.min(HEAD_PROBE);
                let mut block = read_up_to(r.block(), probe, name, head.offset)?;
                let Some(mut p) = capture(&head, &block, revisit) else {
                    self.report.skipped += 1;
                    return Ok(true);
                };
                if let Some(body) = &mut p.body {
                    let want = p.info.header_len + self.opts.max_decoded_bytes as u64;
                    let more = want
                        .min(head.content_length)
                        .saturating_sub(block.len() as u64);
                    block.extend(read_up_to(r.block(), more, name, head.offset)?);
                    *body = block;
                }
                let length = r.finish_record()?;
                p.location = Location {
                    file: name.to_string(),
                    offset: head.offset,
                    length,
                };
                self.pending = Some(p);
            }
            "request" | "metadata" => {
                let Some(p) = self.pending.as_mut() else {
                    return Ok(true);
                };
                if head.field("WARC-Concurrent-To") != Some(p.record_id.as_str()) {
                    return Ok(true);
                }
                if head.record_type() == "metadata" {
                    let text = read_up_to(
                        r.block(),
                        head.content_length.min(MAX_METADATA),
                        name,
                        head.offset,
                    )?;
                    let media_type = head.field("Content-Type").unwrap_or_default();
                    let read = if media_type.starts_with(crate::model::AAH_MEDIA_TYPE) {
                        p.notes.read_app(&text)
                    } else if media_type.starts_with("application/warc-fields") {
                        if let Some(h) = hops_from_seed(&text) {
                            p.hops = h;
                        }
                        p.notes.read_fields(&text)
                    } else {
                        Ok(())
                    };
                    // The capture is indexed without what the damaged record says.
                    if let Err(e) = read {
                        self.report.errors.push(format!(
                            "{name} at offset {}: the metadata record about {}: {e}",
                            head.offset, p.record_id
                        ));
                    }
                }
                let length = r.finish_record()?;
                match &mut p.related {
                    Some(l) if l.file == name && l.offset + l.length == head.offset => {
                        l.length += length;
                    }
                    _ => {
                        p.related = Some(Location {
                            file: name.to_string(),
                            offset: head.offset,
                            length,
                        })
                    }
                }
            }
            _ => {}
        }
        Ok(true)
    }

    /// Indexes the pending capture, parsing its body now that its hop path is known, and
    /// building its document as the live crawl does.
    fn flush(&mut self, w: &mut Writer) -> Result<(), IndexError> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        let page = p
            .body
            .filter(|_| wants_text(&p.info, &p.hops))
            .and_then(|body| parse_page(&p.info, body, self.opts));
        let mut doc = CaptureDoc::from_exchange(&p.info, page.as_ref(), &p.record_id, &p.hops);
        let notes = p.notes;
        doc.add_reading(notes.relevance, notes.lang, notes.app, notes.level);
        let doc = doc.finish(p.location, p.related, notes.priority, p.revisit_of);
        if doc.revisit_of.is_some() {
            self.report.revisits += 1;
        } else {
            for (kind, fields) in &notes.objects {
                let fields = fields.iter().map(|(k, v)| (k.as_str(), v.as_str()));
                w.add_object(&ObjectDoc::from_fields(kind, fields, &doc))?;
            }
        }
        self.report.captures += 1;
        w.add_capture(&doc)
    }
}

/// The document of a response or revisit record from its head and the start of its block;
/// `None` when the record has no URL or date.
fn capture(head: &RecordHead, block: &[u8], revisit: bool) -> Option<Pending> {
    let url = head
        .field("WARC-Target-URI")?
        .trim_matches(['<', '>'])
        .to_string();
    let started = chrono::DateTime::parse_from_rfc3339(head.field("WARC-Date")?)
        .ok()?
        .with_timezone(&chrono::Utc);
    let http = HttpHead::parse_stored(block);
    let info = ExchangeInfo {
        url,
        ip: head
            .field("WARC-IP-Address")
            .and_then(|v| v.parse().ok())
            .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        started,
        duration_ms: 0,
        status: http.as_ref().map_or(0, |h| h.status),
        headers: http.as_ref().map(|h| h.headers.clone()).unwrap_or_default(),
        header_len: http.as_ref().map_or(0, |h| h.len as u64),
        truncated: None,
        block_digest: head
            .field("WARC-Block-Digest")
            .unwrap_or_default()
            .to_string(),
        payload_digest: head
            .field("WARC-Payload-Digest")
            .unwrap_or_default()
            .to_string(),
    };
    let revisit_of = revisit.then(|| RevisitOf {
        record_id: head.field("WARC-Refers-To").unwrap_or_default().to_string(),
        url: head
            .field("WARC-Refers-To-Target-URI")
            .unwrap_or_default()
            .to_string(),
        date: head
            .field("WARC-Refers-To-Date")
            .unwrap_or_default()
            .to_string(),
    });
    let body = (!revisit && http.is_some() && wants_text(&info, "")).then(Vec::new);
    Some(Pending {
        record_id: head.record_id().to_string(),
        info,
        hops: String::new(),
        body,
        revisit_of,
        location: Location::default(),
        related: None,
        notes: Notes::default(),
    })
}

/// Decodes and parses a stored HTML response the way the crawl pipeline does.
fn parse_page(
    info: &ExchangeInfo,
    block: Vec<u8>,
    opts: &TextLimits,
) -> Option<crate::model::ParsedPage> {
    let base = url::Url::parse(&info.url).ok()?;
    let body = block.get(info.header_len as usize..).unwrap_or_default();
    let body = decode_entity(Box::new(body), &info.headers, opts.max_decoded_bytes)
        .ok()?
        .bytes;
    Some(crate::parse::html(
        &body,
        info.header("content-type"),
        info.header("content-language"),
        &base,
        &opts.parse,
    ))
}

/// Reads at most `n` bytes of a block; data ending early is damage of the record at `offset`.
fn read_up_to(r: impl Read, n: u64, file: &str, offset: u64) -> Result<Vec<u8>, IndexError> {
    let mut buf = Vec::with_capacity(n.min(1 << 20) as usize);
    r.take(n).read_to_end(&mut buf).map_err(|e| {
        IndexError::Archive(ArchiveError::Corrupt {
            file: file.to_string(),
            offset,
            message: format!("reading the block: {e}"),
        })
    })?;
    Ok(buf)
}

/// `hopsFromSeed` of a metadata block (`application/warc-fields`).
fn hops_from_seed(block: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(block);
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("hopsFromSeed")
            .then(|| v.trim().to_string())
    })
}

#[cfg(test)]
mod tests;
