//! The helper's errors: a knowledge-base file that cannot be loaded names the file, the line and
//! the reason; store failures name the operation.

use std::path::PathBuf;

/// Why the application-aware helper could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum AahError {
    /// A knowledge-base file is not valid. Loading stops at the first defect of each file.
    #[error("{file}:{line}: {reason}")]
    Kb {
        /// The file.
        file: PathBuf,
        /// 1-based line of the defect (the start tag of the element concerned).
        line: usize,
        /// What is wrong, in words an archivist can act on.
        reason: String,
    },
    /// The knowledge-base folder or a file in it could not be read.
    #[error("cannot read knowledge base {path}: {source}")]
    Read {
        /// The folder or file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The folder holds no knowledge-base file.
    #[error("knowledge base {path}: no *.xml application file found")]
    Empty {
        /// The folder.
        path: PathBuf,
    },
    /// A command-line input (a saved page, a URL) is unusable.
    #[error("{what}: {reason}")]
    Input {
        /// The file or argument.
        what: String,
        /// Why.
        reason: String,
    },
    /// The relaxation store failed.
    #[error("relaxation store: {0}")]
    Store(#[from] crate::store::StoreError),
    /// A stored relaxation record could not be decoded (written by an incompatible version).
    #[error("relaxation store: bad record under {key}: {reason}")]
    Record {
        /// The key, printable.
        key: String,
        /// What serde said.
        reason: String,
    },
}

impl AahError {
    /// A knowledge-base defect at a line of a file.
    pub(crate) fn kb(file: &std::path::Path, line: usize, reason: impl Into<String>) -> AahError {
        AahError::Kb {
            file: file.to_path_buf(),
            line,
            reason: reason.into(),
        }
    }
}
