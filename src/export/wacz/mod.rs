//! WACZ 1.1.1 packages (Web Archive Collection Zipped, the format of ReplayWeb.page and
//! Browsertrix): a ZIP holding `archive/` (WARC files, stored uncompressed so replay tools can
//! read records by HTTP range), `indexes/index.cdx` (sorted CDXJ), `pages/pages.jsonl` (the
//! archived HTML pages, with their titles from the capture index), `datapackage.json` (every
//! other file's size and SHA-256) and `datapackage-digest.json` (the SHA-256 of
//! `datapackage.json`).
//!
//! Two kinds: an export's selection ([`export_wacz`], one WARC file written by
//! [`super::export`]) and a whole crawl ([`crawl_wacz`], the crawl's sealed WARC files copied
//! unchanged). Both are written under `<out>.partial` and renamed when complete.

mod package;

use super::cdxj::index_file;
use super::{export, ExportError, ExportReport, ExportRequest};
use crate::index::{CaptureKind, CaptureRef, Index, IndexError, SearchQuery};
use chrono::SecondsFormat;
use package::write_package;
use serde::Serialize;
use std::collections::HashSet;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The WACZ version written.
pub const WACZ_VERSION: &str = "1.1.1";
/// The first line of `pages/pages.jsonl`.
pub const PAGES_HEADER: &str = r#"{"format":"json-pages-1.0","id":"pages","title":"All Pages"}"#;

/// Why a WACZ could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WaczError {
    /// Writing the export inside failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Reading the capture index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// The ZIP container refused an entry.
    #[error("{}: writing {entry}: {source}", path.display())]
    Zip {
        /// The WACZ file.
        path: PathBuf,
        /// The entry being written.
        entry: String,
        /// What the ZIP writer said.
        source: zip::result::ZipError,
    },
    /// A file of the package could not be encoded (never written empty).
    #[error("{}: encoding {entry}: {source}", path.display())]
    Encode {
        /// The WACZ file.
        path: PathBuf,
        /// The entry being encoded.
        entry: &'static str,
        /// What the encoder said.
        source: serde_json::Error,
    },
    /// A whole-crawl package needs at least one sealed WARC file.
    #[error("{}: no sealed WARC file (*.warc.gz, *.warc) to package", dir.display())]
    NoWarc {
        /// The crawl's WARC folder.
        dir: PathBuf,
    },
}

/// What a WACZ holds.
#[derive(Debug, Clone, Default)]
pub struct WaczReport {
    /// For an export: what the WARC file inside holds.
    pub export: Option<ExportReport>,
    /// The WARC files in `archive/`.
    pub warcs: Vec<String>,
    /// Lines of `indexes/index.cdx` (CDXJ).
    pub cdxj_lines: usize,
    /// Pages in `pages/pages.jsonl` (the header line not counted).
    pub pages: usize,
    /// Size of the WACZ file.
    pub bytes: u64,
}

/// One line of `pages.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Page {
    /// The page's URL as fetched.
    pub url: String,
    /// When it was fetched (`WARC-Date`), RFC 3339.
    pub ts: String,
    /// Its `<title>`, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// Writes the export of `req` as a WACZ at `out`: the selection as one WARC file,
/// `archive/<out's stem>.warc.gz`, with its CDXJ and page list.
pub fn export_wacz(
    index: &Index,
    warc_dir: &Path,
    req: &ExportRequest,
    out: &Path,
) -> Result<WaczReport, WaczError> {
    let warc_name = format!("{}.warc.gz", stem(out));
    let dir = parent(out);
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(io_error(dir))?;
    let mut w = BufWriter::with_capacity(1 << 20, tmp.as_file());
    let report = export(index, warc_dir, req, &warc_name, &mut w)?;
    w.flush().map_err(io_error(tmp.path()))?;
    drop(w);
    let pages = pages_of(index, &report.captures)?;
    let title = format!("captures selected from crawl {}", req.crawl);
    let warcs = [(warc_name, tmp.path().to_path_buf())];
    let bytes = write_package(out, &title, &warcs, &report.cdxj, &pages)?;
    Ok(WaczReport {
        cdxj_lines: report.cdxj.len(),
        export: Some(report),
        warcs: warcs.into_iter().map(|(n, _)| n).collect(),
        pages: pages.len(),
        bytes,
    })
}

