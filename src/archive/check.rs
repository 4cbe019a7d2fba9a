//! The validator behind `magpie warc check`: walks a file member by member, reports every
//! defect with the offset of its record, and resynchronises on the next intact gzip member
//! after damage instead of giving up.

use super::digest::{format_sha1, parse_digest, ParsedDigest, Sha1Digester};
use super::fields::FieldRules;
use super::http::PayloadDigest;
use super::stream::{field, read_full, read_head, skip, Counting, HeadError, RawHead, Source};
use super::ArchiveError;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// One problem found in a WARC file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defect {
    /// Offset of the gzip member (or, uncompressed, the record) concerned.
    pub offset: u64,
    /// What is wrong, in words an operator can act on.
    pub message: String,
}

type Src<F> = Source<BufReader<F>>;

/// How checking a record ended.
enum After {
    /// Another record follows in the same stream/member.
    Next,
    /// The member (or file) has no more data.
    End,
    /// Framing was lost; in gzip files the rest of the member was drained.
    Lost,
}

struct Checker {
    defects: Vec<Defect>,
    rules: FieldRules,
}

/// Validates a WARC file (gzip, one member per record, or uncompressed) against WARC 1.1 and
/// the conventions warcio and pywb rely on. Returns the defects found, in file order; an error
/// only when the file cannot be opened or read at all.
///
/// For a chunked HTTP response the payload digest is accepted when it matches either the
/// de-chunked body (as WARC 1.1 specifies) or the raw body (as warcio computes it).
pub fn check_file(path: &Path) -> Result<Vec<Defect>, ArchiveError> {
    let file = File::open(path).map_err(|e| ArchiveError::file(path, e))?;
    check_reader(file).map_err(|e| ArchiveError::file(path, e))
}

/// The core of [`check_file`] over any seekable input (a file, or bytes in a `Cursor`); an error
/// only when the input cannot be read at all. Seeking is needed to resynchronise after damage.
pub fn check_reader<F: Read + Seek>(input: F) -> io::Result<Vec<Defect>> {
    let counting = Counting {
        inner: BufReader::with_capacity(256 * 1024, input),
        pos: 0,
    };
    let mut src = Source::new(counting)?;
    let mut ck = Checker {
        defects: Vec::new(),
        rules: FieldRules::default(),
    };
    if let Source::Plain(_) = src {
        ck.check_plain(&mut src);
    } else {
        ck.check_gzip(src)?;
    }
    if ck.rules_empty() && ck.defects.is_empty() {
        ck.defect(0, "file holds no records".into());
    }
    Ok(ck.defects)
}

impl Checker {
    fn defect(&mut self, offset: u64, message: String) {
        self.defects.push(Defect { offset, message });
    }

    fn rules_empty(&self) -> bool {
        self.rules.is_empty()
    }

    fn check_plain<F: Read + Seek>(&mut self, src: &mut Src<F>) {
        loop {
            let offset = src.record_base().unwrap_or(0);
            let head = match read_head(src) {
                Ok(Some(h)) => h,
                Ok(None) => return,
                Err(HeadError::Io(e)) => return self.defect(offset, format!("read error: {e}")),
                Err(HeadError::Malformed(m)) => {
                    return self.defect(offset, format!("{m}; rest of file not checked"))
                }
            };
            match self.check_record(src, offset, &head, false) {
                Ok(After::Next) => {}
                Ok(After::End) => return,
                Ok(After::Lost) => {
                    if let Some(last) = self.defects.last_mut() {
                        last.message.push_str("; rest of file not checked");
                    }
                    return;
                }
                Err(e) => return self.defect(offset, format!("read error: {e}")),
            }
        }
    }

    fn check_gzip<F: Read + Seek>(&mut self, mut src: Src<F>) -> io::Result<()> {
        loop {
            let start = src.outer_pos().unwrap_or(0);
            match src.begin_member() {
                Ok(false) => return Ok(()),
                Ok(true) => {}
                Err(m) => {
                    self.defect(start, m);
                    src = self.resync(src, start)?;
                    continue;
                }
            }
            if let Err(e) = self.check_member(&mut src, start) {
                let message = if e.kind() == io::ErrorKind::UnexpectedEof {
                    format!("truncated gzip member (data ends inside it): {e}")
                } else {
                    format!("bad gzip member: {e}")
                };
                self.defect(start, message);
                src = self.resync(src, start)?;
                continue;
            }
            src.end_member();
        }
    }

