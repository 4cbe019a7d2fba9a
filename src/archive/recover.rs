//! Crash recovery: cuts the `.open` WARC file back to the last committed checkpoint before a
//! writer starts again. Sealed files are never modified, not even when they hold records written
//! after the checkpoint: a sealed file is a promise to every tool that has read it.

use super::writer::{sync_dir, Checkpoint, OPEN_SUFFIX};
use super::ArchiveError;
use std::fs::OpenOptions;
use std::path::Path;

/// What [`recover`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// The checkpoint's file, now sealed (`None` without a checkpoint).
    pub sealed: Option<String>,
    /// Bytes cut from the end of that file when it was still `.open` (uncommitted records,
    /// torn tails).
    pub cut_bytes: u64,
    /// Bytes after the checkpoint kept because the file was already sealed (the crash came
    /// between a rotation and the next commit): their URLs are fetched again, so these
    /// captures may appear twice in the archive, but nothing sealed is ever removed.
    pub kept_after_checkpoint: u64,
    /// `.open` files removed, with their sizes: they held only uncommitted records.
    pub removed: Vec<(String, u64)>,
}

/// Crash recovery, run before a writer is created on restart.
///
/// The checkpoint names the file it belongs to. If that file is still `.open`, it is truncated
/// to `checkpoint.offset`, fsynced and sealed. If it is already sealed (the writer rotated after
/// the last commit, then the process died), it is left exactly as it is: it was fsynced before
/// its rename, so it is complete, and the records past the offset are kept (their URLs are
/// fetched again: the redo-after-commit contract). Every other `*.warc.gz.open` file in `dir`
/// holds only uncommitted records and is removed. With `None` (nothing was ever committed) every
/// `.open` file is removed. Sealed files are never modified. Running it twice is harmless.
/// Fails, changing nothing, if the checkpoint's file is missing or shorter than the offset
/// (committed records would be lost: the operator must look).
pub fn recover(
    dir: &Path,
    checkpoint: Option<&Checkpoint>,
) -> Result<RecoveryReport, ArchiveError> {
    let mut report = RecoveryReport::default();
    if let Some(cp) = checkpoint {
        let fail = |message: String| ArchiveError::Checkpoint {
            file: cp.file.clone(),
            message,
        };
        if cp.file.is_empty() || cp.file.contains(['/', '\\']) || cp.file.ends_with(OPEN_SUFFIX) {
            return Err(fail("not a plain WARC file name".into()));
        }
        let sealed = dir.join(&cp.file);
        let open = dir.join(format!("{}{OPEN_SUFFIX}", cp.file));
        let path = match (open.exists(), sealed.exists()) {
            (true, false) => open.clone(),
            (false, true) => sealed.clone(),
            (true, true) => return Err(fail("exists both sealed and as .open".into())),
            (false, false) => return Err(fail(format!("not found in {}", dir.display()))),
        };
        let len = std::fs::metadata(&path)
            .map_err(|e| ArchiveError::file(&path, e))?
            .len();
        if len < cp.offset {
            return Err(fail(format!(
                "file is {len} bytes, shorter than the committed offset {}; committed records are missing",
                cp.offset
            )));
        }
        if path == sealed {
            report.kept_after_checkpoint = len - cp.offset;
        } else if len > cp.offset {
            let f = OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| ArchiveError::file(&path, e))?;
            f.set_len(cp.offset)
                .map_err(|e| ArchiveError::file(&path, e))?;
            f.sync_all().map_err(|e| ArchiveError::file(&path, e))?;
            report.cut_bytes = len - cp.offset;
        }
        if path == open {
            std::fs::rename(&open, &sealed).map_err(|e| ArchiveError::file(&open, e))?;
        }
        report.sealed = Some(cp.file.clone());
    }
    for entry in std::fs::read_dir(dir).map_err(|e| ArchiveError::file(dir, e))? {
        let entry = entry.map_err(|e| ArchiveError::file(dir, e))?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if !name.ends_with(&format!(".warc.gz{OPEN_SUFFIX}")) {
            continue;
        }
        let path = entry.path();
        let size = entry
            .metadata()
            .map_err(|e| ArchiveError::file(&path, e))?
            .len();
        std::fs::remove_file(&path).map_err(|e| ArchiveError::file(&path, e))?;
        report.removed.push((name, size));
    }
    report.removed.sort();
    sync_dir(dir)?;
    Ok(report)
}
