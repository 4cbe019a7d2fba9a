//! The fetch stage: turns a URL into one recorded HTTP exchange, keeping the exact bytes on the wire.
//!
//! # Why HTTP/1.0, written by hand
//!
//! A WARC `response` record must hold the bytes the server sent, and a `request` record the bytes
//! the crawler sent. General-purpose clients (reqwest, hyper's high-level client) hand back a
//! reconstruction: lowercased header names, regrouped repeated headers, joined folded headers,
//! lost chunk framing and trailers, and request bytes that are never visible. So magpie writes the
//! request itself and reads the response off the socket, copying every byte into a [`Spool`]
//! before anything interprets it; the head is parsed with `httparse` from that same copy.
//!
//! magpie sends **HTTP/1.0 requests** (with `Host`), as Heritrix does:
//!
//! - a server may not answer an HTTP/1.0 request with `Transfer-Encoding: chunked`, so the
//!   recorded block is normally the plain entity. This matters because `warcio check` digests
//!   the raw block without de-chunking, while the WARC payload digest is defined over the
//!   de-chunked entity; with no chunking both agree and the records verify in the usual tools;
//! - the end of the body is the declared `Content-Length` or the close of the connection;
//! - the request asks `Connection: keep-alive` (HTTP/1.0's opt-in). A connection is kept
//!   (`pool`, for `keep_alive` seconds) only when the server answered `Connection: keep-alive`
//!   and the message ended exactly on its declared length with nothing left over (checked when
//!   the connection is parked and again when it is taken), so each exchange on it is still a
//!   plain, self-delimited HTTP/1.0 message. A server that declares a length too short and
//!   sends the rest late can still have that rest read as the start of the next answer, as
//!   with any HTTP/1.1 client; it then fails to parse, or is recorded as that answer. A kept
//!   connection the server closed meanwhile is replaced once, before the answer's head was
//!   complete. A server that says `keep-alive` but gives no usable length and keeps the
//!   connection open ends the body only at `total_timeout` (`Truncation::Time`). With
//!   `keep_alive` zero the request says `Connection: close`;
//! - `Accept-Encoding: gzip` is sent, and what the server sends is recorded as sent (never
//!   decompressed); [`entity_body`] decodes a copy for the parser.
//!
//! If a server sends `Transfer-Encoding: chunked` anyway, the raw framing is recorded and the
//! payload digest is computed over the de-chunked entity (as the WARC standard asks). Redirects
//! are never followed here: a 3xx is an exchange like any other, and the caller queues the target.
//!
//! For `https`, TLS runs through tokio-rustls (ring provider, webpki roots) and the recorded bytes
//! are the plaintext side of the TLS stream.
//!
//! # Addresses
//!
//! The fetcher resolves host names itself ([`Fetcher::resolve`], cached per host for
//! `dns_ttl`), so the address connected to is known (it becomes `WARC-IP-Address`) and can be
//! checked: unless `allow_private` is set, a resolved loopback, private, link-local or otherwise
//! non-public address is refused ([`is_private`]), which keeps a crawl from reaching into the
//! network it runs in, whatever a hostile DNS answer says.
//!
//! # Timeouts and caps
//!
//! - `connect_timeout` bounds the TCP connect and, separately, the TLS handshake (and DNS);
//! - `first_byte_timeout` bounds the time from sending the request to the first response byte;
//! - `total_timeout` bounds the whole exchange from connect on. When it expires while the body is
//!   arriving (a slow drip), what was read is kept and marked [`Truncation::Time`]; when it
//!   expires before the head is complete, the fetch fails with [`FetchError::Timeout`];
//! - `max_body_bytes` caps the body (bytes after the head, framing included): reading stops there
//!   and the exchange is marked [`Truncation::Length`];
//! - a close or reset before a declared `Content-Length` (or the last chunk) is marked
//!   [`Truncation::Disconnect`]; a failure before the head is complete is an error;
//! - the response head may not exceed 64 KiB.
//!
//! Bytes a server sends past the end of the message (beyond `Content-Length` or the last chunk)
//! are not part of the exchange and are not recorded.
//!
//! Block and payload digests (`sha1:` + base32, as warcio and Heritrix write them) are computed
//! while reading, so no second pass over a large body is needed. Response bytes stay in memory up
//! to `spool_mem_bytes` and spill to an anonymous temporary file in `spool_dir` beyond that.
//!
//! [`Truncation::Time`]: crate::model::Truncation::Time
//! [`Truncation::Length`]: crate::model::Truncation::Length
//! [`Truncation::Disconnect`]: crate::model::Truncation::Disconnect

mod body;
mod client;
mod dns;
pub(crate) mod exchange;
mod pool;
pub(crate) mod robots;
mod spool;

#[cfg(test)]
mod client_tests;
#[cfg(test)]
mod keepalive_tests;
#[cfg(test)]
mod testserver;
#[cfg(test)]
mod tls_tests;

