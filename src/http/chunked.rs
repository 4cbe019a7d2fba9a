//! Streaming removal of chunked transfer framing, for payload digests and for decoding bodies.

use std::io::{self, Read};

/// Longest size line (digits plus extensions) accepted before the framing is declared broken.
const MAX_SIZE_LINE: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading hex digits of a chunk size.
    Size,
    /// After the digits: extensions or whitespace up to the end of the line.
    SizeRest,
    /// Inside chunk data, this many bytes left.
    Data(u64),
    /// After chunk data: expecting CR LF (bare LF tolerated).
    DataEnd,
    /// Saw CR after chunk data, expecting LF.
    DataEndCr,
    /// Trailer section; the count is the length of the current line so far (CR not counted).
    Trailer(usize),
    /// Last chunk and trailers seen: the message is over.
    Done,
    /// The framing did not parse; everything from the broken line on is passed through as is.
    Raw,
}

/// De-chunks a byte stream fed in arbitrary pieces.
///
/// Servers that send chunked bodies to HTTP/1.0 clients are not always careful, so parsing is
/// lenient (bare LF, extensions, whitespace after the size). When the framing cannot be parsed at
/// all, the data from the broken size line onward is treated as unframed, which is what warcio
/// does when it computes payload digests, so both tools agree on such records.
#[derive(Debug)]
pub(crate) struct Dechunker {
    state: State,
    size: u64,
    digits: usize,
    /// Bytes of the current size line, replayed as data if the line turns out broken.
    line: Vec<u8>,
}

impl Dechunker {
    pub(crate) fn new() -> Dechunker {
        Dechunker {
            state: State::Size,
            size: 0,
            digits: 0,
            line: Vec::new(),
        }
    }

    /// Whether the last chunk and the trailers have been read.
    pub(crate) fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Whether the framing broke and the rest is taken as unframed data (read until close).
    pub(crate) fn is_raw(&self) -> bool {
        self.state == State::Raw
    }

    /// Consumes `input`, passing entity bytes to `out`. Returns how many input bytes belong to
    /// the message: fewer than `input.len()` only when the message ended inside `input`.
    pub(crate) fn feed<F: FnMut(&[u8])>(&mut self, input: &[u8], mut out: F) -> usize {
        let mut i = 0;
        while i < input.len() {
            match self.state {
                State::Done => return i,
                State::Raw => {
                    out(&input[i..]);
                    return input.len();
                }
                State::Data(left) => {
                    let take = left.min((input.len() - i) as u64) as usize;
                    out(&input[i..i + take]);
                    i += take;
                    self.state = match left - take as u64 {
                        0 => State::DataEnd,
                        rest => State::Data(rest),
                    };
                    continue;
                }
                _ => {}
            }
            let b = input[i];
            i += 1;
            match self.state {
                State::Size | State::SizeRest => {
                    self.line.push(b);
                    if !self.size_line_byte(b) {
                        self.state = State::Raw;
                        out(&self.line);
                        self.line.clear();
                    }
                }
                State::DataEnd => match b {
                    b'\r' => self.state = State::DataEndCr,
                    b'\n' => self.state = State::Size,
                    _ => {
                        // Missing CRLF after the data: read this byte as the next size line.
                        self.state = State::Size;
                        i -= 1;
                    }
                },
                State::DataEndCr => {
                    self.state = State::Size;
                    if b != b'\n' {
                        i -= 1;
                    }
                }
                State::Trailer(len) => {
                    self.state = match b {
                        b'\n' if len == 0 => State::Done,
                        b'\n' => State::Trailer(0),
                        b'\r' => State::Trailer(len),
                        _ => State::Trailer(len + 1),
                    }
                }
                State::Data(_) | State::Done | State::Raw => {}
            }
        }
        i
    }

