//! The capture index: one tantivy index per crawl (`DATA/<crawl>/index/`), full-text search with
//! facets, capture lookup and replay straight from the WARC files. The only tantivy user.
//!
//! # The rule
//!
//! **The WARC files are the source of truth; the index can always be rebuilt from them.**
//! Every document names the WARC file, offset and length of its record, so search results
//! lead back to the exact bytes archived. The crawl's `reindex` re-reads every sealed WARC
//! file of a crawl, or only the records after the position stored with the last index commit
//! ([`Index::position`]), which is how a restarted crawl recovers the documents a crash lost;
//! it builds documents with the same calls as the live crawl.
//!
//! # Documents
//!
//! One document per `response` or `revisit` record ([`CaptureDoc`]) and one per web object
//! extracted from a page ([`ObjectDoc`]). Revisits carry the exchange facts but no text (the
//! original has it). Analysis and application-aware fields (relevance, score, app, level) are
//! optional and absent until those stages fill them. See `docs/index.md` for the schema.
//!
//! # Writing during a crawl
//!
//! The crawl builds a [`CaptureDoc`] on a worker thread ([`CaptureDoc::from_exchange`],
//! [`CaptureDoc::add_reading`]), the engine finishes it with the record locations
//! ([`CaptureDoc::finish`]) and hands it to the [`Indexer`], whose own thread feeds
//! tantivy. At each crawl commit the engine passes the durable WARC checkpoint
//! ([`Indexer::commit`]); the indexer commits tantivy every `commit_every` with that
//! checkpoint as the index position, so the index never claims records the archive could
//! still lose.

mod doc;
mod facets;
mod host_report;
mod lookup;
mod query_limits;
mod related;
mod schema;
mod search;
mod stored;
mod words;
mod writer;

pub mod cli;

