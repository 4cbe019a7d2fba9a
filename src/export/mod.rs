//! Export: the captures a search selects, written as a new WARC file (with a CDXJ index of it)
//! that replays on its own, and CDXJ indexes of any WARC file.
//!
//! # What an export holds
//!
//! 1. A new `warcinfo` record naming the source crawl and the selection criteria.
//! 2. The `warcinfo` record of every source file records are taken from, copied unchanged, so
//!    each copied record's `WARC-Warcinfo-ID` resolves inside the export.
//! 3. For every selected capture, in crawl order: its `response` (or `revisit`) record, then its
//!    `request` and `metadata` records. A revisit brings its original along; with embeds, the
//!    page requisites named in the metadata (`outlink: URL E …`, followed through stylesheets
//!    and redirects) come along too, so pages replay with their images and styles.
//!
//! Records are copied **byte for byte**, gzip member by gzip member (digests and record IDs
//! unchanged); the crawl's own files are only read. The CDXJ lines of the copied response and
//! revisit records are computed from the records themselves, with their offsets in the export.

pub(crate) mod cdxj;
pub mod cli;
mod embeds;
mod select;
pub mod wacz;

#[cfg(test)]
mod tests;

pub use cdxj::{index_file, write_sorted, CdxjEntry};
pub use select::{preview, ExportPreview};

use crate::archive::{self, read_record_prefix, ArchiveError, WarcReader};
use crate::index::{record_path, CaptureRef, DocKind, Index, IndexError, Location, SearchQuery};
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Selecting from the index failed (a bad query is [`IndexError::BadQuery`]).
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Reading a source WARC file failed.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// A file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// Writing the export failed.
    #[error("writing the export: {0}")]
    Write(io::Error),
    /// A source record is not a gzip member and cannot be copied into a `.warc.gz`.
    #[error(
        "{file} at offset {offset}: not a gzip member (only .warc.gz sources can be exported)"
    )]
    NotGzip {
        /// The source file.
        file: String,
        /// The record's offset.
        offset: u64,
    },
}

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct ExportRequest {
    /// The selection (paging and order are ignored: every match is exported).
    pub query: SearchQuery,
    /// Also export the page requisites of the selected pages.
    pub with_embeds: bool,
    /// Name of the crawl exported from, for the warcinfo record.
    pub crawl: String,
}

/// What an export wrote.
#[derive(Debug, Clone, Default)]
pub struct ExportReport {
    /// Captures selected by the query.
    pub selected: usize,
    /// Originals added for selected revisits.
    pub originals: usize,
    /// Page requisites added.
    pub embeds: usize,
    /// WARC records written (warcinfo records included).
    pub records: usize,
    /// Bytes written.
    pub bytes: u64,
    /// CDXJ entries of the written response and revisit records.
    pub cdxj: Vec<CdxjEntry>,
    /// The captures written, in file order (a WACZ lists its pages from them).
    pub captures: Vec<CaptureRef>,
}

