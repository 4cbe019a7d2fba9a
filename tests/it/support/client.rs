//! A minimal blocking HTTP/1.0 client over `std::net::TcpStream`, for tests that check the
//! exact bytes a fixture sends (no crawler code involved).

use super::FixtureWeb;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A response read until the server closed the connection.
#[derive(Debug, Clone)]
pub struct Response {
    /// Everything received.
    pub raw: Vec<u8>,
    /// The status code from the status line.
    pub status: u16,
    /// The head as text, without the blank line.
    pub head: String,
    /// The bytes after the head, exactly as sent (still chunked or compressed).
    pub body: Vec<u8>,
}

impl Response {
    /// The value of the first header called `name` (case-insensitive), trimmed.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.split("\r\n").skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    /// The body decoded as UTF-8, lossily.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Connects to `addr`, sends `request`, and reads until the server closes (10 s timeout).
pub fn send(addr: SocketAddr, request: &[u8]) -> io::Result<Vec<u8>> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.write_all(request)?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)?;
    Ok(out)
}

/// The request head the crawler sends: HTTP/1.0 with `Connection: close`.
pub fn request(method: &str, web: &FixtureWeb, host: usize, target: &str) -> Vec<u8> {
    format!("{method} {target} HTTP/1.0\r\nHost: {}\r\nUser-Agent: fixture-client\r\nConnection: close\r\n\r\n", web.addr(host))
        .into_bytes()
}

/// GETs `target` from `host` and parses the response; panics on I/O errors or a response
/// without a complete head.
pub fn get(web: &FixtureWeb, host: usize, target: &str) -> Response {
    let raw = send(web.addr(host), &request("GET", web, host, target))
        .unwrap_or_else(|e| panic!("GET {target} on host {host}: {e}"));
    parse(raw)
}

/// Splits a complete response into status, head and body; panics if it has no head.
pub fn parse(raw: Vec<u8>) -> Response {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status code");
    let body = raw[end + 4..].to_vec();
    Response {
        raw,
        status,
        head,
        body,
    }
}

/// Decodes a chunked body into (data, trailers); panics on bad framing.
pub fn dechunk(mut body: &[u8]) -> (Vec<u8>, Vec<(String, String)>) {
    let mut data = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size line");
        let size_text = std::str::from_utf8(&body[..line_end]).expect("ascii chunk size");
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .expect("hex size");
        body = &body[line_end + 2..];
        if size == 0 {
            break;
        }
        data.extend_from_slice(&body[..size]);
        assert_eq!(
            &body[size..size + 2],
            b"\r\n",
            "chunk data must end with CRLF"
        );
        body = &body[size + 2..];
    }
    let mut trailers = Vec::new();
    let text = std::str::from_utf8(body).expect("ascii trailers");
    let mut lines = text.split("\r\n");
    for line in lines.by_ref() {
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':').expect("trailer field");
        trailers.push((k.to_string(), v.trim().to_string()));
    }
    assert_eq!(
        lines.collect::<Vec<_>>(),
        vec![""],
        "bytes after the chunked body"
    );
    (data, trailers)
}
