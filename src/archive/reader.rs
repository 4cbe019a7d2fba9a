//! Streaming WARC reader: record heads with exact gzip member offsets, blocks streamed on
//! demand, and random access to one record for replay.

use super::stream::{field, read_full, read_head, skip, Counting, HeadError, Source};
use super::ArchiveError;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The header of one record and where it sits in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordHead {
    /// Byte offset of the gzip member holding the record (of the record itself in an
    /// uncompressed file): what CDX indexes store and [`read_record_at`] takes.
    pub offset: u64,
    /// Length of the gzip member that ends with this record (of the record in an uncompressed
    /// file). Known only once the record has been read to its end: it is 0 in the head from
    /// [`WarcReader::next_record`] and set in the heads the iterator yields. Also 0 for a
    /// record followed by another one inside the same member.
    pub compressed_len: u64,
    /// The version line, e.g. `WARC/1.1`.
    pub version: String,
    /// Fields in file order, names as written, values trimmed.
    pub fields: Vec<(String, String)>,
    /// The block length from `Content-Length`.
    pub content_length: u64,
}

impl RecordHead {
    /// The first value of a field, compared case-insensitively as WARC requires.
    pub fn field(&self, name: &str) -> Option<&str> {
        field(&self.fields, name)
    }

    /// `WARC-Type`, or "" when missing.
    pub fn record_type(&self) -> &str {
        self.field("WARC-Type").unwrap_or("")
    }

    /// `WARC-Record-ID`, or "" when missing.
    pub fn record_id(&self) -> &str {
        self.field("WARC-Record-ID").unwrap_or("")
    }
}

struct Current {
    offset: u64,
    remaining: u64,
}

/// Iterates the records of a WARC file: one gzip member per record (the normal case), several
/// records per member, or an uncompressed `.warc` (detected from the first bytes).
///
/// Two ways to use it: as an [`Iterator`] of complete [`RecordHead`]s (blocks skipped,
/// `compressed_len` known), or record by record with [`WarcReader::next_record`], then
/// [`WarcReader::block`] to stream the block and optionally [`WarcReader::finish_record`] to
/// learn the member length. Blocks are never held in memory by the reader.
pub struct WarcReader<R: BufRead> {
    name: String,
    src: Source<R>,
    cur: Option<Current>,
    done: bool,
}

impl<R: BufRead> WarcReader<R> {
    /// A reader over a stream that starts at offset 0 of an unnamed file.
    pub fn new(inner: R) -> Result<Self, ArchiveError> {
        Self::with_origin(inner, "<stream>", 0)
    }

    /// A reader over a stream that starts at `offset` of the file `name` (used in errors and
    /// added to all reported offsets).
    pub fn with_origin(
        inner: R,
        name: impl Into<String>,
        offset: u64,
    ) -> Result<Self, ArchiveError> {
        let name = name.into();
        let src =
            Source::new(Counting { inner, pos: offset }).map_err(|e| ArchiveError::Corrupt {
                file: name.clone(),
                offset,
                message: format!("read error: {e}"),
            })?;
        Ok(WarcReader {
            name,
            src,
            cur: None,
            done: false,
        })
    }

    fn corrupt(&mut self, offset: u64, message: String) -> ArchiveError {
        self.done = true;
        ArchiveError::Corrupt {
            file: self.name.clone(),
            offset,
            message,
        }
    }

    /// Advances to the next record (finishing the current one first) and returns its head;
    /// `None` at the end of the file or after an error was returned.
    pub fn next_record(&mut self) -> Result<Option<RecordHead>, ArchiveError> {
        if self.cur.is_some() {
            self.finish_record()?;
        }
        loop {
            if self.done {
                return Ok(None);
            }
            if let Source::Between(_) = self.src {
                let at = self.src.outer_pos().unwrap_or(0);
                match self.src.begin_member() {
                    Ok(true) => {}
                    Ok(false) => {
                        self.done = true;
                        return Ok(None);
                    }
                    Err(m) => return Err(self.corrupt(at, m)),
                }
            }
            let offset = self.src.record_base().unwrap_or(0);
            let head = match read_head(&mut self.src) {
                Ok(Some(h)) => h,
                Ok(None) => {
                    if self.src.end_member().is_some() {
                        continue; // an empty member: nothing to yield
                    }
                    self.done = true;
                    return Ok(None);
                }
                Err(HeadError::Io(e)) => {
                    return Err(self.corrupt(offset, format!("damaged data: {e}")))
                }
                Err(HeadError::Malformed(m)) => return Err(self.corrupt(offset, m)),
            };
            let content_length =
                match field(&head.fields, "Content-Length").map(|v| v.parse::<u64>()) {
                    Some(Ok(n)) => n,
                    Some(Err(_)) => {
                        return Err(self.corrupt(offset, "Content-Length is not a number".into()))
                    }
                    None => return Err(self.corrupt(offset, "record has no Content-Length".into())),
                };
            self.cur = Some(Current {
                offset,
                remaining: content_length,
            });
            return Ok(Some(RecordHead {
                offset,
                compressed_len: 0,
                version: head.version,
                fields: head.fields,
                content_length,
            }));
        }
    }