    /// Checks the records of one member; `Err` means the gzip data itself is damaged.
    fn check_member<F: Read + Seek>(&mut self, src: &mut Src<F>, start: u64) -> io::Result<()> {
        let mut records = 0u32;
        loop {
            let head = match read_head(src) {
                Ok(Some(h)) => h,
                Ok(None) => {
                    if records == 0 {
                        self.defect(start, "empty gzip member".into());
                    }
                    return Ok(());
                }
                Err(HeadError::Io(e)) => return Err(e),
                Err(HeadError::Malformed(m)) => {
                    self.defect(start, m);
                    skip(src, u64::MAX)?;
                    return Ok(());
                }
            };
            records += 1;
            if records == 2 {
                self.defect(
                    start,
                    "gzip member holds more than one record (write one member per record)".into(),
                );
            }
            match self.check_record(src, start, &head, true)? {
                After::Next => {}
                After::End | After::Lost => return Ok(()),
            }
        }
    }

    /// Checks one record's fields, framing and digests; the block is streamed once.
    fn check_record<F: Read + Seek>(
        &mut self,
        src: &mut Src<F>,
        offset: u64,
        head: &RawHead,
        gzip: bool,
    ) -> io::Result<After> {
        let mut messages = Vec::new();
        self.rules.check(head, offset, &mut messages);
        for m in messages {
            self.defect(offset, m);
        }
        let f = &head.fields;
        let declared = match field(f, "Content-Length").map(|v| v.parse::<u64>()) {
            Some(Ok(n)) => n,
            other => {
                let why = if other.is_none() {
                    "missing Content-Length"
                } else {
                    "Content-Length is not a number"
                };
                self.defect(offset, format!("{why}; cannot frame the block"));
                if gzip {
                    skip(src, u64::MAX)?;
                }
                return Ok(After::Lost);
            }
        };

        let kind = field(f, "WARC-Type").unwrap_or("");
        let block_want = wanted_digest(
            self,
            offset,
            field(f, "WARC-Block-Digest"),
            "WARC-Block-Digest",
        );
        let payload_want = if kind.eq_ignore_ascii_case("response") {
            wanted_digest(
                self,
                offset,
                field(f, "WARC-Payload-Digest"),
                "WARC-Payload-Digest",
            )
        } else {
            None
        };
        // Without a Content-Type, an http(s) capture is still taken to hold an HTTP message.
        let http = match field(f, "Content-Type") {
            Some(c) => c
                .trim_start()
                .to_ascii_lowercase()
                .starts_with("application/http"),
            None => field(f, "WARC-Target-URI").is_some_and(|u| u.starts_with("http")),
        };
        let mut block_sha = block_want.map(|_| Sha1Digester::new());
        let mut payload = payload_want.filter(|_| http).map(|_| PayloadDigest::new());
        let mut plain_payload_sha = payload_want.filter(|_| !http).map(|_| Sha1Digester::new());

        let mut left = declared;
        while left > 0 {
            let buf = src.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let k = (buf.len() as u64).min(left) as usize;
            let chunk = &buf[..k];
            if let Some(d) = block_sha.as_mut() {
                d.update(chunk);
            }
            if let Some(p) = payload.as_mut() {
                p.update(chunk);
            }
            if let Some(d) = plain_payload_sha.as_mut() {
                d.update(chunk);
            }
            src.consume(k);
            left -= k as u64;
        }
        if left > 0 {
            let where_ = if gzip { "the gzip member" } else { "the file" };
            self.defect(
                offset,
                format!(
                    "Content-Length is {declared} but {where_} ends after {} block bytes",
                    declared - left
                ),
            );
            return Ok(After::End);
        }

        let mut end = [0u8; 4];
        let got = read_full(src, &mut end)?;
        if got < 4 || &end != b"\r\n\r\n" {
            if !gzip {
                self.defect(
                    offset,
                    "block not followed by CRLF CRLF (or wrong Content-Length)".into(),
                );
                return Ok(After::Lost);
            }
            let (extra, tail) = drain_with_tail(src, &end[..got])?;
            if tail == *b"\r\n\r\n" && extra >= 4 {
                self.defect(offset, format!(
                    "Content-Length is {declared} but the block is {} bytes (up to the closing CRLF CRLF)",
                    declared + extra - 4
                ));
            } else {
                self.defect(offset, "block not followed by CRLF CRLF".into());
            }
            return Ok(After::Lost);
        }

        if let (Some(want), Some(d)) = (block_want, block_sha) {
            let got = d.finish_raw();
            if got != want {
                self.defect(
                    offset,
                    format!(
                        "WARC-Block-Digest mismatch: field says {}, block hashes to {}",
                        format_sha1(&want),
                        format_sha1(&got)
                    ),
                );
            }
        }
        if let Some(want) = payload_want {
            let (ok, got) = match (payload, plain_payload_sha) {
                (Some(p), _) => {
                    let d = p.finish();
                    (
                        d.raw == want || d.dechunked == Some(want),
                        d.dechunked.unwrap_or(d.raw),
                    )
                }
                (None, Some(d)) => {
                    let raw = d.finish_raw();
                    (raw == want, raw)
                }
                (None, None) => (true, want),
            };
            if !ok {
                self.defect(
                    offset,
                    format!(
                        "WARC-Payload-Digest mismatch: field says {}, payload hashes to {}",
                        format_sha1(&want),
                        format_sha1(&got)
                    ),
                );
            }
        }

        let next = src.fill_buf()?;
        if next.is_empty() {
            return Ok(After::End);
        }
        if next.starts_with(b"WARC/") || (next.len() < 5 && b"WARC/".starts_with(next)) {
            return Ok(After::Next);
        }
        self.defect(
            offset,
            "unexpected bytes after the record's CRLF CRLF (Content-Length too small?)".into(),
        );
        if gzip {
            skip(src, u64::MAX)?;
        }
        Ok(After::Lost)
    }

