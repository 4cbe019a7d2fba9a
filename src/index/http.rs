//! Parsing the HTTP head stored at the start of a response or revisit block, leniently (as
//! servers send it, folded lines and odd spacing included), for rebuilding documents and replay.

/// Header lines read from a stored head; more are ignored.
const MAX_HEADERS: usize = 256;

/// A stored HTTP response head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHead {
    /// Status code.
    pub status: u16,
    /// Headers in stored order, names as stored, values decoded lossily, folds joined.
    pub headers: Vec<(String, String)>,
    /// Bytes of the status line and headers, blank line included.
    pub len: usize,
}

impl HttpHead {
    /// The first value of a header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Parses the HTTP response head at the start of `block`; `None` when the block does not start
/// with a complete, parseable head (a truncated or non-HTTP record).
pub fn parse_http_head(block: &[u8]) -> Option<HttpHead> {
    let mut slots = vec![httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut slots);
    let parsed = httparse::ParserConfig::default()
        .allow_obsolete_multiline_headers_in_responses(true)
        .allow_spaces_after_header_name_in_responses(true)
        .allow_multiple_spaces_in_response_status_delimiters(true)
        .ignore_invalid_headers_in_responses(true)
        .parse_response(&mut resp, block);
    let len = match parsed {
        Ok(httparse::Status::Complete(len)) => len,
        _ => return None,
    };
    let status = resp.code?;
    let headers = resp
        .headers
        .iter()
        .map(|h| (h.name.to_string(), header_value(h.value)))
        .collect();
    Some(HttpHead {
        status,
        headers,
        len,
    })
}

/// Lossy UTF-8 with obsolete line folding replaced by one space.
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
        let h = parse_http_head(raw).expect("parses");
        assert_eq!(h.status, 200);
        assert_eq!(h.header("content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(&raw[h.len..], b"body");
    }

    #[test]
    fn incomplete_or_foreign_heads_are_none() {
        assert!(parse_http_head(b"HTTP/1.1 200 OK\r\nA: b\r\n").is_none());
        assert!(parse_http_head(b"GET / HTTP/1.0\r\n\r\n").is_none());
        assert!(parse_http_head(b"").is_none());
    }
}
