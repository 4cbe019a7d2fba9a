//! One request/response exchange over an open stream: write the request, record the response
//! bytes exactly, parse the head, find the end of the body, and digest everything on the way.

use super::spool::Spool;
use super::FetchError;
use crate::http::chunked::Dechunker;
use crate::http::head::{is_chunked, HttpHead};
use crate::model::Truncation;
use sha1::{Digest, Sha1};
use std::io;
use std::path::Path;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::{timeout_at, Instant};

/// Largest response head accepted (status line, headers, blank line).
pub(crate) const MAX_HEAD: usize = 64 * 1024;
/// Socket read size.
const READ_BUF: usize = 16 * 1024;

/// The limits and context of one exchange.
pub(crate) struct Limits<'a> {
    pub url: &'a str,
    /// End of the whole exchange (`total_timeout` after connect started).
    pub deadline: Instant,
    pub first_byte: std::time::Duration,
    pub max_body: u64,
    pub spool_mem: usize,
    pub spool_dir: &'a Path,
}

/// What was recorded; the caller adds URL, address and timing.
pub(crate) struct Recorded {
    pub started: chrono::DateTime<chrono::Utc>,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub header_len: u64,
    pub truncated: Option<Truncation>,
    pub block_digest: String,
    pub payload_digest: String,
    pub spool: Spool,
    /// The connection may carry another exchange: the server said `Connection: keep-alive`,
    /// and the message ended on its declared length with nothing after it.
    pub reusable: bool,
}

/// How the end of the body is found.
enum Framing {
    /// `Content-Length` bytes.
    Length(u64),
    /// Chunked transfer coding: the de-chunker sees the last chunk.
    Chunked(Dechunker),
    /// Until the server closes the connection.
    Close,
    /// No body (204, 304).
    Empty,
}

/// The moment `wait` after `t`. Timeouts come from the spec, whose ranges keep them under a day;
/// one too long for an `Instant` (whose `+` panics) is cut to a day.
pub(crate) fn deadline_after(t: Instant, wait: std::time::Duration) -> Instant {
    const DAY: std::time::Duration = std::time::Duration::from_secs(86_400);
    t.checked_add(wait)
        .or_else(|| t.checked_add(DAY))
        .unwrap_or(t)
}

/// Writes `request`, then reads and records the response until its end, a cap, or a deadline.
pub(crate) async fn exchange<S>(
    stream: &mut S,
    request: &[u8],
    lim: &Limits<'_>,
) -> Result<Recorded, FetchError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let url = lim.url;
    let io_err = |source: io::Error| FetchError::io(url, source);
    let timeout = |phase| FetchError::Timeout {
        url: url.to_string(),
        phase,
    };
    let bad = |reason: String| FetchError::BadResponse {
        url: url.to_string(),
        reason,
    };

    let started = chrono::Utc::now();
    let first_byte_by = deadline_after(Instant::now(), lim.first_byte).min(lim.deadline);
    let send = async {
        stream.write_all(request).await?;
        stream.flush().await
    };
    match timeout_at(first_byte_by, send).await {
        Err(_) => return Err(timeout("first-byte")),
        Ok(Err(e)) => return Err(io_err(e)),
        Ok(Ok(())) => {}
    }

    // The head: read until httparse sees the blank line.
    let mut buf = vec![0u8; READ_BUF];
    let mut head = Vec::with_capacity(4096);
    let parsed = loop {
        let by = if head.is_empty() {
            first_byte_by
        } else {
            lim.deadline
        };
        let n = match timeout_at(by, stream.read(&mut buf)).await {
            Err(_) if head.is_empty() => return Err(timeout("first-byte")),
            Err(_) => return Err(timeout("head")),
            Ok(Ok(n)) => n,
            Ok(Err(e)) if e.kind() == io::ErrorKind::UnexpectedEof => 0,
            Ok(Err(e)) => return Err(io_err(e)),
        };
        if n == 0 {
            // A lost connection, not a malformed answer: overloaded servers and proxies do
            // this, and asking again later often works, so it is a (retryable) I/O error.
            let what = if head.is_empty() {
                "empty response: the connection closed before any byte arrived".into()
            } else {
                format!(
                    "connection closed inside the head after {} bytes",
                    head.len()
                )
            };
            return Err(io_err(io::Error::new(io::ErrorKind::UnexpectedEof, what)));
        }
        head.extend_from_slice(&buf[..n]);
        // A head can only complete with a newline; skip parsing otherwise (slow drips).
        if buf[..n].contains(&b'\n') || head.len() > MAX_HEAD {
            if let Some(h) = HttpHead::parse(&head).map_err(|e| bad(e.to_string()))? {
                if h.len <= MAX_HEAD {
                    break h;
                }
            }
        }
        if head.len() > MAX_HEAD {
            return Err(bad(format!("head larger than {MAX_HEAD} bytes")));
        }
    };

    let mut rec = Recorder {
        spool: Spool::new(),
        block: Sha1::new(),
        payload: Sha1::new(),
        framing: framing(parsed.status, &parsed.headers),
        body_read: 0,
        overrun: false,
        max_body: lim.max_body,
        spool_mem: lim.spool_mem,
        spool_dir: lim.spool_dir,
    };
    if let Framing::Length(n) = rec.framing {
        rec.spool
            .reserve(parsed.len as u64 + n.min(lim.max_body), lim.spool_mem);
    }
    rec.record(&head[..parsed.len]).map_err(io_err)?;
    let mut flow = rec.body(&head[parsed.len..]).map_err(io_err)?;
    drop(head);
    while flow == Flow::More {
        flow = match timeout_at(lim.deadline, stream.read(&mut buf)).await {
            Err(_) => Flow::Cut(Truncation::Time),
            Ok(Ok(0)) => rec.at_close(),
            Ok(Err(e)) if e.kind() == io::ErrorKind::UnexpectedEof => rec.at_close(),
            // A reset (or any failure) after a complete head: keep what arrived.
            Ok(Err(_)) => Flow::Cut(Truncation::Disconnect),
            Ok(Ok(n)) => rec.body(&buf[..n]).map_err(io_err)?,
        };
    }
    let reusable = flow == Flow::Complete
        && !rec.overrun
        && matches!(rec.framing, Framing::Length(_) | Framing::Empty)
        && keeps_alive(&parsed.headers);
    Ok(Recorded {
        reusable,
        started,
        status: parsed.status,
        headers: parsed.headers,
        header_len: parsed.len as u64,
        truncated: match flow {
            Flow::Cut(t) => Some(t),
            _ => None,
        },
        block_digest: sha1_label(rec.block),
        payload_digest: sha1_label(rec.payload),
        spool: rec.spool,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    More,
    Complete,
    Cut(Truncation),
}

/// Accumulates the response: spool, block digest, payload digest, body accounting.
struct Recorder<'a> {
    spool: Spool,
    block: Sha1,
    payload: Sha1,
    framing: Framing,
    body_read: u64,
    /// Bytes came after the end of the message (they are not recorded).
    overrun: bool,
    max_body: u64,
    spool_mem: usize,
    spool_dir: &'a Path,
}

