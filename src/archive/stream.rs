//! The byte plumbing shared by the reader and the validator: position counting on the
//! compressed side, gzip member boundaries, and lenient parsing of WARC header blocks.

use flate2::bufread::GzDecoder;
use std::io::{self, BufRead, BufReader, Read};

/// Largest header block accepted; anything longer is treated as damage, not a record.
pub(crate) const MAX_HEAD: u64 = 1 << 20;

/// A `BufRead` that counts the bytes consumed from it, which gives exact member offsets
/// because the gzip decoder consumes exactly one member from a `BufRead`.
pub(crate) struct Counting<R> {
    pub inner: R,
    pub pos: u64,
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.pos += amt as u64;
        self.inner.consume(amt);
    }
}

impl<R: BufRead> Counting<R> {
    /// True when no byte is left.
    pub fn at_eof(&mut self) -> io::Result<bool> {
        Ok(self.inner.fill_buf()?.is_empty())
    }

    /// True when the next bytes are the gzip magic.
    pub fn at_gzip_magic(&mut self) -> io::Result<bool> {
        let b = self.inner.fill_buf()?;
        Ok(match b.len() {
            0 => false,
            1 => b[0] == 0x1f,
            _ => b[0] == 0x1f && b[1] == 0x8b,
        })
    }
}

/// The decompressed side: a plain file, inside a gzip member, or between members.
pub(crate) enum Source<R> {
    /// Uncompressed WARC; offsets are record offsets.
    Plain(Counting<R>),
    /// Gzip file, positioned at a member boundary.
    Between(Counting<R>),
    /// Inside the member that starts at `start`.
    Member {
        dec: Box<BufReader<GzDecoder<Counting<R>>>>,
        start: u64,
    },
    /// After an unrecoverable error.
    Broken,
}

impl<R: BufRead> Source<R> {
    /// Detects gzip or plain framing from the first bytes.
    pub fn new(mut inner: Counting<R>) -> io::Result<Source<R>> {
        if inner.at_gzip_magic()? {
            Ok(Source::Between(inner))
        } else {
            Ok(Source::Plain(inner))
        }
    }

    /// Position in the underlying (compressed) stream, when at a boundary or in plain mode.
    pub fn outer_pos(&self) -> Option<u64> {
        match self {
            Source::Plain(c) | Source::Between(c) => Some(c.pos),
            _ => None,
        }
    }

    /// Starts the next gzip member; `Ok(false)` at a clean end of file. Errors when the bytes
    /// at the boundary are not a gzip member.
    pub fn begin_member(&mut self) -> Result<bool, String> {
        let Source::Between(c) = self else {
            return Err("not at a gzip member boundary".into());
        };
        match c.at_eof() {
            Ok(true) => return Ok(false),
            Ok(false) => {}
            Err(e) => return Err(format!("read error: {e}")),
        }
        match c.at_gzip_magic() {
            Ok(true) => {}
            Ok(false) => {
                return Err("bytes after the last gzip member are not a gzip member".into())
            }
            Err(e) => return Err(format!("read error: {e}")),
        }
        let Source::Between(c) = std::mem::replace(self, Source::Broken) else {
            return Err("not at a gzip member boundary".into());
        };
        let start = c.pos;
        let dec = GzDecoder::new(c);
        *self = Source::Member {
            dec: Box::new(BufReader::with_capacity(64 * 1024, dec)),
            start,
        };
        Ok(true)
    }

    /// After the member's data is exhausted, returns to the boundary and gives the member's
    /// compressed length. Call only once `fill_buf` returned nothing.
    pub fn end_member(&mut self) -> Option<u64> {
        match std::mem::replace(self, Source::Broken) {
            Source::Member { dec, start } => {
                let c = dec.into_inner().into_inner();
                let len = c.pos - start;
                *self = Source::Between(c);
                Some(len)
            }
            other => {
                *self = other;
                None
            }
        }
    }

    /// The start offset of the current member (gzip) or the current position (plain).
    pub fn record_base(&self) -> Option<u64> {
        match self {
            Source::Member { start, .. } => Some(*start),
            Source::Plain(c) => Some(c.pos),
            _ => None,
        }
    }

    /// Takes the compressed-side reader back out (for resynchronising after damage).
    pub fn into_counting(self) -> Option<Counting<R>> {
        match self {
            Source::Plain(c) | Source::Between(c) => Some(c),
            Source::Member { dec, .. } => Some(dec.into_inner().into_inner()),
            Source::Broken => None,
        }
    }
}

impl<R: BufRead> Read for Source<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let avail = self.fill_buf()?;
            let n = avail.len().min(buf.len());
            buf[..n].copy_from_slice(&avail[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Source<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Source::Plain(c) => c.fill_buf(),
            Source::Member { dec, .. } => dec.fill_buf(),
            Source::Between(_) | Source::Broken => Ok(&[]),
        }
    }
    fn consume(&mut self, amt: usize) {
        match self {
            Source::Plain(c) => c.consume(amt),
            Source::Member { dec, .. } => dec.consume(amt),
            Source::Between(_) | Source::Broken => {}
        }
    }
}

