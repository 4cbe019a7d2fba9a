//! What an export will hold: the captures a request selects, plus the originals of selected
//! revisits and (on request) page requisites, and a preview of the counts and bytes before
//! anything is written.

use super::{embeds, source_warcinfo, warcinfo, ExportError, ExportRequest};
use crate::archive::WarcReader;
use crate::index::{record_path, CaptureKind, CaptureRef, Index, Location};
use serde::Serialize;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The captures an export copies, in WARC order, and where they come from.
pub(super) struct Selection {
    /// Every capture to copy, each once, sorted by (file, offset).
    pub chosen: Vec<CaptureRef>,
    /// How many the query selected.
    pub selected: usize,
    /// Originals added for selected revisits.
    pub originals: usize,
    /// Page requisites added.
    pub embeds: usize,
}

/// Resolves a request to the captures to copy: the matches, their requisites when asked, and
/// the originals every revisit needs.
pub(super) fn select(
    index: &Index,
    warc_dir: &Path,
    req: &ExportRequest,
) -> Result<Selection, ExportError> {
    let mut chosen = index.select_captures(&req.query)?;
    let selected = chosen.len();
    let (mut originals, mut embed_count) = (0, 0);
    let mut seen: HashSet<String> = chosen.iter().map(|c| c.record_id.clone()).collect();
    if req.with_embeds {
        for e in embeds::requisites(index, warc_dir, &chosen)? {
            if seen.insert(e.record_id.clone()) {
                chosen.push(e);
                embed_count += 1;
            }
        }
    }
    let revisits: Vec<CaptureRef> = chosen
        .iter()
        .filter(|c| c.kind == CaptureKind::Revisit)
        .cloned()
        .collect();
    for r in revisits {
        if let Some(o) = index.original_of(&r)? {
            if seen.insert(o.record_id.clone()) {
                chosen.push(o);
                originals += 1;
            }
        }
    }
    chosen.sort_by(|a, b| {
        (&a.location.file, a.location.offset).cmp(&(&b.location.file, b.location.offset))
    });
    Ok(Selection {
        chosen,
        selected,
        originals,
        embeds: embed_count,
    })
}

/// The source WARC files the chosen records are in, in first-use order, each once.
pub(super) fn source_files(chosen: &[CaptureRef]) -> Vec<&str> {
    let mut files: Vec<&str> = Vec::new();
    for c in chosen {
        for f in std::iter::once(&c.location.file).chain(c.related.as_ref().map(|r| &r.file)) {
            if !files.contains(&f.as_str()) {
                files.push(f);
            }
        }
    }
    files
}

/// How many records the span after a capture holds: its request and metadata records, and
/// as many JSON metadata records (analysis, helper) as the crawl wrote for it. The index keeps
/// the span, not its count, so the span is read (only heads are parsed; these records are
/// small), which keeps every reported count equal to what the file holds.
pub(super) fn related_records(warc_dir: &Path, rel: &Location) -> Result<usize, ExportError> {
    let path = record_path(warc_dir, &rel.file);
    let io_err = |source| ExportError::Io {
        path: path.clone(),
        source,
    };
    let mut f = File::open(&path).map_err(io_err)?;
    f.seek(SeekFrom::Start(rel.offset)).map_err(io_err)?;
    let span = BufReader::new(f.take(rel.length));
    let mut r = WarcReader::with_origin(span, rel.file.clone(), rel.offset)?;
    let mut n = 0;
    while r.next_record()?.is_some() {
        n += 1;
    }
    Ok(n)
}

/// What an export would write, computed without writing it (so an operator can see the size
/// of a selection before making the file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ExportPreview {
    /// Captures selected by the query.
    pub selected: usize,
    /// Originals that selected revisits bring along.
    pub originals: usize,
    /// Page requisites added (with embeds).
    pub embeds: usize,
    /// Captures in the export: `selected + originals + embeds`.
    pub captures: usize,
    /// WARC records the export would hold (warcinfo records included).
    pub records: usize,
    /// Size of the WARC file in bytes. Copied records are counted exactly; the export's own
    /// warcinfo record is measured on a sample and may differ by a few bytes once written
    /// (its date and record ID compress differently).
    pub bytes: u64,
}

/// Counts what exporting `req` would write, reading only the index, the heads of the source
/// files and the short records that follow each capture (to count them; with embeds, the
/// metadata records are read for their outlinks too).
pub fn preview(
    index: &Index,
    warc_dir: &Path,
    req: &ExportRequest,
    out_name: &str,
) -> Result<ExportPreview, ExportError> {
    let sel = select(index, warc_dir, req)?;
    let mut records = 1;
    let mut bytes = warcinfo(req, out_name)?.len() as u64;
    for f in source_files(&sel.chosen) {
        if let Some(loc) = source_warcinfo(&crate::index::record_path(warc_dir, f), f)? {
            records += 1;
            bytes += loc.length;
        }
    }
    for c in &sel.chosen {
        records += 1;
        bytes += c.location.length;
        if let Some(rel) = &c.related {
            records += related_records(warc_dir, rel)?;
            bytes += rel.length;
        }
    }
    Ok(ExportPreview {
        selected: sel.selected,
        originals: sel.originals,
        embeds: sel.embeds,
        captures: sel.chosen.len(),
        records,
        bytes,
    })
}