/// Writes the whole crawl `crawl` (its sealed WARC files, unchanged, as they are in
/// `warc_dir`) as a WACZ at `out`. Files still being written (`.open`) are left out.
pub fn crawl_wacz(
    index: &Index,
    warc_dir: &Path,
    crawl: &str,
    out: &Path,
) -> Result<WaczReport, WaczError> {
    let entries = std::fs::read_dir(warc_dir).map_err(io_error(warc_dir))?;
    let mut warcs: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(n, p)| (n.ends_with(".warc.gz") || n.ends_with(".warc")) && p.is_file())
        .collect();
    if warcs.is_empty() {
        return Err(WaczError::NoWarc {
            dir: warc_dir.to_path_buf(),
        });
    }
    warcs.sort();
    let mut cdxj = Vec::new();
    for (_, p) in &warcs {
        cdxj.extend(index_file(p)?);
    }
    let names: HashSet<&str> = warcs.iter().map(|(n, _)| n.as_str()).collect();
    let mut captures = index.select_captures(&SearchQuery::default())?;
    captures.retain(|c| names.contains(c.location.file.as_str()));
    let pages = pages_of(index, &captures)?;
    let bytes = write_package(out, &format!("crawl {crawl}"), &warcs, &cdxj, &pages)?;
    Ok(WaczReport {
        export: None,
        warcs: warcs.into_iter().map(|(n, _)| n).collect(),
        cdxj_lines: cdxj.len(),
        pages: pages.len(),
        bytes,
    })
}

/// The pages of a package: every 2xx HTML capture or revisit, once per URL (the first
/// fetch), in time order, titled from the index (a revisit by its original's title).
/// robots.txt and sitemaps are never HTML pages of the crawl, so they are left out by hop.
pub fn pages_of(index: &Index, captures: &[CaptureRef]) -> Result<Vec<Page>, IndexError> {
    let mut sorted: Vec<&CaptureRef> = captures
        .iter()
        .filter(|c| {
            (200..300).contains(&c.status)
                && matches!(c.mime.as_str(), "text/html" | "application/xhtml+xml")
                && !c.hops.ends_with(['P', 'M'])
        })
        .collect();
    sorted.sort_by_key(|c| c.time);
    let mut seen = HashSet::new();
    let mut pages = Vec::new();
    for c in sorted {
        if !seen.insert(c.url.as_str()) {
            continue;
        }
        let id = match (&c.kind, &c.revisit_of) {
            (CaptureKind::Revisit, Some(r)) => r.record_id.as_str(),
            _ => c.record_id.as_str(),
        };
        pages.push(Page {
            url: c.url.clone(),
            ts: c.time.to_rfc3339_opts(SecondsFormat::AutoSi, true),
            title: index.title_by_record_id(id)?,
        });
    }
    Ok(pages)
}

/// The `pages/pages.jsonl` text: the header line, then one line per page.
pub fn pages_jsonl(pages: &[Page]) -> Result<String, serde_json::Error> {
    let mut out = String::from(PAGES_HEADER);
    out.push('\n');
    for p in pages {
        out.push_str(&serde_json::to_string(p)?);
        out.push('\n');
    }
    Ok(out)
}

/// The file name of `out` without `.wacz` (`x.wacz` is `x`).
fn stem(out: &Path) -> String {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.strip_suffix(".wacz") {
        Some(s) if !s.is_empty() => s.to_string(),
        _ if name.is_empty() => "export".into(),
        _ => name,
    }
}

fn parent(out: &Path) -> &Path {
    match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> WaczError {
    let path = path.to_path_buf();
    move |source| WaczError::Io { path, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_page_lines_follow_the_spec() {
        assert_eq!(stem(Path::new("/x/sel.wacz")), "sel");
        assert_eq!(stem(Path::new("sel")), "sel");
        let pages = [Page {
            url: "http://e.org/".into(),
            ts: "2026-11-22T04:26:07.763412Z".into(),
            title: Some("Home \"quoted\"".into()),
        }];
        let text = pages_jsonl(&pages).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], PAGES_HEADER);
        assert_eq!(
            lines[1],
            r#"{"url":"http://e.org/","ts":"2026-11-22T04:26:07.763412Z","title":"Home \"quoted\""}"#
        );
        let untitled = Page {
            title: None,
            ..pages[0].clone()
        };
        assert!(!serde_json::to_string(&untitled).unwrap().contains("title"));
    }
}
