//! Streaming computation of an HTTP message's payload digest for the validator: finds the end
//! of the header block, then digests the body both as raw bytes and with chunked framing
//! removed (when `Transfer-Encoding: chunked`), without holding the body. The framing is removed
//! by the fetcher's own decoder ([`crate::http::chunked`]), so a sloppy chunked response the
//! fetcher digested is digested the same way here.

use crate::http::chunked::Dechunker;
use crate::http::head::{blank_line_end, is_chunked, HttpHead};
use sha1::{Digest, Sha1};

/// Largest HTTP header block looked for; beyond it the message is treated as all header.
const MAX_HTTP_HEAD: usize = 256 * 1024;

/// Digests of an HTTP message's payload, fed block bytes in order.
pub(crate) struct PayloadDigest {
    head: Vec<u8>,
    in_body: bool,
    raw: Sha1,
    dechunk: Option<(Dechunker, Sha1)>,
}

/// The result of [`PayloadDigest::finish`].
pub(crate) struct PayloadDigests {
    /// SHA-1 of all bytes after the header block.
    pub raw: [u8; 20],
    /// SHA-1 of the de-chunked body, when the message is chunked.
    pub dechunked: Option<[u8; 20]>,
}

impl PayloadDigest {
    pub fn new() -> PayloadDigest {
        PayloadDigest {
            head: Vec::with_capacity(1024),
            in_body: false,
            raw: Sha1::new(),
            dechunk: None,
        }
    }

    pub fn update(&mut self, mut data: &[u8]) {
        if !self.in_body {
            if self.head.len() >= MAX_HTTP_HEAD {
                return;
            }
            let take = data.len().min(MAX_HTTP_HEAD - self.head.len());
            self.head.extend_from_slice(&data[..take]);
            // The fetcher's parser says where a head ends; a head it cannot read (not one
            // magpie wrote) ends at its first blank line, as warcio reads it.
            let (end, chunked) = match HttpHead::parse(&self.head) {
                Ok(Some(h)) => (h.len, is_chunked(&h.headers)),
                Ok(None) => return,
                Err(_) => match blank_line_end(&self.head) {
                    Some(end) => (end, false),
                    None => return,
                },
            };
            // Bytes of `data` that belong to the body.
            let body_in_data = self.head.len() - end;
            data = &data[take - body_in_data..];
            self.head.truncate(end);
            self.in_body = true;
            if chunked {
                self.dechunk = Some((Dechunker::new(), Sha1::new()));
            }
        }
        self.raw.update(data);
        if let Some((d, sha)) = &mut self.dechunk {
            d.feed(data, |payload| sha.update(payload));
        }
    }

    pub fn finish(self) -> PayloadDigests {
        PayloadDigests {
            raw: self.raw.finalize().into(),
            dechunked: self.dechunk.map(|(_, sha)| sha.finalize().into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest_in_pieces(msg: &[u8], piece: usize) -> PayloadDigests {
        let mut p = PayloadDigest::new();
        for c in msg.chunks(piece) {
            p.update(c);
        }
        p.finish()
    }

    fn sha(b: &[u8]) -> [u8; 20] {
        Sha1::digest(b).into()
    }

    #[test]
    fn plain_body_any_split() {
        let msg = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        for piece in [1, 2, 3, 7, 100] {
            let d = digest_in_pieces(msg, piece);
            assert_eq!(d.raw, sha(b"hello"), "piece {piece}");
            assert!(d.dechunked.is_none());
        }
    }

    #[test]
    fn chunked_body_any_split() {
        let msg = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n";
        let raw_body = &msg[msg.windows(4).position(|w| w == b"\r\n\r\n").expect("end") + 4..];
        for piece in [1, 2, 5, 9, 1000] {
            let d = digest_in_pieces(msg, piece);
            assert_eq!(d.dechunked, Some(sha(b"hello world")), "piece {piece}");
            assert_eq!(d.raw, sha(raw_body));
        }
    }

    #[test]
    fn no_head_end_means_empty_payload() {
        let d = digest_in_pieces(b"HTTP/1.1 200 OK\r\nX: y\r\n", 4);
        assert_eq!(d.raw, sha(b""));
    }

    #[test]
    fn a_head_the_parser_refuses_ends_at_its_blank_line() {
        let msg = b"NOT-HTTP garbage\r\n\0\0 bad line\r\n\r\nbody";
        assert!(HttpHead::parse(msg).is_err());
        for piece in [1, 5, 100] {
            let d = digest_in_pieces(msg, piece);
            assert_eq!(d.raw, sha(b"body"), "piece {piece}");
            assert!(d.dechunked.is_none());
        }
    }

    #[test]
    fn broken_framing_is_read_as_the_fetcher_reads_it() {
        // From the broken size line on, the bytes are taken as unframed (warcio does the same),
        // exactly as the fetcher digested them when it wrote the record.
        let msg = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\nmore";
        let mut fetcher = Vec::new();
        Dechunker::new().feed(&msg[47..], |p| fetcher.extend_from_slice(p));
        assert_eq!(fetcher, b"abczz\r\nmore");
        for piece in [1, 3, 100] {
            assert_eq!(digest_in_pieces(msg, piece).dechunked, Some(sha(&fetcher)));
        }
    }
}
