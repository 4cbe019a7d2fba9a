//! What a fixture route answers, and how each kind of answer is put on the wire.

use std::io;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// One way of answering a request. Every reply ends with the connection closed.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200, `text/html; charset=utf-8`, with Content-Length.
    Html(String),
    /// Any status. `headers` are sent as given (name case kept), then `Content-Length`
    /// unless a Content-Length or Transfer-Encoding header is among them, then
    /// `Connection: close` unless a Connection header is among them.
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Exactly these bytes, then close.
    Raw(Vec<u8>),
    /// 200 with `Transfer-Encoding: chunked` (added unless among `headers`), Content-Type
    /// `text/html; charset=utf-8` unless given, and a `Trailer` header naming the trailers.
    /// Empty chunks are skipped, since a zero-size chunk would end the body.
    Chunked {
        headers: Vec<(String, String)>,
        chunks: Vec<Vec<u8>>,
        trailers: Vec<(String, String)>,
    },
    /// `head`, then `byte` every `every`, until the client goes away.
    SlowDrip {
        head: Vec<u8>,
        byte: u8,
        every: Duration,
    },
    /// `head`, then body bytes as fast as the client reads them, forever.
    Endless { head: Vec<u8> },
    /// Reads the request, then resets the connection (RST) without answering.
    Reset,
    /// Writes these bytes, then resets the connection.
    ResetAfter(Vec<u8>),
    /// Closes the connection (FIN) without writing anything.
    Empty,
    /// The nth request to the route gets the nth reply; the last one repeats.
    Sequence(Vec<Reply>),
    /// A generated HTML page as nginx in front of PHP sends it, whose length is not known in
    /// advance: to an HTTP/1.1 request it answers chunked (two chunks); to an HTTP/1.0
    /// request, which cannot take chunks, it sends no Content-Length and ends the body by
    /// closing the connection (`Connection: close`).
    Dynamic(Vec<u8>),
}

impl Reply {
    /// An HTML page (200).
    pub fn html(body: impl Into<String>) -> Reply {
        Reply::Html(body.into())
    }

    /// A 200 response with the given Content-Type.
    pub fn typed(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Status {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    /// A response with only a status line (and Content-Length: 0).
    pub fn status(status: u16) -> Reply {
        Reply::Status {
            status,
            headers: vec![],
            body: vec![],
        }
    }

    /// A redirect to `location` (absolute or relative, sent as given).
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::Status {
            status,
            headers: vec![("Location".into(), location.into())],
            body: vec![],
        }
    }

    /// The 404 page served for unrouted targets.
    pub fn not_found() -> Reply {
        let body = b"<!DOCTYPE html><html><head><title>Not found</title></head><body>Not found</body></html>\n";
        Reply::Status {
            status: 404,
            headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
            body: body.to_vec(),
        }
    }

    /// The reply for a route's `n`th request (0-based): the element of a sequence, or self.
    pub(crate) fn pick(&self, n: usize) -> &Reply {
        match self {
            Reply::Sequence(replies) => match replies.get(n.min(replies.len().saturating_sub(1))) {
                // A nested sequence is indexed by the same count.
                Some(r) => r.pick(n),
                None => self,
            },
            _ => self,
        }
    }
}

/// The reason phrase for common statuses (any text is valid; clients must not rely on it).
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        206 => "Partial Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn has(headers: &[(String, String)], name: &str) -> bool {
    headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name))
}

/// The response head for a Content-Length (or caller-framed) response.
fn status_head(status: u16, headers: &[(String, String)], body_len: usize) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !has(headers, "content-length") && !has(headers, "transfer-encoding") {
        head.push_str(&format!("Content-Length: {body_len}\r\n"));
    }
    if !has(headers, "connection") {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    head.into_bytes()
}

/// The head of a chunked response.
fn chunked_head(headers: &[(String, String)], trailers: &[(String, String)]) -> Vec<u8> {
    let mut all = headers.to_vec();
    if !has(headers, "content-type") {
        all.push(("Content-Type".into(), "text/html; charset=utf-8".into()));
    }
    if !has(headers, "transfer-encoding") {
        all.push(("Transfer-Encoding".into(), "chunked".into()));
    }
    if !trailers.is_empty() && !has(headers, "trailer") {
        let names: Vec<&str> = trailers.iter().map(|(k, _)| k.as_str()).collect();
        all.push(("Trailer".into(), names.join(", ")));
    }
    status_head(200, &all, 0)
}

/// Puts `reply` on the wire. `head_only` (a HEAD request) drops the body of Html and
/// Status replies; the others are sent as specified regardless. `http11` says whether the
/// request line asked for HTTP/1.1 (only [`Reply::Dynamic`] looks at it).
pub(crate) async fn serve(
    stream: &mut TcpStream,
    reply: &Reply,
    head_only: bool,
    http11: bool,
) -> io::Result<()> {
    match reply {
        Reply::Dynamic(body) if http11 => {
            let cut = body.len() / 2;
            let chunked = Reply::Chunked {
                headers: vec![],
                chunks: vec![body[..cut].to_vec(), body[cut..].to_vec()],
                trailers: vec![],
            };
            Box::pin(serve(stream, &chunked, head_only, http11)).await
        }
        Reply::Dynamic(body) => {
            let mut out =
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
                    .to_vec();
            out.extend_from_slice(body);
            stream.write_all(&out).await?;
            stream.shutdown().await
        }
        Reply::Html(body) => {
            let headers = [(
                "Content-Type".to_string(),
                "text/html; charset=utf-8".to_string(),
            )];
            let mut out = status_head(200, &headers, body.len());
            if !head_only {
                out.extend_from_slice(body.as_bytes());
            }
            stream.write_all(&out).await?;
            stream.shutdown().await
        }
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut out = status_head(*status, headers, body.len());
            if !head_only {
                out.extend_from_slice(body);
            }
            stream.write_all(&out).await?;
            stream.shutdown().await
        }
        Reply::Raw(bytes) => {
            stream.write_all(bytes).await?;
            stream.shutdown().await
        }
        Reply::Chunked {
            headers,
            chunks,
            trailers,
        } => {
            stream.write_all(&chunked_head(headers, trailers)).await?;
            for chunk in chunks.iter().filter(|c| !c.is_empty()) {
                let mut out = format!("{:x}\r\n", chunk.len()).into_bytes();
                out.extend_from_slice(chunk);
                out.extend_from_slice(b"\r\n");
                stream.write_all(&out).await?;
                stream.flush().await?;
            }
            let mut end = String::from("0\r\n");
            for (k, v) in trailers {
                end.push_str(&format!("{k}: {v}\r\n"));
            }
            end.push_str("\r\n");
            stream.write_all(end.as_bytes()).await?;
            stream.shutdown().await
        }
        Reply::SlowDrip { head, byte, every } => {
            stream.write_all(head).await?;
            loop {
                tokio::time::sleep(*every).await;
                stream.write_all(&[*byte]).await?;
            }
        }
        Reply::Endless { head } => {
            stream.write_all(head).await?;
            let block = b"<p>endless</p>\n".repeat(4096);
            loop {
                stream.write_all(&block).await?;
            }
        }
        Reply::Reset => stream.set_zero_linger(),
        Reply::ResetAfter(bytes) => {
            stream.write_all(bytes).await?;
            // Give loopback a moment to deliver the bytes: an abortive close discards
            // anything still unsent.
            tokio::time::sleep(Duration::from_millis(20)).await;
            stream.set_zero_linger()
        }
        // An empty sequence has nothing to say either.
        Reply::Empty | Reply::Sequence(_) => stream.shutdown().await,
    }
}
