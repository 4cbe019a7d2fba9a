//! The `magpie export`, `magpie wacz` and `magpie cdxj` commands: their arguments, logic and
//! output.

use super::wacz::{crawl_wacz, export_wacz, WaczError, WaczReport};
use super::{cdxj, export, ExportError, ExportReport, ExportRequest};
use crate::index::cli::{open_existing, Filters};
use crate::index::{warc_dir, Index};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `magpie export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The crawl name.
    pub crawl: String,
    /// Data folder.
    #[arg(long, default_value = "magpie-data")]
    pub data: PathBuf,
    /// The file to write (a `.warc.gz`, or a `.wacz` with `--format wacz`).
    #[arg(long)]
    pub out: PathBuf,
    /// `warc`: a WARC file with `<out>.cdxj` beside it; `wacz`: a WACZ 1.1.1 package holding
    /// the WARC file, its CDXJ and the list of its pages.
    #[arg(long, value_enum, default_value_t = Format::Warc)]
    pub format: Format,
    /// Query selecting the captures (tantivy syntax; empty: all).
    #[arg(long, default_value = "")]
    pub query: String,
    /// The selection's filters (host, application, kind, language, dates, score).
    #[command(flatten)]
    pub filters: Filters,
    /// Also export the page requisites (images, styles) of the selected pages.
    #[arg(long)]
    pub with_embeds: bool,
}

/// What an export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A WARC file and its CDXJ index beside it.
    Warc,
    /// A WACZ package (ReplayWeb.page, Browsertrix, pywb).
    Wacz,
}

/// Arguments of `magpie wacz`.
#[derive(Debug, clap::Args)]
pub struct WaczArgs {
    /// The crawl name.
    pub crawl: String,
    /// Data folder.
    #[arg(long, default_value = "magpie-data")]
    pub data: PathBuf,
    /// The WACZ file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of `magpie cdxj`.
#[derive(Debug, clap::Args)]
pub struct CdxjArgs {
    /// WARC files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Runs `magpie export`: writes the files and one summary line to `out`.
pub fn run_export(a: ExportArgs, out: &mut dyn Write) -> Result<ExitCode, WaczError> {
    let req = ExportRequest {
        query: a.filters.query(a.query).map_err(ExportError::from)?,
        with_embeds: a.with_embeds,
        crawl: a.crawl,
    };
    if a.format == Format::Wacz {
        let index = open_existing(&a.data, &req.crawl).map_err(ExportError::from)?;
        let w = export_wacz(&index, &warc_dir(&a.data, &req.crawl), &req, &a.out)?;
        let r = w.export.clone().unwrap_or_default();
        writeln!(
            out,
            "{}: WACZ {}, {} bytes: {} records ({} selected, {} originals of revisits, {} embeds), {} pages",
            a.out.display(),
            super::wacz::WACZ_VERSION,
            w.bytes,
            r.records,
            r.selected,
            r.originals,
            r.embeds,
            w.pages
        )
        .map_err(ExportError::Write)?;
        return Ok(ExitCode::SUCCESS);
    }
    let r = export_to_file(&a.data, &req, &a.out)?;
    writeln!(
        out,
        "{}: {} records, {} bytes ({} selected, {} originals of revisits, {} embeds); index {}",
        a.out.display(),
        r.records,
        r.bytes,
        r.selected,
        r.originals,
        r.embeds,
        cdxj_path(&a.out).display()
    )
    .map_err(ExportError::Write)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `magpie wacz`: the whole crawl as a WACZ, and one summary line to `out`.
pub fn run_wacz(a: WaczArgs, out: &mut dyn Write) -> Result<ExitCode, WaczError> {
    let w = wacz_of_crawl(&a.data, &a.crawl, &a.out)?;
    writeln!(
        out,
        "{}: WACZ {}, {} bytes: {} WARC file(s), {} CDXJ lines, {} pages",
        a.out.display(),
        super::wacz::WACZ_VERSION,
        w.bytes,
        w.warcs.len(),
        w.cdxj_lines,
        w.pages
    )
    .map_err(ExportError::Write)?;
    Ok(ExitCode::SUCCESS)
}

/// `magpie wacz CRAWL --out FILE`: the crawl's sealed WARC files as a WACZ at `out`.
pub fn wacz_of_crawl(data: &Path, crawl: &str, out: &Path) -> Result<WaczReport, WaczError> {
    let index = open_existing(data, crawl).map_err(ExportError::from)?;
    crawl_wacz(&index, &warc_dir(data, crawl), crawl, out)
}

/// Runs `magpie cdxj`.
pub fn run_cdxj(a: CdxjArgs, out: &mut dyn Write) -> Result<ExitCode, ExportError> {
    cdxj_of_files(&a.files, out)?;
    Ok(ExitCode::SUCCESS)
}

/// The CDXJ file written beside an export: `<out>.cdxj`.
pub fn cdxj_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_os_string();
    name.push(".cdxj");
    PathBuf::from(name)
}

/// `magpie export CRAWL --out FILE …`: writes the export to `out` (through a temporary name,
/// renamed when complete) and its sorted CDXJ index to `<out>.cdxj`.
pub fn export_to_file(
    data: &Path,
    req: &ExportRequest,
    out: &Path,
) -> Result<ExportReport, ExportError> {
    let index = open_existing(data, &req.crawl)?;
    write_export(&index, &warc_dir(data, &req.crawl), req, out)
}

/// Writes the export of `req` from an open index to `out` and its sorted CDXJ to
/// `<out>.cdxj`, both through `.partial` names renamed when complete, the WARC file last: when
/// `out` exists, the export and its index are whole. On failure no partial file is left.
pub fn write_export(
    index: &Index,
    warc_dir: &Path,
    req: &ExportRequest,
    out: &Path,
) -> Result<ExportReport, ExportError> {
    let partial = partial_path(out);
    let cdx_path = cdxj_path(out);
    let cdx_partial = partial_path(&cdx_path);
    let result = write_partials(index, warc_dir, req, out, &partial, &cdx_partial).and_then(|r| {
        std::fs::rename(&cdx_partial, &cdx_path).map_err(io_error(&cdx_path))?;
        std::fs::rename(&partial, out).map_err(io_error(out))?;
        Ok(r)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
        let _ = std::fs::remove_file(&cdx_partial);
    }
    result
}

fn partial_path(p: &Path) -> PathBuf {
    let mut name = p.as_os_str().to_os_string();
    name.push(".partial");
    PathBuf::from(name)
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ExportError {
    let path = path.to_path_buf();
    move |source| ExportError::Io { path, source }
}

fn write_partials(
    index: &Index,
    warc_dir: &Path,
    req: &ExportRequest,
    out: &Path,
    partial: &Path,
    cdx_partial: &Path,
) -> Result<ExportReport, ExportError> {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export.warc.gz".into());
    let file = File::create(partial).map_err(io_error(partial))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let report = export(index, warc_dir, req, &name, &mut w)?;
    let file = w
        .into_inner()
        .map_err(|e| ExportError::Write(e.into_error()))?;
    file.sync_all().map_err(io_error(partial))?;
    let cdx_file = File::create(cdx_partial).map_err(io_error(cdx_partial))?;
    let mut cdx = BufWriter::new(cdx_file);
    cdxj::write_sorted(&report.cdxj, &mut cdx).map_err(io_error(cdx_partial))?;
    cdx.flush().map_err(io_error(cdx_partial))?;
    Ok(report)
}

/// `magpie cdxj FILE…`: the sorted CDXJ index of the files, to `out`.
pub fn cdxj_of_files(files: &[PathBuf], out: &mut dyn Write) -> Result<usize, ExportError> {
    let mut all = Vec::new();
    for f in files {
        all.extend(cdxj::index_file(f)?);
    }
    cdxj::write_sorted(&all, out).map_err(ExportError::Write)?;
    Ok(all.len())
}
