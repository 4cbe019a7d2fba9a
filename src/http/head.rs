//! The one HTTP response-head parser: the fetcher reads heads off the wire with it, and the
//! index, replay and export read the heads stored at the start of WARC blocks with it.
//!
//! Parsing is lenient the way servers are sloppy (folded headers, spaces before the colon,
//! doubled spaces in the status line, invalid lines skipped), so a head that was fetched is
//! always readable again from the archive.

/// Header lines read from one head; a head with more is refused.
pub const MAX_HEADERS: usize = 256;

/// A parsed HTTP response head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHead {
    /// Status code.
    pub status: u16,
    /// Headers in received order, names as received, values decoded lossily, folds joined.
    pub headers: Vec<(String, String)>,
    /// Bytes of the status line and headers, blank line included.
    pub len: usize,
}

/// Why bytes are not an HTTP response head.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeadError {
    /// More header lines than [`MAX_HEADERS`].
    #[error("more than {MAX_HEADERS} header lines")]
    TooManyHeaders,
    /// Not HTTP, or broken beyond leniency.
    #[error("unparseable head: {0}")]
    Invalid(httparse::Error),
    /// A status line without a code.
    #[error("no status code")]
    NoStatus,
}

impl HttpHead {
    /// Parses the head at the start of `buf`: `Ok(None)` while it is incomplete.
    pub fn parse(buf: &[u8]) -> Result<Option<HttpHead>, HeadError> {
        let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut resp = httparse::Response::new(&mut slots);
        let parsed = httparse::ParserConfig::default()
            .allow_obsolete_multiline_headers_in_responses(true)
            .allow_spaces_after_header_name_in_responses(true)
            .allow_multiple_spaces_in_response_status_delimiters(true)
            .ignore_invalid_headers_in_responses(true)
            .parse_response(&mut resp, buf);
        let len = match parsed {
            Ok(httparse::Status::Partial) => return Ok(None),
            Ok(httparse::Status::Complete(len)) => len,
            Err(httparse::Error::TooManyHeaders) => return Err(HeadError::TooManyHeaders),
            Err(e) => return Err(HeadError::Invalid(e)),
        };
        let status = resp.code.ok_or(HeadError::NoStatus)?;
        let headers = resp
            .headers
            .iter()
            .map(|h| (h.name.to_string(), header_value(h.value)))
            .collect();
        Ok(Some(HttpHead {
            status,
            headers,
            len,
        }))
    }

    /// The head a stored block starts with; `None` when the block does not start with a
    /// complete, parseable head (a truncated or non-HTTP record).
    pub fn parse_stored(block: &[u8]) -> Option<HttpHead> {
        HttpHead::parse(block).ok().flatten()
    }

    /// The first value of a header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Whether the final transfer coding is `chunked` (the last one listed, over all
/// `Transfer-Encoding` headers): chunked framing wins over `Content-Length` (RFC 9112 6.3).
pub fn is_chunked(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .rev()
        .filter(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding"))
        .flat_map(|(_, v)| v.rsplit(','))
        .map(str::trim)
        .find(|c| !c.is_empty())
        .is_some_and(|c| c.eq_ignore_ascii_case("chunked"))
}

/// Index just after the first blank line (CRLF CRLF, or LF LF from sloppy servers): where a
/// head that [`HttpHead::parse`] refuses ends, as lenient readers (warcio) take it.
pub(crate) fn blank_line_end(buf: &[u8]) -> Option<usize> {
    (0..buf.len()).find_map(|i| match (buf[i], buf.get(i + 1), buf.get(i + 2)) {
        (b'\n', Some(b'\n'), _) => Some(i + 2),
        (b'\n', Some(b'\r'), Some(b'\n')) => Some(i + 3),
        _ => None,
    })
}

/// A header value as text: lossy UTF-8, with obsolete line folding replaced by one space.
fn header_value(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    if !text.contains(['\r', '\n']) {
        return text.into_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut in_fold = false;
    for c in text.chars() {
        match c {
            '\r' | '\n' => in_fold = true,
            ' ' | '\t' if in_fold => {}
            _ => {
                if in_fold {
                    out.push(' ');
                    in_fold = false;
                }
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_folded_and_odd_heads() {
        let raw = b"HTTP/1.1  200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\nX-Odd : v\r\n\r\nbody";
        let h = HttpHead::parse_stored(raw).expect("parses");
        assert_eq!(h.status, 200);
        assert_eq!(h.header("content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(h.header("X-ODD"), Some("v"));
        assert_eq!(&raw[h.len..], b"body");
    }

    #[test]
    fn names_keep_their_case_and_invalid_lines_are_skipped() {
        let raw = b"HTTP/1.1 200 OK\r\nX-CaSe: a\r\nFolded: one\r\n  two\r\nbad line\r\n\r\n";
        let h = HttpHead::parse(raw).expect("parses").expect("complete");
        assert_eq!(h.len, raw.len());
        assert_eq!(
            h.headers,
            vec![
                ("X-CaSe".to_string(), "a".to_string()),
                ("Folded".to_string(), "one two".to_string())
            ]
        );
    }

    #[test]
    fn incomplete_heads_wait_and_foreign_ones_fail() {
        assert_eq!(HttpHead::parse(b"HTTP/1.1 200 OK\r\nA: b\r\n"), Ok(None));
        assert!(HttpHead::parse(b"SSH-2.0-OpenSSH_9.6\r\n").is_err());
        assert!(HttpHead::parse_stored(b"GET / HTTP/1.0\r\n\r\n").is_none());
        assert!(HttpHead::parse_stored(b"").is_none());
    }

    #[test]
    fn too_many_header_lines_are_refused() {
        let mut raw = b"HTTP/1.1 200 OK\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            raw.extend(format!("X-{i}: v\r\n").bytes());
        }
        raw.extend(b"\r\n");
        assert_eq!(HttpHead::parse(&raw), Err(HeadError::TooManyHeaders));
    }

    #[test]
    fn the_last_transfer_coding_decides_chunking() {
        let chunked = |te: &str| {
            let raw = format!("HTTP/1.1 200 OK\r\n{te}\r\n\r\n");
            is_chunked(
                &HttpHead::parse_stored(raw.as_bytes())
                    .expect("parses")
                    .headers,
            )
        };
        assert!(chunked("Transfer-Encoding: gzip, chunked"));
        assert!(!chunked("Transfer-Encoding: chunked, gzip"));
        assert!(chunked(
            "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked"
        ));
        assert!(!chunked("X-A: b"));
    }
}