    /// The current record's block, as a reader that ends at the block's end. Reading it is
    /// optional; unread bytes are skipped when the record is finished.
    pub fn block(&mut self) -> BlockReader<'_, R> {
        BlockReader { r: self }
    }

    /// Skips what is left of the current block, checks the CRLF CRLF terminator and returns
    /// the `compressed_len` of the record (see [`RecordHead::compressed_len`]).
    pub fn finish_record(&mut self) -> Result<u64, ArchiveError> {
        let Some(cur) = self.cur.take() else {
            return Ok(0);
        };
        let skipped = skip(&mut self.src, cur.remaining);
        match skipped {
            Ok(n) if n == cur.remaining => {}
            Ok(_) => {
                return Err(self.corrupt(cur.offset, "block ends before its Content-Length".into()))
            }
            Err(e) => return Err(self.corrupt(cur.offset, format!("damaged data: {e}"))),
        }
        let mut end = [0u8; 4];
        match read_full(&mut self.src, &mut end) {
            Ok(4) if &end == b"\r\n\r\n" => {}
            Ok(_) => return Err(self.corrupt(cur.offset, "block not followed by CRLF CRLF".into())),
            Err(e) => return Err(self.corrupt(cur.offset, format!("damaged data: {e}"))),
        }
        match &mut self.src {
            Source::Plain(c) => Ok(c.pos - cur.offset),
            Source::Member { .. } => match self.src.fill_buf() {
                Ok([]) => Ok(self.src.end_member().unwrap_or(0)),
                Ok(_) => Ok(0),
                Err(e) => Err(self.corrupt(cur.offset, format!("damaged data: {e}"))),
            },
            _ => Ok(0),
        }
    }
}

impl<R: BufRead> Iterator for WarcReader<R> {
    type Item = Result<RecordHead, ArchiveError>;

    /// Yields complete heads: the block is skipped and `compressed_len` is set.
    fn next(&mut self) -> Option<Self::Item> {
        let mut head = match self.next_record() {
            Ok(Some(h)) => h,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        match self.finish_record() {
            Ok(len) => {
                head.compressed_len = len;
                Some(Ok(head))
            }
            Err(e) => Some(Err(e)),
        }
    }
}

/// Reads the current record's block from a [`WarcReader`]; returns 0 at the block's end and an
/// `UnexpectedEof` error if the data ends before `Content-Length` bytes.
pub struct BlockReader<'a, R: BufRead> {
    r: &'a mut WarcReader<R>,
}

impl<R: BufRead> Read for BlockReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(cur) = self.r.cur.as_mut() else {
            return Ok(0);
        };
        if cur.remaining == 0 || buf.is_empty() {
            return Ok(0);
        }
        let max = (buf.len() as u64).min(cur.remaining) as usize;
        let n = self.r.src.read(&mut buf[..max])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "{} at offset {}: block ends before its Content-Length",
                    self.r.name, cur.offset
                ),
            ));
        }
        cur.remaining -= n as u64;
        Ok(n)
    }
}

/// Reads the record whose gzip member starts at `offset` (for replay), with its whole block.
pub fn read_record_at(path: &Path, offset: u64) -> Result<(RecordHead, Vec<u8>), ArchiveError> {
    read_record_prefix(path, offset, u64::MAX)
}

/// Like [`read_record_at`] but returns at most `max_block` bytes of the block, so a replay
/// request cannot make the process load a huge record. `compressed_len` is set only when the
/// whole block was read.
pub fn read_record_prefix(
    path: &Path,
    offset: u64,
    max_block: u64,
) -> Result<(RecordHead, Vec<u8>), ArchiveError> {
    let mut file = File::open(path).map_err(|e| ArchiveError::file(path, e))?;
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| ArchiveError::file(path, e))?;
    let name = path.display().to_string();
    let mut reader = WarcReader::with_origin(
        BufReader::with_capacity(64 * 1024, file),
        name.clone(),
        offset,
    )?;
    let Some(mut head) = reader.next_record()? else {
        return Err(ArchiveError::Corrupt {
            file: name,
            offset,
            message: "no record at this offset".into(),
        });
    };
    let want = head.content_length.min(max_block);
    let mut block = Vec::with_capacity(want.min(16 << 20) as usize);
    reader
        .block()
        .take(want)
        .read_to_end(&mut block)
        .map_err(|e| ArchiveError::Corrupt {
            file: name.clone(),
            offset,
            message: format!("reading the block: {e}"),
        })?;
    if want == head.content_length {
        head.compressed_len = reader.finish_record()?;
    }
    Ok((head, block))
}
