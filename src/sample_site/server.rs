//! The sample site's HTTP/1.x server: accept loop per host, request-head parsing, responses.
//!
//! Raw TCP rather than a framework, so the bytes on the wire are exactly what a plain origin
//! server would send. Responses carry Content-Length; HTTP/1.1 clients that do not ask for
//! `Connection: close` get keep-alive.

use super::content::{Resource, Site, STYLE_CSS};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// Largest request head accepted; longer heads get 431.
const MAX_HEAD: usize = 16 * 1024;
/// How long a connection may sit without sending a complete request head.
const IDLE_TIMEOUT: Duration = Duration::from_secs(15);

/// Accepts connections for one host until `stop` fires (or its sender is dropped), then
/// aborts the connections still open.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    host: usize,
    site: Arc<Site>,
    served: Arc<AtomicU64>,
    mut stop: watch::Receiver<bool>,
) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            changed = stop.changed() => {
                if changed.is_err() || *stop.borrow() {
                    break;
                }
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let (site, served) = (site.clone(), served.clone());
                    conns.spawn(async move {
                        // A client that goes away mid-response is its own business.
                        let _ = serve_connection(stream, host, &site, &served).await;
                    });
                }
                // Out of descriptors or similar: back off instead of spinning.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
    conns.shutdown().await;
}

/// Answers requests on one connection until the client or the response asks to close.
async fn serve_connection(
    mut stream: TcpStream,
    host: usize,
    site: &Site,
    served: &AtomicU64,
) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let mut buf = Vec::with_capacity(1024);
    let mut text = String::new();
    let mut out = Vec::new();
    loop {
        out.clear();
        let keep_alive = match read_head(&mut stream, &mut buf).await? {
            Head::Complete(len) => {
                let keep = respond(site, host, &buf[..len], &mut text, &mut out);
                buf.drain(..len);
                keep
            }
            Head::TooLarge => {
                write_response(
                    &mut out,
                    431,
                    "text/plain",
                    b"request head too large\n",
                    false,
                    false,
                );
                false
            }
            Head::Gone => return Ok(()),
        };
        stream.write_all(&out).await?;
        served.fetch_add(1, Ordering::Relaxed);
        if !keep_alive {
            return stream.shutdown().await;
        }
    }
}

/// How reading a request head ended.
enum Head {
    /// `buf` starts with a complete head of this many bytes.
    Complete(usize),
    /// The head exceeds [`MAX_HEAD`].
    TooLarge,
    /// The client closed or idled out before sending a complete head.
    Gone,
}

/// Reads until `buf` holds a complete request head.
async fn read_head(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<Head> {
    let mut searched = 0;
    loop {
        if let Some(pos) = buf[searched..].windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok(Head::Complete(searched + pos + 4));
        }
        if buf.len() > MAX_HEAD {
            return Ok(Head::TooLarge);
        }
        searched = buf.len().saturating_sub(3);
        let mut chunk = [0u8; 4096];
        let n = match tokio::time::timeout(IDLE_TIMEOUT, stream.read(&mut chunk)).await {
            Ok(read) => read?,
            Err(_) => return Ok(Head::Gone),
        };
        if n == 0 {
            return Ok(Head::Gone);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Writes the response to one request head into `out`; returns whether to keep the
/// connection open afterwards.
fn respond(site: &Site, host: usize, head: &[u8], text: &mut String, out: &mut Vec<u8>) -> bool {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    if !matches!(req.parse(head), Ok(httparse::Status::Complete(_))) {
        write_response(out, 400, "text/plain", b"bad request\n", false, false);
        return false;
    }
    let has_body = req.headers.iter().any(|h| {
        h.name.eq_ignore_ascii_case("transfer-encoding")
            || (h.name.eq_ignore_ascii_case("content-length") && h.value != b"0")
    });
    let wants_close = req.headers.iter().any(|h| {
        h.name.eq_ignore_ascii_case("connection")
            && h.value
                .split(|&b| b == b',')
                .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"close"))
    });
    // An unread request body would corrupt the next request, so such connections close.
    let keep = req.version == Some(1) && !wants_close && !has_body;
    let (method, target) = (req.method.unwrap_or(""), req.path.unwrap_or("/"));
    let head_only = method == "HEAD";
    if method != "GET" && !head_only {
        write_response(out, 405, "text/plain", b"only GET and HEAD\n", keep, false);
        return keep;
    }
    text.clear();
    let (status, ctype, body): (u16, &str, &[u8]) = match site.resolve(host, target) {
        Resource::Page(page) => {
            site.render_page(host, page, text);
            (200, "text/html; charset=utf-8", text.as_bytes())
        }
        Resource::Robots => {
            site.render_robots(host, text);
            (200, "text/plain; charset=utf-8", text.as_bytes())
        }
        Resource::Sitemap => {
            site.render_sitemap(host, text);
            (200, "application/xml", text.as_bytes())
        }
        Resource::Style => (200, "text/css", STYLE_CSS.as_bytes()),
        Resource::Image(n) => (200, "image/png", site.image(n)),
        Resource::NotFound => (
            404,
            "text/html; charset=utf-8",
            b"<!DOCTYPE html>\n<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>\n",
        ),
    };
    write_response(out, status, ctype, body, keep, head_only);
    keep
}

/// Appends a complete response (head, and body unless `head_only`) to `out`.
fn write_response(
    out: &mut Vec<u8>,
    status: u16,
    ctype: &str,
    body: &[u8],
    keep: bool,
    head_only: bool,
) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "Status",
    };
    out.reserve(256 + body.len());
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(status.to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(reason.as_bytes());
    out.extend_from_slice(b"\r\nServer: magpie-sample-site\r\nDate: ");
    out.extend_from_slice(httpdate::fmt_http_date(SystemTime::now()).as_bytes());
    out.extend_from_slice(b"\r\nContent-Type: ");
    out.extend_from_slice(ctype.as_bytes());
    out.extend_from_slice(b"\r\nContent-Length: ");
    out.extend_from_slice(body.len().to_string().as_bytes());
    if status == 405 {
        out.extend_from_slice(b"\r\nAllow: GET, HEAD");
    }
    out.extend_from_slice(if keep {
        b"\r\nConnection: keep-alive\r\n\r\n"
    } else {
        b"\r\nConnection: close\r\n\r\n"
    });
    if !head_only {
        out.extend_from_slice(body);
    }
}