    /// After damage at `start`, finds the next offset where an intact member holding a WARC
    /// record begins, and notes the skipped range in the last defect.
    fn resync<F: Read + Seek>(&mut self, src: Src<F>, start: u64) -> io::Result<Src<F>> {
        let Some(counting) = src.into_counting() else {
            return Err(io::Error::other("reader lost after damage"));
        };
        let mut file = counting.inner.into_inner();
        let found = find_next_member(&mut file, start + 1)?;
        let note = match found {
            Some(at) => format!("; skipped to the next intact member at offset {at}"),
            None => "; no intact member follows".into(),
        };
        if let Some(last) = self.defects.last_mut() {
            last.message.push_str(&note);
        }
        let at = match found {
            Some(at) => at,
            None => file.seek(SeekFrom::End(0))?,
        };
        file.seek(SeekFrom::Start(at))?;
        Ok(Source::Between(Counting {
            inner: BufReader::with_capacity(256 * 1024, file),
            pos: at,
        }))
    }
}

/// The raw SHA-1 a digest field asks for; reports malformed values, ignores other algorithms.
fn wanted_digest(
    ck: &mut Checker,
    offset: u64,
    value: Option<&str>,
    name: &str,
) -> Option<[u8; 20]> {
    match parse_digest(value?) {
        ParsedDigest::Sha1(raw) => Some(raw),
        ParsedDigest::Other(_) => None,
        ParsedDigest::Malformed => {
            ck.defect(
                offset,
                format!("malformed {name} {:?}", value.unwrap_or("")),
            );
            None
        }
    }
}

/// Reads a member to its end; returns the number of bytes after the block (including `first`)
/// and the last four of them.
fn drain_with_tail<F: Read + Seek>(src: &mut Src<F>, first: &[u8]) -> io::Result<(u64, [u8; 4])> {
    let mut tail: Vec<u8> = first.to_vec();
    let mut total = first.len() as u64;
    loop {
        let buf = src.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let n = buf.len();
        let keep = n.min(4);
        tail.extend_from_slice(&buf[n - keep..]);
        if tail.len() > 4 {
            tail.drain(..tail.len() - 4);
        }
        total += n as u64;
        src.consume(n);
    }
    let mut last = [0u8; 4];
    if tail.len() == 4 {
        last.copy_from_slice(&tail);
    }
    Ok((total, last))
}

/// Scans from `from` for a gzip header whose content starts with `WARC/`.
fn find_next_member(file: &mut (impl Read + Seek), from: u64) -> io::Result<Option<u64>> {
    let mut pos = from;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        file.seek(SeekFrom::Start(pos))?;
        let n = read_full(file, &mut buf)?;
        if n < 3 {
            return Ok(None);
        }
        let mut i = 0;
        while i + 3 <= n {
            if buf[i] == 0x1f && buf[i + 1] == 0x8b && buf[i + 2] == 0x08 {
                let at = pos + i as u64;
                if starts_warc_member(file, at)? {
                    return Ok(Some(at));
                }
            }
            i += 1;
        }
        pos += (n - 2) as u64;
    }
}

/// Whether a gzip member at `at` decodes to something starting with `WARC/`.
fn starts_warc_member(file: &mut (impl Read + Seek), at: u64) -> io::Result<bool> {
    file.seek(SeekFrom::Start(at))?;
    let mut dec = flate2::read::GzDecoder::new(BufReader::with_capacity(8 * 1024, &mut *file));
    let mut five = [0u8; 5];
    Ok(matches!(read_full(&mut dec, &mut five), Ok(5)) && &five == b"WARC/")
}