impl Recorder<'_> {
    fn record(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.block.update(bytes);
        self.spool.append(bytes, self.spool_mem, self.spool_dir)
    }

    /// Takes body bytes as they arrive; says whether the message is over.
    fn body(&mut self, data: &[u8]) -> io::Result<Flow> {
        let room = self.max_body.saturating_sub(self.body_read);
        let arrived = data.len();
        let data = &data[..data.len().min(usize::try_from(room).unwrap_or(usize::MAX))];
        let (take, complete) = match &mut self.framing {
            Framing::Empty => (0, true),
            Framing::Close => {
                self.payload.update(data);
                (data.len(), false)
            }
            Framing::Length(total) => {
                let left = *total - self.body_read;
                let take = data.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                self.payload.update(&data[..take]);
                (take, take as u64 == left)
            }
            Framing::Chunked(d) => {
                let payload = &mut self.payload;
                let take = d.feed(data, |b| payload.update(b));
                (take, d.is_done())
            }
        };
        self.overrun |= complete && take < arrived;
        self.record(&data[..take])?;
        self.body_read += take as u64;
        Ok(if complete {
            Flow::Complete
        } else if self.body_read >= self.max_body {
            Flow::Cut(Truncation::Length)
        } else {
            Flow::More
        })
    }

    /// The connection closed (or the TLS stream ended) while more body could have come.
    fn at_close(&self) -> Flow {
        match &self.framing {
            Framing::Length(_) => Flow::Cut(Truncation::Disconnect),
            Framing::Chunked(d) if !d.is_raw() => Flow::Cut(Truncation::Disconnect),
            _ => Flow::Complete,
        }
    }
}

/// Decides how the body ends: chunked wins over `Content-Length` (RFC 9112 6.3); conflicting or
/// invalid lengths mean reading until close.
fn framing(status: u16, headers: &[(String, String)]) -> Framing {
    if status == 204 || status == 304 {
        return Framing::Empty;
    }
    if is_chunked(headers) {
        return Framing::Chunked(Dechunker::new());
    }
    let mut length: Option<Option<u64>> = None;
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("content-length") {
            for part in value.split(',') {
                let n = part.trim().parse::<u64>().ok();
                length = match length {
                    None => Some(n),
                    Some(prev) if prev == n => Some(prev),
                    Some(_) => Some(None),
                };
            }
        }
    }
    match length {
        Some(Some(n)) => Framing::Length(n),
        _ => Framing::Close,
    }
}

/// Whether the server agreed to keep the connection open: an HTTP/1.0 exchange stays open only
/// when the response says `Connection: keep-alive` (and nothing says `close`).
fn keeps_alive(headers: &[(String, String)]) -> bool {
    let tokens = headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("connection"))
        .flat_map(|(_, v)| v.split(','))
        .map(str::trim);
    let (mut keep, mut close) = (false, false);
    for t in tokens {
        keep |= t.eq_ignore_ascii_case("keep-alive");
        close |= t.eq_ignore_ascii_case("close");
    }
    keep && !close
}

/// `sha1:` + base32, the digest form warcio, Heritrix and pywb use.
pub(crate) fn sha1_label(h: Sha1) -> String {
    format!("sha1:{}", data_encoding::BASE32.encode(&h.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_digest_matches_known_value() {
        assert_eq!(
            sha1_label(Sha1::new()),
            "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"
        );
    }

    #[test]
    fn framing_rules() {
        let h = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        let f = framing(200, &h(&[("Content-Length", "12")]));
        assert!(matches!(f, Framing::Length(12)));
        let f = framing(200, &h(&[("content-length", "5"), ("Content-Length", "5")]));
        assert!(matches!(f, Framing::Length(5)));
        let f = framing(200, &h(&[("content-length", "5"), ("Content-Length", "6")]));
        assert!(matches!(f, Framing::Close));
        let f = framing(200, &h(&[("Content-Length", "x1")]));
        assert!(matches!(f, Framing::Close));
        let f = framing(
            200,
            &h(&[
                ("Content-Length", "5"),
                ("Transfer-Encoding", "gzip, Chunked"),
            ]),
        );
        assert!(matches!(f, Framing::Chunked(_)));
        assert!(matches!(framing(304, &h(&[])), Framing::Empty));
        assert!(matches!(framing(200, &h(&[])), Framing::Close));
    }
}
