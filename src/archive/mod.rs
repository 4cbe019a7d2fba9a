//! WARC 1.1 archive: record encoding, the rotating file writer, crash recovery, a streaming
//! reader and the validator behind `magpie warc check`.
//!
//! # What the writer guarantees
//!
//! - **One gzip member per record.** [`encode_record`] and the record constructors
//!   ([`response_record`] and friends) produce exactly one complete gzip member holding one
//!   record, so any record can be read by seeking to its offset and inflating one member (what
//!   CDX indexes and replay tools expect). The writer appends members as given and never
//!   re-frames them (the one exception: the warcinfo rewrite on rotation, below).
//! - **Field order and case.** Fields are written exactly in the order and case given, followed
//!   by `Content-Length` (always computed from the block length, never taken from the caller) and
//!   a blank line; the block is followed by CRLF CRLF. Every record is `WARC/1.1`.
//! - **Dates.** [`warc_date`] writes UTC with microseconds, which WARC/1.1 allows.
//! - **Digests.** `sha1:` + RFC 4648 base32 (upper case, 32 characters), the ecosystem default.
//!   `WARC-Block-Digest` covers the whole block; the constructors compute it for request,
//!   metadata, revisit and warcinfo records, while response digests come from the fetcher, which
//!   computes them while the bytes arrive. The `WARC-Payload-Digest` of a response covers
//!   the entity body after the HTTP header block **with chunked transfer framing removed**
//!   (content codings such as gzip are kept), as WARC 1.1 specifies. `warcio check` digests
//!   the raw bytes instead, so a chunked response written this way fails `warcio check` while
//!   being spec-correct; [`check_file`] accepts either form for chunked responses.
//! - **Files.** Each file is named `{prefix}-{YYYYmmddHHMMSSfff}-{serial:05}-{hostname}.warc.gz`
//!   and begins with a `warcinfo` record. While being written it carries the extra suffix
//!   `.open`; it is renamed ("sealed") only after its last byte was fsynced, so a file without
//!   `.open` is always complete. Serial numbers continue after the highest one already in the
//!   directory. A file is rotated before an append that would push it past
//!   `max_file_bytes` (a single oversized record still gets a file of its own).
//! - **Warcinfo references.** [`WarcWriter::warcinfo_id`] names the warcinfo record of the file
//!   the next append goes to. If that append causes a rotation, the writer rewrites the
//!   `WARC-Warcinfo-ID` of the appended records to the new file's warcinfo, in place in the
//!   member's stored head (`gzip.rs`), so every record points at the warcinfo of its own file
//!   and none is compressed twice. Records encoded while
//!   other appends go on (on worker threads) use [`WarcWriter::append_encoded_for`], which
//!   rewrites them whenever the file rotated since the ID they name was current.
//! - **Recovery.** A [`Checkpoint`] (file + offset after the last appended member) that the crawl
//!   persists after [`WarcWriter::sync`] marks what is committed, and names its file. [`recover`]
//!   cuts that file back to the offset and seals it only while it is still `.open`; a named file
//!   already sealed (a crash between a rotation and the next commit) is kept whole. Every other
//!   `.open` file is removed (they hold only uncommitted records). A sealed file is never
//!   modified.
//!
//! - **Revisits** use the WARC/1.1 identical-payload-digest profile ([`REVISIT_PROFILE`]), keep
//!   the original's payload digest, carry `WARC-Refers-To`, `WARC-Refers-To-Target-URI` and
//!   `WARC-Refers-To-Date`, and hold only the new response's status line and headers
//!   (`WARC-Truncated: length`).
//!
//! # Use
//!
//! Workers encode records in parallel with the constructors, passing
//! [`WarcWriter::warcinfo_id`] as `warcinfo_id`; one thread appends the members
//! ([`WarcWriter::append`] returns the location for the index), calls [`WarcWriter::sync`]
//! and only then persists [`WarcWriter::checkpoint`] with the crawl state. On restart,
//! [`recover`] runs with the last persisted checkpoint before a new writer is created.
//!
//! The reader ([`WarcReader`], [`read_record_at`]) streams blocks and reports the exact byte
//! offset of each gzip member; it also reads multi-record members and uncompressed `.warc`.
//! [`check_file`] validates a file and reports each defect with its record's offset.