pub use body::{entity_body, DecodedBody};
pub use client::{Fetched, Fetcher};
pub use dns::is_private;
#[cfg(test)]
pub(crate) use exchange::deadline_after;
pub use robots::{Robots, RobotsPolicy};
pub use spool::Spool;

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

/// How the fetcher behaves; built once from the crawl configuration and shared by all workers.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// The `User-Agent` sent with every request; its product token (before `/`) is also the
    /// name matched in robots.txt.
    pub user_agent: String,
    /// Limit for DNS resolution, the TCP connect, and the TLS handshake (each).
    pub connect_timeout: Duration,
    /// Limit from sending the request to receiving the first response byte.
    pub first_byte_timeout: Duration,
    /// Limit for the whole exchange from connect on; a body still arriving is cut (`time`).
    pub total_timeout: Duration,
    /// Cap on body bytes (after the head); a longer body is cut (`length`).
    pub max_body_bytes: u64,
    /// Allow loopback, private and link-local addresses (for tests and intranet crawls).
    pub allow_private: bool,
    /// Where responses larger than `spool_mem_bytes` are spilled (anonymous temp files).
    pub spool_dir: PathBuf,
    /// Response bytes kept in memory before spilling to disk.
    pub spool_mem_bytes: usize,
    /// How long a resolved address is reused for a host.
    pub dns_ttl: Duration,
    /// How long a connection may wait idle for the next request to its origin (zero: one
    /// connection per exchange, `Connection: close`).
    pub keep_alive: Duration,
}