    /// Handles one byte of a size line; false when the line is malformed.
    fn size_line_byte(&mut self, b: u8) -> bool {
        if self.line.len() > MAX_SIZE_LINE {
            return false;
        }
        if b == b'\n' {
            if self.digits == 0 {
                // Tolerate stray blank lines between chunks.
                if self.line.iter().all(|c| c.is_ascii_whitespace()) {
                    self.line.clear();
                    self.state = State::Size;
                    return true;
                }
                return false;
            }
            self.state = match self.size {
                0 => State::Trailer(0),
                n => State::Data(n),
            };
            self.size = 0;
            self.digits = 0;
            self.line.clear();
            return true;
        }
        if self.state == State::Size {
            if let Some(d) = (b as char).to_digit(16) {
                if self.digits >= 16 {
                    return false; // would overflow u64
                }
                self.size = self.size << 4 | u64::from(d);
                self.digits += 1;
                return true;
            }
            if self.digits == 0 && (b == b' ' || b == b'\t' || b == b'\r') {
                return true; // leading whitespace or a blank line in progress
            }
            if self.digits == 0 {
                return false;
            }
            if matches!(b, b';' | b' ' | b'\t' | b'\r') {
                self.state = State::SizeRest;
                return true;
            }
            return false;
        }
        true // extensions: anything up to LF
    }
}

/// A reader that yields the de-chunked entity of a chunked body.
pub(crate) struct DechunkReader<R> {
    inner: R,
    dechunker: Dechunker,
    inbuf: Box<[u8]>,
    out: Vec<u8>,
    pos: usize,
}

impl<R: Read> DechunkReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        DechunkReader {
            inner,
            dechunker: Dechunker::new(),
            inbuf: vec![0u8; 16 * 1024].into_boxed_slice(),
            out: Vec::new(),
            pos: 0,
        }
    }
}

impl<R: Read> Read for DechunkReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.out.len() {
            if self.dechunker.is_done() {
                return Ok(0);
            }
            let n = self.inner.read(&mut self.inbuf)?;
            if n == 0 {
                return Ok(0);
            }
            self.out.clear();
            self.pos = 0;
            let out = &mut self.out;
            self.dechunker
                .feed(&self.inbuf[..n], |d| out.extend_from_slice(d));
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// De-chunks `input` fed in pieces of `step` bytes.
    fn run(input: &[u8], step: usize) -> (Vec<u8>, usize, Dechunker) {
        let mut d = Dechunker::new();
        let mut out = Vec::new();
        let mut used = 0;
        for piece in input.chunks(step) {
            used += d.feed(piece, |b| out.extend_from_slice(b));
        }
        (out, used, d)
    }

    #[test]
    fn strict_framing_with_trailers_any_split() {
        let msg = b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: yes\r\n\r\n";
        for step in 1..msg.len() {
            let mut input = msg.to_vec();
            input.extend_from_slice(b"GARBAGE AFTER");
            let (out, used, d) = run(&input, step);
            assert_eq!(out, b"hello, world", "step {step}");
            assert!(d.is_done());
            assert_eq!(used, msg.len(), "step {step}");
        }
    }

    #[test]
    fn lenient_bare_lf_and_hex_case() {
        let (out, _, d) = run(
            b"A\nabcdefghij\n1a \r\nabcdefghijklmnopqrstuvwxyz\n0\n\n",
            3,
        );
        assert_eq!(out, b"abcdefghijabcdefghijklmnopqrstuvwxyz");
        assert!(d.is_done());
    }

    #[test]
    fn broken_framing_passes_rest_through() {
        let (out, _, d) = run(b"<html>not chunked</html>", 4);
        assert_eq!(out, b"<html>not chunked</html>");
        assert!(d.is_raw());
        let (out, _, d) = run(b"3\r\nabc\r\nzz\r\nrest", 2);
        assert_eq!(out, b"abczz\r\nrest");
        assert!(d.is_raw());
    }

    #[test]
    fn truncated_stream_is_not_done() {
        let (out, _, d) = run(b"10\r\nonly-part", 5);
        assert_eq!(out, b"only-part");
        assert!(!d.is_done() && !d.is_raw());
    }

    #[test]
    fn reader_adapter() {
        let src: &[u8] = b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\nignored";
        let mut out = Vec::new();
        DechunkReader::new(src).read_to_end(&mut out).expect("read");
        assert_eq!(out, b"abcde");
    }
}