/// Refuses a query string that is too long, too deeply nested or has too many terms for the
/// query parser (`query_limits.rs`): a 400 that says which bound, checked before parsing.
pub fn check_query(q: &str) -> Result<(), IndexError> {
    query_limits::check(q).map_err(|reason| IndexError::BadQuery {
        query: query_limits::excerpt(q),
        reason,
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_writer;

pub use doc::{
    join_blocks, primary_language, CaptureDoc, CaptureKind, Location, ObjectDoc, RevisitOf,
    MAX_TEXT_BYTES,
};
pub use facets::{FacetCount, Facets};
pub use host_report::HostCaptures;
pub use lookup::{CaptureRef, Replay};
pub use related::{metadata_records, MetadataRecord, MAX_METADATA_BYTES};
pub use schema::SCHEMA_VERSION;
pub use search::{
    DocKind, Hit, ObjectInfo, SearchQuery, SearchResults, SortBy, MAX_DEPTH, MAX_PER_PAGE,
};
pub use writer::{Indexer, IndexerConfig, IndexerStats, Writer};

use crate::archive::{ArchiveError, Checkpoint};
use schema::{Fields, TEXT_ANALYZER};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tantivy::{IndexReader, ReloadPolicy, TantivyError};

/// Everything that can go wrong while indexing, searching or replaying.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// tantivy failed; `context` names the index directory or the operation.
    #[error("index {context}: {source}")]
    Tantivy {
        /// The directory or operation concerned.
        context: String,
        /// What tantivy said.
        source: tantivy::TantivyError,
    },
    /// Persisted index state that cannot be read or written as it must be.
    #[error("{what}: {reason}")]
    Damaged {
        /// The state concerned, naming the index.
        what: String,
        /// Why.
        reason: String,
    },
    /// A file or directory could not be used.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path concerned.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The query string is not valid query syntax (an HTTP 400, not a server error).
    #[error("bad query {query:?}: {reason}")]
    BadQuery {
        /// The query as given.
        query: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A search parameter is out of range or unknown.
    #[error("bad parameter {name}: {reason}")]
    BadParameter {
        /// The parameter.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The index was written with another schema and must be rebuilt.
    #[error("index {dir} has schema version {found}, this magpie writes {expected}: run `magpie index rebuild`")]
    SchemaMismatch {
        /// The index directory.
        dir: String,
        /// The version found ("unknown" when the schema differs without a version).
        found: String,
        /// [`SCHEMA_VERSION`].
        expected: u32,
    },
    /// The crawl has no index yet.
    #[error("no index in {dir}: run `magpie index rebuild`")]
    NoIndex {
        /// The index directory expected.
        dir: String,
    },
    /// Another process (usually the running crawl) holds the index writer.
    #[error("index {dir} is being written by another process (is the crawl running?)")]
    Locked {
        /// The index directory.
        dir: String,
    },
    /// Reading the WARC files failed.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// No capture of this URL is indexed.
    #[error("no capture of {url}")]
    NotFound {
        /// The URL looked up.
        url: String,
    },
    /// The index points at a record that is not what it says (the WARC files changed since the
    /// index was written): rebuild the index.
    #[error("{file} at offset {offset}: {message}; run `magpie index rebuild`")]
    Stale {
        /// The WARC file.
        file: String,
        /// The offset the index names.
        offset: u64,
        /// What differs.
        message: String,
    },
    /// The background indexer stopped (its error was reported by [`Indexer::close`]).
    #[error("the indexer thread stopped: {0}")]
    Stopped(String),
}

impl IndexError {
    /// `EMFILE` or `ENFILE` when the OS error under this one says file descriptors ran out
    /// (tantivy keeps its I/O errors in fields, not as sources, so they are looked up here).
    pub fn out_of_descriptors(&self) -> Option<&'static str> {
        use tantivy::directory::error::{OpenDirectoryError, OpenReadError, OpenWriteError};
        let io = match self {
            IndexError::Io { source, .. } => source,
            IndexError::Tantivy {
                source:
                    TantivyError::IoError(e)
                    | TantivyError::OpenWriteError(OpenWriteError::IoError { io_error: e, .. })
                    | TantivyError::OpenReadError(OpenReadError::IoError { io_error: e, .. })
                    | TantivyError::OpenDirectoryError(OpenDirectoryError::IoError {
                        io_error: e, ..
                    }),
                ..
            } => e.as_ref(),
            _ => return None,
        };
        crate::process::out_of_descriptors(io)
    }

    pub(crate) fn tantivy(
        context: impl Into<String>,
    ) -> impl FnOnce(tantivy::TantivyError) -> Self {
        let context = context.into();
        move |source| IndexError::Tantivy { context, source }
    }

    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| IndexError::Io { path, source }
    }
}

/// What each index commit stores as its payload: the schema version and how far into the WARC
/// files the index is complete.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct CommitState {
    pub schema_version: u32,
    /// Every capture record before this position is indexed, none after it.
    pub position: Option<Checkpoint>,
}

/// The index directory of a crawl: `DATA/<crawl>/index/`.
pub fn index_dir(data: &Path, crawl: &str) -> PathBuf {
    data.join(crawl).join("index")
}

/// The WARC directory of a crawl: `DATA/<crawl>/warc/`.
pub fn warc_dir(data: &Path, crawl: &str) -> PathBuf {
    data.join(crawl).join("warc")
}

/// The path of the WARC file `file` (its sealed name, as the index stores it) in `warc_dir`:
/// the sealed file, or the `.open` file a running crawl is still appending to.
pub fn record_path(warc_dir: &Path, file: &str) -> PathBuf {
    let sealed = warc_dir.join(file);
    if !sealed.exists() {
        let open = warc_dir.join(format!("{file}.open"));
        if open.exists() {
            return open;
        }
    }
    sealed
}

/// An open capture index: the searcher side, and the factory of writers.
///
/// Cheap to share behind an `Arc`: searches take `&self` and run concurrently; the reader
/// follows commits (from this process or another) within a second.
pub struct Index {
    inner: tantivy::Index,
    reader: IndexReader,
    fields: Fields,
    name: String,
}

impl Index {
    /// Opens the index in `dir`, creating it (and the directory) if missing. An index written
    /// with another schema is refused with [`IndexError::SchemaMismatch`].
    pub fn open(dir: &Path) -> Result<Index, IndexError> {
        std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
        let name = dir.display().to_string();
        let fields = Fields::new();
        let mmap = tantivy::directory::MmapDirectory::open(dir).map_err(|e| IndexError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let exists = tantivy::Index::exists(&mmap).map_err(|e| IndexError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let inner = if exists {
            let inner = tantivy::Index::open(mmap).map_err(IndexError::tantivy(&name))?;
            let state = read_state(&inner, &name)?;
            if inner.schema() != fields.schema || state.schema_version > SCHEMA_VERSION {
                return Err(IndexError::SchemaMismatch {
                    dir: name,
                    found: if state.schema_version == 0 {
                        "unknown".into()
                    } else {
                        state.schema_version.to_string()
                    },
                    expected: SCHEMA_VERSION,
                });
            }
            inner
        } else {
            tantivy::Index::create(mmap, fields.schema.clone(), Default::default())
                .map_err(IndexError::tantivy(&name))?
        };
        Index::wrap(inner, fields, name)
    }

    /// Removes whatever is in `dir` and creates an empty index there (used by rebuilds when
    /// the old index is unreadable or has another schema).
    pub fn recreate(dir: &Path) -> Result<Index, IndexError> {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(IndexError::io(dir))?;
        }
        Index::open(dir)
    }

    /// An index in memory, for tests and throw-away work.
    pub fn temporary() -> Result<Index, IndexError> {
        let fields = Fields::new();
        let inner = tantivy::Index::create_in_ram(fields.schema.clone());
        Index::wrap(inner, fields, "(in memory)".into())
    }

    fn wrap(inner: tantivy::Index, fields: Fields, name: String) -> Result<Index, IndexError> {
        inner
            .tokenizers()
            .register(TEXT_ANALYZER, schema::text_analyzer());
        let reader = inner
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(IndexError::tantivy(&name))?;
        Ok(Index {
            inner,
            reader,
            fields,
            name,
        })
    }

    /// A synchronous writer (takes the index lock until dropped).
    pub fn writer(&self) -> Result<Writer, IndexError> {
        Writer::new(self)
    }

    /// The background indexer for a running crawl (takes the index lock until closed).
    pub fn indexer(&self, cfg: IndexerConfig) -> Result<Indexer, IndexError> {
        Indexer::start(self.writer()?, cfg)
    }

    /// How far into the WARC files the last commit indexed; `None` for an empty index.
    pub fn position(&self) -> Result<Option<Checkpoint>, IndexError> {
        Ok(read_state(&self.inner, &self.name)?.position)
    }

    /// Number of documents visible to searches.
    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Makes the latest commit visible now (searches otherwise follow within a second).
    pub fn refresh(&self) -> Result<(), IndexError> {
        self.reader
            .reload()
            .map_err(IndexError::tantivy(format!("{}: reload", self.name)))
    }

    /// The directory (or "(in memory)"), for messages.
    pub fn name(&self) -> &str {
        &self.name
    }
}

fn read_state(inner: &tantivy::Index, name: &str) -> Result<CommitState, IndexError> {
    let metas = inner.load_metas().map_err(IndexError::tantivy(name))?;
    // No payload: an index no commit of magpie's wrote yet. One that does not parse is damage,
    // never read as "no position" (which would index every WARC file again on top).
    match metas.payload.as_deref() {
        None => Ok(CommitState::default()),
        Some(p) => serde_json::from_str(p).map_err(|e| IndexError::Damaged {
            what: format!("index {name}: the last commit's payload"),
            reason: format!("{e}; run `magpie index rebuild`"),
        }),
    }
}
