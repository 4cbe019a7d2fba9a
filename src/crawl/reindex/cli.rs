//! The `magpie index rebuild` command: its arguments, logic and output, so `main.rs` only
//! names it.

use super::{rebuild, RebuildReport, TextLimits};
use crate::index::{index_dir, warc_dir, Index, IndexError};
use crate::spec::Spec;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `magpie index …` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum IndexCommand {
    /// Re-create a crawl's index from its WARC files.
    Rebuild {
        /// The crawl name.
        crawl: String,
        /// Data folder.
        #[arg(long, default_value = "magpie-data")]
        data: PathBuf,
    },
}

/// Runs `magpie index …`.
pub fn run_index(c: IndexCommand, out: &mut dyn Write) -> Result<ExitCode, IndexError> {
    match c {
        IndexCommand::Rebuild { crawl, data } => rebuild_command(&data, &crawl, out)?,
    };
    Ok(ExitCode::SUCCESS)
}

/// `magpie index rebuild CRAWL`: re-creates the index from the crawl's WARC files with the
/// crawl's own text limits: those stored with the index, or for an index that has none (made
/// before they were stored, or deleted) those of the crawl's `spec.json`.
fn rebuild_command(
    data: &Path,
    crawl: &str,
    out: &mut dyn Write,
) -> Result<RebuildReport, IndexError> {
    let root = data.join(crawl);
    let warcs = warc_dir(data, crawl);
    if !warcs.is_dir() {
        return Err(IndexError::Io {
            path: warcs,
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no WARC folder"),
        });
    }
    let dir = index_dir(data, crawl);
    let opts = match TextLimits::load(&dir)? {
        Some(limits) => limits,
        None => limits_of_spec(&root.join("spec.json"))?,
    };
    let index = match Index::open(&dir) {
        Ok(i) => i,
        Err(IndexError::SchemaMismatch { .. } | IndexError::Tantivy { .. }) => {
            Index::recreate(&dir)?
        }
        Err(e) => return Err(e),
    };
    // A recreated index folder lost them.
    opts.save(&dir)?;
    let t0 = std::time::Instant::now();
    let report = rebuild(&index, &warcs, &opts)?;
    let secs = t0.elapsed().as_secs_f64().max(1e-6);
    let io = IndexError::io("stdout");
    writeln!(
        out,
        "indexed {} captures ({} revisits) from {} WARC files ({:.1} MB) in {:.2} s ({:.0} docs/s); {} skipped",
        report.captures,
        report.revisits,
        report.files,
        report.bytes as f64 / 1e6,
        secs,
        report.captures as f64 / secs,
        report.skipped
    )
    .map_err(io)?;
    for e in &report.errors {
        writeln!(out, "damaged: {e}").map_err(IndexError::io("stdout"))?;
    }
    Ok(report)
}

/// The text limits of the spec stored at `path`; a crawl without one (or with one that does
/// not parse) is an error naming the file, never the defaults, which would index pages
/// differently from the crawl.
fn limits_of_spec(path: &Path) -> Result<TextLimits, IndexError> {
    let text = std::fs::read_to_string(path).map_err(|source| IndexError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let spec = Spec::from_json(&text).map_err(|e| IndexError::Damaged {
        what: path.display().to_string(),
        reason: e.to_string(),
    })?;
    Ok(TextLimits::from_spec(&spec))
}