/// Why a fetch failed; each variant names the URL (or host) it concerns.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The host name could not be resolved.
    #[error("cannot resolve host {host}: {reason}")]
    Dns {
        /// The host name.
        host: String,
        /// What the resolver said.
        reason: String,
    },
    /// The host resolved to an address the crawl may not reach.
    #[error("{url}: refusing non-public address {ip}")]
    PrivateAddress {
        /// The URL being fetched.
        url: String,
        /// The resolved address.
        ip: IpAddr,
    },
    /// The TCP connection could not be established.
    #[error("{url}: connect failed: {source}")]
    Connect {
        /// The URL being fetched.
        url: String,
        /// The socket error.
        #[source]
        source: std::io::Error,
    },
    /// The TLS handshake failed (certificate, protocol).
    #[error("{url}: TLS failed: {reason}")]
    Tls {
        /// The URL being fetched.
        url: String,
        /// What rustls said.
        reason: String,
    },
    /// A time limit expired before a usable response head arrived.
    #[error("{url}: timed out ({phase})")]
    Timeout {
        /// The URL being fetched.
        url: String,
        /// `dns`, `connect`, `tls`, `first-byte` or `head`.
        phase: &'static str,
    },
    /// Reading, writing or spooling failed before a usable response head arrived.
    #[error("{url}: I/O error: {source}")]
    Io {
        /// The URL being fetched.
        url: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The server's answer is not an HTTP response magpie can record.
    #[error("{url}: bad response: {reason}")]
    BadResponse {
        /// The URL being fetched.
        url: String,
        /// What was wrong.
        reason: String,
    },
    /// Only `http` and `https` are fetched.
    #[error("{url}: unsupported scheme")]
    UnsupportedScheme {
        /// The URL given.
        url: String,
    },
    /// The body uses a content coding magpie does not decode (`br`, `zstd`, ...).
    #[error("{url}: unsupported content encoding {coding}")]
    UnsupportedEncoding {
        /// The URL of the exchange.
        url: String,
        /// The coding as declared, lowercased.
        coding: String,
    },
    /// The body could not be decoded at all (corrupt compressed stream).
    #[error("{url}: cannot decode body: {reason}")]
    Decode {
        /// The URL of the exchange.
        url: String,
        /// What the decoder said.
        reason: String,
    },
    /// This process (`EMFILE`) or the system (`ENFILE`) had no file descriptor left for the
    /// socket, the DNS lookup or the spool file: the crawler's own shortage, not the remote's
    /// failure, so the engine puts the URL back untried (see [`FetchError::is_local`]).
    #[error("{url}: out of file descriptors ({errno}): {source}")]
    OutOfDescriptors {
        /// The URL being fetched (the host name, when the DNS lookup failed).
        url: String,
        /// `EMFILE` or `ENFILE`.
        errno: &'static str,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The fetcher could not be set up (TLS provider, spool directory).
    #[error("fetcher setup failed: {reason}")]
    Config {
        /// What failed.
        reason: String,
    },
}

impl FetchError {
    /// A short stable name for counting failures in stats and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::Dns { .. } => "dns",
            FetchError::PrivateAddress { .. } => "private-address",
            FetchError::Connect { .. } => "connect",
            FetchError::Tls { .. } => "tls",
            FetchError::Timeout { .. } => "timeout",
            FetchError::Io { .. } => "io",
            FetchError::BadResponse { .. } => "bad-response",
            FetchError::UnsupportedScheme { .. } => "scheme",
            FetchError::UnsupportedEncoding { .. } => "unsupported-encoding",
            FetchError::Decode { .. } => "decode",
            FetchError::Config { .. } => "config",
            FetchError::OutOfDescriptors { .. } => "out-of-descriptors",
        }
    }

    /// `Connect` for a failed connect, or `OutOfDescriptors` when the socket could not even
    /// be made for want of a file descriptor.
    pub(crate) fn connect(url: &str, source: std::io::Error) -> FetchError {
        Self::local_or(url, source, |url, source| FetchError::Connect {
            url,
            source,
        })
    }

    /// `Io` for a failed read, write or spool, or `OutOfDescriptors` when a file descriptor
    /// was wanted and none was left.
    pub(crate) fn io(url: &str, source: std::io::Error) -> FetchError {
        Self::local_or(url, source, |url, source| FetchError::Io { url, source })
    }

    fn local_or(
        url: &str,
        source: std::io::Error,
        remote: fn(String, std::io::Error) -> FetchError,
    ) -> FetchError {
        match crate::process::out_of_descriptors(&source) {
            Some(errno) => FetchError::OutOfDescriptors {
                url: url.to_string(),
                errno,
                source,
            },
            None => remote(url.to_string(), source),
        }
    }

    /// Whether the failure is the crawler's own (no file descriptor left) rather than the
    /// remote's: the URL was not really tried, so no retry is spent on it, no error is counted
    /// against it or its host, nothing is archived, and fetching pauses until descriptors are
    /// free again.
    pub fn is_local(&self) -> bool {
        matches!(self, FetchError::OutOfDescriptors { .. })
    }

    /// Whether trying the same URL again later may succeed (network trouble), as opposed to
    /// failures that will repeat (policy refusals, certificate problems, malformed answers).
    /// A [local](FetchError::is_local) failure is neither: it is not the URL's, and spends no
    /// retry.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            FetchError::Dns { .. }
                | FetchError::Connect { .. }
                | FetchError::Timeout { .. }
                | FetchError::Io { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_retryability() {
        let url = "http://example.com/".to_string();
        let io = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        let cases: Vec<(FetchError, &str, bool)> = vec![
            (
                FetchError::Dns {
                    host: "example.com".into(),
                    reason: "nx".into(),
                },
                "dns",
                true,
            ),
            (
                FetchError::PrivateAddress {
                    url: url.clone(),
                    ip: [127, 0, 0, 1].into(),
                },
                "private-address",
                false,
            ),
            (
                FetchError::Connect {
                    url: url.clone(),
                    source: io(),
                },
                "connect",
                true,
            ),
            (
                FetchError::Tls {
                    url: url.clone(),
                    reason: "bad cert".into(),
                },
                "tls",
                false,
            ),
            (
                FetchError::Timeout {
                    url: url.clone(),
                    phase: "connect",
                },
                "timeout",
                true,
            ),
            (
                FetchError::Io {
                    url: url.clone(),
                    source: io(),
                },
                "io",
                true,
            ),
            (
                FetchError::BadResponse {
                    url: url.clone(),
                    reason: "x".into(),
                },
                "bad-response",
                false,
            ),
            (
                FetchError::UnsupportedScheme { url: url.clone() },
                "scheme",
                false,
            ),
        ];
        for (err, kind, retry) in cases {
            assert_eq!(err.kind(), kind);
            assert_eq!(err.retryable(), retry, "{kind}");
            assert!(!err.is_local(), "{kind} is the remote's failure");
            let msg = err.to_string();
            assert!(msg.contains("example.com"), "message names the URL: {msg}");
        }
    }

    #[test]
    fn running_out_of_descriptors_is_local_wherever_it_happens() {
        let url = "http://example.com/";
        for errno in [libc::EMFILE, libc::ENFILE] {
            let os = || std::io::Error::from_raw_os_error(errno);
            for err in [FetchError::connect(url, os()), FetchError::io(url, os())] {
                assert_eq!(err.kind(), "out-of-descriptors");
                assert!(err.is_local());
                assert!(!err.retryable(), "a local failure spends no retry");
                let msg = err.to_string();
                assert!(msg.contains("example.com"), "{msg}");
                assert!(msg.contains("out of file descriptors"), "{msg}");
                let name = if errno == libc::EMFILE {
                    "EMFILE"
                } else {
                    "ENFILE"
                };
                assert!(msg.contains(name), "{msg}");
            }
        }
        // Any other socket or disk error stays the kind it was.
        let refused = std::io::Error::from_raw_os_error(libc::ECONNREFUSED);
        assert_eq!(FetchError::connect(url, refused).kind(), "connect");
        let full = std::io::Error::from_raw_os_error(libc::ENOSPC);
        assert_eq!(FetchError::io(url, full).kind(), "io");
    }
}