mod check;
mod digest;
mod fields;
mod gzip;
mod http;
mod reader;
mod record;
mod recover;
mod stream;
mod writer;

#[cfg(test)]
mod tests_check;
#[cfg(test)]
mod tests_roundtrip;
#[cfg(test)]
mod tests_support;
#[cfg(test)]
mod tests_writer;

pub use check::{check_file, check_reader, Defect};
pub use digest::{sha1_digest, Sha1Digester};
pub use reader::{read_record_at, read_record_prefix, BlockReader, RecordHead, WarcReader};
pub use record::{
    encode_record, escape_column, escape_value, is_control_char, later_metadata_record,
    metadata_record, push_field, request_record, response_record, revisit_record, warcinfo_record,
    RecordCommon, REVISIT_PROFILE,
};
pub use recover::{recover, RecoveryReport};
pub use writer::{Checkpoint, RecordLocation, WarcWriter, WriterConfig};

use std::path::PathBuf;

/// Everything that can go wrong while writing, reading or recovering WARC files.
///
/// Variants name the file (and offset) concerned, so an operator can find the damage.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// An I/O error with no file attached (for example while compressing in memory or reading
    /// a caller's block).
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// An I/O error on a named file.
    #[error("{}: {source}", path.display())]
    File {
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The block given to the encoder did not have the declared length.
    #[error("record block length mismatch: declared {declared} bytes, the block {actual}")]
    BlockLength {
        /// The length the caller declared.
        declared: u64,
        /// What was found, in words ("had 12 bytes", "had more bytes").
        actual: String,
    },
    /// A field name or value that cannot be written into a WARC header.
    #[error("invalid WARC field {name:?}: {reason}")]
    InvalidField {
        /// The field name.
        name: String,
        /// Why it was refused.
        reason: String,
    },
    /// Something to be written into a record could not be encoded; nothing is written in its
    /// place.
    #[error("cannot encode {what}: {reason}")]
    Encode {
        /// What was being encoded, and for which URL.
        what: String,
        /// Why it failed.
        reason: String,
    },
    /// Malformed or damaged WARC data.
    #[error("{file} at offset {offset}: {message}")]
    Corrupt {
        /// The file (or stream name) concerned.
        file: String,
        /// Byte offset of the gzip member (or record) concerned.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The writer configuration is unusable.
    #[error("WARC writer configuration: {0}")]
    Config(String),
    /// A checkpoint that does not match the files on disk.
    #[error("checkpoint for {file}: {message}")]
    Checkpoint {
        /// The file named by the checkpoint.
        file: String,
        /// What does not match.
        message: String,
    },
}

impl ArchiveError {
    /// Attaches a path to an I/O error.
    pub(crate) fn file(path: impl Into<PathBuf>, source: std::io::Error) -> ArchiveError {
        ArchiveError::File {
            path: path.into(),
            source,
        }
    }
}

/// A fresh `WARC-Record-ID`: `<urn:uuid:…>` with a random (v4) UUID, so IDs never collide
/// across crawls or machines.
pub fn new_record_id() -> String {
    format!("<urn:uuid:{}>", uuid::Uuid::new_v4().hyphenated())
}

/// Formats a `WARC-Date`: UTC with microseconds (`2026-11-22T03:58:05.123456Z`), which WARC/1.1
/// allows and which keeps a request and its response distinguishable from later captures.
pub fn warc_date(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn record_ids_are_urn_uuid_and_unique() {
        let a = new_record_id();
        let b = new_record_id();
        assert_ne!(a, b);
        assert!(a.starts_with("<urn:uuid:") && a.ends_with('>'), "{a}");
        assert_eq!(a.len(), "<urn:uuid:>".len() + 36);
        let inner = &a[10..a.len() - 1];
        assert!(uuid::Uuid::parse_str(inner).is_ok());
    }

    #[test]
    fn dates_have_microseconds() {
        let t = chrono::Utc
            .with_ymd_and_hms(2026, 11, 22, 3, 58, 5)
            .single()
            .expect("valid date")
            + chrono::Duration::microseconds(123_456);
        assert_eq!(warc_date(t), "2026-11-22T03:58:05.123456Z");
        let whole = chrono::Utc
            .with_ymd_and_hms(2001, 2, 3, 4, 5, 6)
            .single()
            .expect("valid date");
        assert_eq!(warc_date(whole), "2001-02-03T04:05:06.000000Z");
    }
}