/// Discards up to `n` bytes; returns how many were there.
pub(crate) fn skip(r: &mut impl BufRead, mut n: u64) -> io::Result<u64> {
    let want = n;
    while n > 0 {
        let avail = r.fill_buf()?.len();
        if avail == 0 {
            break;
        }
        let k = (avail as u64).min(n) as usize;
        r.consume(k);
        n -= k as u64;
    }
    Ok(want - n)
}

/// Reads up to `buf.len()` bytes, stopping early only at end of data.
pub(crate) fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A parsed WARC header block.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawHead {
    /// The version line without its line end, e.g. `WARC/1.1`.
    pub version: String,
    /// Fields in order, names as written, values trimmed; folded lines joined with a space.
    pub fields: Vec<(String, String)>,
    /// Header length in bytes, including the blank line.
    pub len: u64,
    /// Tolerated irregularities (bare LF line ends, lines without a colon, invalid UTF-8).
    pub issues: Vec<String>,
}

/// Why a header block could not be read.
#[derive(Debug)]
pub(crate) enum HeadError {
    /// The underlying stream failed (in gzip files, usually damage).
    Io(io::Error),
    /// The bytes are not a WARC header block.
    Malformed(String),
}

/// Reads one header block. `Ok(None)` when the stream is at its end before any byte.
pub(crate) fn read_head(r: &mut impl BufRead) -> Result<Option<RawHead>, HeadError> {
    let mut head = RawHead::default();
    let mut line = Vec::with_capacity(128);
    let mut first = true;
    loop {
        line.clear();
        let n = r
            .by_ref()
            .take(MAX_HEAD.saturating_sub(head.len) + 1)
            .read_until(b'\n', &mut line)
            .map_err(HeadError::Io)?;
        if n == 0 {
            if first {
                return Ok(None);
            }
            return Err(HeadError::Malformed(
                "header block ends before its blank line".into(),
            ));
        }
        head.len += n as u64;
        if head.len > MAX_HEAD {
            return Err(HeadError::Malformed(format!(
                "header block longer than {MAX_HEAD} bytes"
            )));
        }
        if line.last() != Some(&b'\n') {
            return Err(HeadError::Malformed(
                "header block ends before its blank line".into(),
            ));
        }
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        } else if !head
            .issues
            .iter()
            .any(|i| i.starts_with("header line ends"))
        {
            head.issues
                .push("header line ends with LF instead of CRLF".into());
        }
        let text = match std::str::from_utf8(&line) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => {
                head.issues.push("header line is not valid UTF-8".into());
                String::from_utf8_lossy(&line)
            }
        };
        if first {
            first = false;
            if !text.starts_with("WARC/") {
                let shown: String = text.chars().take(40).collect();
                return Err(HeadError::Malformed(format!(
                    "no WARC version line (found {shown:?})"
                )));
            }
            head.version = text.into_owned();
            continue;
        }
        if text.is_empty() {
            return Ok(Some(head));
        }
        if text.starts_with([' ', '\t']) {
            match head.fields.last_mut() {
                Some((_, v)) => {
                    v.push(' ');
                    v.push_str(text.trim());
                }
                None => head
                    .issues
                    .push("continuation line before any field".into()),
            }
            continue;
        }
        match text.split_once(':') {
            Some((name, value)) => head
                .fields
                .push((name.trim().to_string(), value.trim().to_string())),
            None => head.issues.push(format!(
                "header line without a colon: {:?}",
                text.chars().take(40).collect::<String>()
            )),
        }
    }
}

/// The first value of a field (names compare case-insensitively).
pub(crate) fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_folding_and_issues() {
        let data =
            b"WARC/1.1\r\nWARC-Type: response\r\nX-Long: a\r\n  b\r\nnocolon\r\nA:b\n\r\nBODY";
        let mut r = &data[..];
        let h = read_head(&mut r).expect("ok").expect("some");
        assert_eq!(h.version, "WARC/1.1");
        assert_eq!(
            h.fields,
            vec![
                ("WARC-Type".to_string(), "response".to_string()),
                ("X-Long".to_string(), "a b".to_string()),
                ("A".to_string(), "b".to_string()),
            ]
        );
        assert_eq!(h.len as usize, data.len() - 4);
        assert_eq!(r, b"BODY");
        assert_eq!(h.issues.len(), 2, "{:?}", h.issues);
        assert_eq!(field(&h.fields, "warc-type"), Some("response"));
    }

    #[test]
    fn rejects_non_warc_and_unterminated() {
        assert!(matches!(
            read_head(&mut &b"HTTP/1.1 200 OK\r\n\r\n"[..]),
            Err(HeadError::Malformed(_))
        ));
        assert!(matches!(
            read_head(&mut &b"WARC/1.1\r\nA: b\r\n"[..]),
            Err(HeadError::Malformed(_))
        ));
        assert!(matches!(read_head(&mut &b""[..]), Ok(None)));
    }
}