/// Writes the export of `req` from the crawl whose index is `index` and WARC files are in
/// `warc_dir` to `out`, a stream that becomes the file `out_name` (the name recorded in the
/// warcinfo record and the CDXJ lines).
pub fn export(
    index: &Index,
    warc_dir: &Path,
    req: &ExportRequest,
    out_name: &str,
    out: &mut dyn Write,
) -> Result<ExportReport, ExportError> {
    let sel = select::select(index, warc_dir, req)?;
    let mut report = ExportReport {
        selected: sel.selected,
        originals: sel.originals,
        embeds: sel.embeds,
        ..ExportReport::default()
    };
    let chosen = sel.chosen;

    let mut w = Counting { inner: out, n: 0 };
    let info = warcinfo(req, out_name)?;
    w.write_all(&info).map_err(ExportError::Write)?;
    report.records += 1;
    let mut src = Sources::new(warc_dir);
    for f in select::source_files(&chosen) {
        if let Some(loc) = source_warcinfo(&record_path(warc_dir, f), f)? {
            src.copy(&loc, &mut w)?;
            report.records += 1;
        }
    }
    for c in &chosen {
        let at = w.n;
        src.copy(&c.location, &mut w)?;
        report.records += 1;
        // The heads are near the start: inflate 2 KiB of the member first, all of what was
        // read if needed, and go back to the file only for very long heads.
        let first = &src.first;
        let entry =
            match entry_from_member(&first[..first.len().min(2048)], &c.location, out_name, at)
                .or_else(|| entry_from_member(first, &c.location, out_name, at))
            {
                Some(e) => e,
                None => cdxj_entry(
                    &record_path(warc_dir, &c.location.file),
                    &c.location,
                    out_name,
                    at,
                )?,
            };
        report.cdxj.extend(entry);
        if let Some(rel) = &c.related {
            src.copy(rel, &mut w)?;
            report.records += select::related_records(warc_dir, rel)?;
        }
    }
    w.flush().map_err(ExportError::Write)?;
    report.bytes = w.n;
    report.captures = chosen;
    Ok(report)
}

/// The CDXJ entry of a copied record from the start of its member as copied (`None` when the
/// heads are not complete in it).
fn entry_from_member(
    member: &[u8],
    loc: &Location,
    out_name: &str,
    at: u64,
) -> Option<Option<CdxjEntry>> {
    let mut r = WarcReader::with_origin(member, loc.file.clone(), loc.offset).ok()?;
    let head = r.next_record().ok()??;
    let want = head.content_length.min(4096);
    let mut block = Vec::with_capacity(want as usize);
    let _ = r.block().take(want).read_to_end(&mut block);
    let needs_http = head.record_type() == "response";
    if needs_http
        && crate::http::head::HttpHead::parse_stored(&block).is_none()
        && block.len() as u64 != head.content_length
    {
        return None;
    }
    Some(CdxjEntry::from_record(
        &head, &block, out_name, at, loc.length,
    ))
}

/// The CDXJ entry of a copied record, now at `at` in `out_name`, read from its source file.
/// Only the heads are needed, so a small prefix of the record is inflated first and a larger
/// one only for a long HTTP head.
fn cdxj_entry(
    path: &Path,
    loc: &Location,
    out_name: &str,
    at: u64,
) -> Result<Option<CdxjEntry>, ExportError> {
    let mut probe = 4096;
    loop {
        let (head, block) = read_record_prefix(path, loc.offset, probe)?;
        let whole = block.len() as u64 == head.content_length;
        if whole
            || probe >= cdxj::HEAD_PROBE
            || head.record_type() != "response"
            || crate::http::head::HttpHead::parse_stored(&block).is_some()
        {
            return Ok(CdxjEntry::from_record(
                &head, &block, out_name, at, loc.length,
            ));
        }
        probe = cdxj::HEAD_PROBE;
    }
}

/// The export's own warcinfo record: source crawl and selection criteria.
fn warcinfo(req: &ExportRequest, out_name: &str) -> Result<Vec<u8>, ExportError> {
    let q = &req.query;
    let mut fields: Vec<(String, String)> = vec![
        (
            "software".into(),
            concat!("magpie/", env!("CARGO_PKG_VERSION")).into(),
        ),
        ("format".into(), "WARC File Format 1.1".into()),
        (
            "conformsTo".into(),
            "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/".into(),
        ),
        ("isPartOf".into(), req.crawl.clone()),
        (
            "description".into(),
            format!("captures selected from crawl {}", req.crawl),
        ),
        ("source-crawl".into(), req.crawl.clone()),
    ];
    let mut sel = |name: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            fields.push((format!("selection-{name}"), v.replace(['\r', '\n'], " ")));
        }
    };
    sel("query", Some(q.q.clone()));
    sel("host", q.host.clone());
    sel("domain", q.domain.clone());
    sel("app", q.app.clone());
    sel(
        "kind",
        q.kind.map(|k| match k {
            DocKind::Page => "page".to_string(),
            DocKind::Object => "object".to_string(),
        }),
    );
    sel("lang", q.lang.clone());
    sel("mime", q.mime.clone());
    sel("min-score", q.min_score.map(|s| s.to_string()));
    sel("from", q.from.map(|t| t.to_rfc3339()));
    sel("to", q.to.map(|t| t.to_rfc3339()));
    sel("with-embeds", Some(req.with_embeds.to_string()));
    let id = archive::new_record_id();
    let date = archive::warc_date(chrono::Utc::now());
    Ok(archive::warcinfo_record(&id, &date, out_name, &fields, 6)?)
}

