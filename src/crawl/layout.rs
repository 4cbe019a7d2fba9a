//! Where a crawl keeps its files under the data directory, and how `--fresh` moves an old crawl aside.
//!
//! ```text
//! DIR/<name>/spec.json     the spec the crawl runs with
//! DIR/<name>/state/        the frontier's log and URL records, and sled (checkpoints, totals,
//!                          what the helper and the copy rules learned; see store::keys)
//! DIR/<name>/warc/         *.warc.gz (and one *.warc.gz.open while being written)
//! DIR/<name>/spool/        temporary response bodies too large for memory
//! DIR/<name>/index/        tantivy: the capture index (rebuildable from warc/)
//! DIR/<name>/topic.json    the topic vector, once analysis has built it
//! DIR/<name>/logs/         crawl.log (one line per fetch attempt and refused URL), rotated
//! DIR/<name>.old-<time>/   a crawl moved aside by --fresh (never deleted)
//! DIR/api-token            the token of `magpie serve` (see web::cli)
//! ```

use std::io;
use std::path::{Path, PathBuf};

pub use crate::spec::TOKEN_FILE;

/// The folders of one crawl.
#[derive(Debug, Clone)]
pub struct Layout {
    /// `DIR/<name>`.
    pub root: PathBuf,
}

impl Layout {
    /// The layout of crawl `name` under `data`.
    pub fn new(data: &Path, name: &str) -> Layout {
        Layout {
            root: data.join(name),
        }
    }

    /// The stored spec.
    pub fn spec(&self) -> PathBuf {
        self.root.join("spec.json")
    }

    /// The crawl log's folder (`crawl.log`, and the rotated `crawl.NNNNN.log`).
    pub fn logs(&self) -> PathBuf {
        self.root.join("logs")
    }

    /// The sled state.
    pub fn state(&self) -> PathBuf {
        self.root.join("state")
    }

    /// The WARC folder.
    pub fn warc(&self) -> PathBuf {
        self.root.join("warc")
    }

    /// The spool folder.
    pub fn spool(&self) -> PathBuf {
        self.root.join("spool")
    }

    /// The topic vector as last learned (JSON of `analysis::Topic`).
    pub fn topic(&self) -> PathBuf {
        self.root.join("topic.json")
    }

    /// Whether a crawl already exists here.
    pub fn exists(&self) -> bool {
        self.state().exists()
    }

    /// Creates the folders (idempotent).
    pub fn create(&self) -> io::Result<()> {
        for d in [self.state(), self.warc(), self.spool()] {
            std::fs::create_dir_all(d)?;
        }
        Ok(())
    }

    /// Moves an existing crawl aside to `DIR/<name>.old-<UTC time>`; returns where it went.
    pub fn move_aside(&self) -> io::Result<Option<PathBuf>> {
        if !self.root.exists() {
            return Ok(None);
        }
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
        let mut name = self.root.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".old-{stamp}"));
        let to = self.root.with_file_name(name);
        std::fs::rename(&self.root, &to)?;
        Ok(Some(to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_moves_the_old_crawl_aside_with_its_warcs() {
        let dir = tempfile::tempdir().unwrap();
        let l = Layout::new(dir.path(), "c");
        l.create().unwrap();
        std::fs::write(l.warc().join("a.warc.gz"), b"x").unwrap();
        let to = l.move_aside().unwrap().unwrap();
        assert!(to.join("warc/a.warc.gz").exists());
        assert!(!l.exists());
        assert_eq!(l.move_aside().unwrap(), None);
    }
}
