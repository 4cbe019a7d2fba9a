//! Crawl folders the server could not open: listed with the reason rather than left out.

use serde::Serialize;

use super::{lock, Manager};
use crate::spec::Spec;

/// A folder of the data folder that holds a `spec.json` the server could not read or parse:
/// listed with the reason (API and cockpit) rather than left out, so the operator learns of
/// it; nothing in it is touched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unopened {
    /// The folder's name.
    pub folder: String,
    /// Why: the file, and the error (with its JSON path, line and column for a spec that does
    /// not parse).
    pub error: String,
}

impl Manager {
    /// The crawl folders whose spec could not be read when the server opened the data folder.
    pub fn unopened(&self) -> Vec<Unopened> {
        lock(&self.unopened).clone()
    }

    /// The spec of the crawl in `dir`: `None` for a folder without one (no crawl: an export
    /// folder, a stray directory), or, noted as unopened, for one that cannot be read or parsed.
    pub(super) fn crawl_spec(&self, dir: &std::path::Path) -> Option<Spec> {
        let path = dir.join("spec.json");
        let error = match std::fs::read_to_string(&path).map(|t| Spec::from_json(&t)) {
            Ok(Ok(spec)) => return Some(spec),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => e.to_string(),
            Ok(Err(e)) => e.to_string(),
        };
        self.note_unopened(dir, format!("{}: {error}", path.display()));
        None
    }

    fn note_unopened(&self, dir: &std::path::Path, error: String) {
        tracing::error!("cannot open the crawl in {}: {error}", dir.display());
        lock(&self.unopened).push(Unopened {
            folder: dir
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            error,
        });
    }
}