/// Where the first record of a source file is, if it is a warcinfo record.
fn source_warcinfo(path: &Path, name: &str) -> Result<Option<Location>, ExportError> {
    let f = File::open(path).map_err(|e| ExportError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let mut r = WarcReader::with_origin(BufReader::new(f), name, 0)?;
    match r.next() {
        Some(Ok(h)) if h.record_type() == "warcinfo" && h.compressed_len > 0 => {
            Ok(Some(Location {
                file: name.to_string(),
                offset: h.offset,
                length: h.compressed_len,
            }))
        }
        Some(Err(e)) => Err(e.into()),
        _ => Ok(None),
    }
}

/// Source files, opened once each in turn.
struct Sources<'a> {
    dir: &'a Path,
    open: Option<(String, File)>,
    /// The start of the member copied last (up to [`cdxj::HEAD_PROBE`] bytes).
    first: Vec<u8>,
    buf: Vec<u8>,
}

impl<'a> Sources<'a> {
    fn new(dir: &'a Path) -> Self {
        Sources {
            dir,
            open: None,
            first: Vec::new(),
            buf: vec![0; 256 << 10],
        }
    }

    /// Copies the gzip member(s) at `loc` unchanged.
    fn copy(&mut self, loc: &Location, out: &mut dyn Write) -> Result<(), ExportError> {
        let path = record_path(self.dir, &loc.file);
        let io_err = |e| ExportError::Io {
            path: path.clone(),
            source: e,
        };
        if self.open.as_ref().is_none_or(|(n, _)| n != &loc.file) {
            let f = File::open(&path).map_err(io_err)?;
            self.open = Some((loc.file.clone(), f));
        }
        let Some((_, f)) = self.open.as_mut() else {
            return Ok(());
        };
        f.seek(SeekFrom::Start(loc.offset)).map_err(io_err)?;
        let first = loc.length.min(cdxj::HEAD_PROBE) as usize;
        self.first.resize(first, 0);
        f.read_exact(&mut self.first).map_err(io_err)?;
        if !self.first.starts_with(&[0x1f, 0x8b]) {
            return Err(ExportError::NotGzip {
                file: loc.file.clone(),
                offset: loc.offset,
            });
        }
        out.write_all(&self.first).map_err(ExportError::Write)?;
        let mut left = loc.length - first as u64;
        while left > 0 {
            let want = left.min(self.buf.len() as u64) as usize;
            let n = match f.read(&mut self.buf[..want]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_err(e)),
            };
            out.write_all(&self.buf[..n]).map_err(ExportError::Write)?;
            left -= n as u64;
        }
        if left > 0 {
            return Err(ExportError::Archive(ArchiveError::Corrupt {
                file: loc.file.clone(),
                offset: loc.offset,
                message: format!("the file ends {left} bytes before the end of the record"),
            }));
        }
        Ok(())
    }
}

/// Counts bytes written, for CDXJ offsets.
struct Counting<'a> {
    inner: &'a mut dyn Write,
    n: u64,
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let k = self.inner.write(buf)?;
        self.n += k as u64;
        Ok(k)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
