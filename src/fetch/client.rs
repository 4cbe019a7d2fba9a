//! The fetcher: resolves, checks the address, connects (TLS for https), builds the request bytes,
//! and runs one recorded exchange.

use super::dns::{is_private, DnsCache};
use super::exchange::{deadline_after, exchange, Limits};
use super::pool::{Conn, Origin, Pool};
use super::spool::Spool;
use super::{FetchConfig, FetchError};
use crate::model::ExchangeInfo;
use rustls::pki_types::ServerName;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use tokio::net::TcpStream;
use tokio::time::{timeout_at, Instant};
use tokio_rustls::TlsConnector;
use url::{Host, Position, Url};

/// One recorded exchange: the facts, the request bytes as sent, the response bytes as received.
#[derive(Debug)]
pub struct Fetched {
    /// Status, headers, digests, timing and truncation of the exchange.
    pub info: ExchangeInfo,
    /// The request bytes exactly as written to the connection.
    pub request: Vec<u8>,
    /// The response bytes exactly as read (head and body, never decompressed).
    pub response: Spool,
}

/// A recording HTTP client; clones share the configuration, TLS setup and DNS cache.
#[derive(Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("config", &self.inner.cfg)
            .finish_non_exhaustive()
    }
}

struct Inner {
    cfg: FetchConfig,
    tls: TlsConnector,
    dns: DnsCache,
    pool: Pool,
}

impl Fetcher {
    /// A fetcher trusting the Mozilla root set (webpki-roots).
    pub fn new(cfg: FetchConfig) -> Result<Self, FetchError> {
        let roots =
            rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        Self::with_roots(cfg, roots)
    }

    /// A fetcher trusting the given roots instead, for crawls of sites under a private CA.
    pub fn with_roots(cfg: FetchConfig, roots: rustls::RootCertStore) -> Result<Self, FetchError> {
        let config_err = |reason: String| FetchError::Config { reason };
        std::fs::create_dir_all(&cfg.spool_dir)
            .map_err(|e| config_err(format!("spool directory {}: {e}", cfg.spool_dir.display())))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| config_err(format!("TLS setup: {e}")))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Fetcher {
            inner: Arc::new(Inner {
                dns: DnsCache::new(cfg.dns_ttl, cfg.connect_timeout),
                pool: Pool::new(cfg.keep_alive),
                cfg,
                tls: TlsConnector::from(Arc::new(tls)),
            }),
        })
    }

    /// The configuration this fetcher was built with.
    pub fn config(&self) -> &FetchConfig {
        &self.inner.cfg
    }

    /// The address for `host`, cached for `dns_ttl`; IP literals skip DNS.
    pub async fn resolve(&self, host: &str) -> Result<IpAddr, FetchError> {
        self.inner.dns.resolve(host).await
    }

    /// Closes the kept idle connections, freeing their descriptors (when the process has run
    /// out of them).
    pub fn close_idle(&self) {
        self.inner.pool.clear();
    }

    /// Fetches `url` once (no redirects, no retries) and records the exchange.
    ///
    /// A truncated body is not an error: the exchange comes back with `truncated` set. Errors
    /// mean there is nothing to archive (no complete response head).
    pub async fn fetch(&self, url: &Url) -> Result<Fetched, FetchError> {
        let cfg = &self.inner.cfg;
        let tls = match url.scheme() {
            "http" => false,
            "https" => true,
            _ => {
                return Err(FetchError::UnsupportedScheme {
                    url: url.to_string(),
                })
            }
        };
        // What is requested and recorded: the URL without its fragment.
        let target = &url[..Position::AfterQuery];
        let (ip, server_name) = match url.host() {
            Some(Host::Domain(d)) => (self.resolve(d).await?, None),
            Some(Host::Ipv4(v4)) => (IpAddr::V4(v4), Some(ServerName::from(IpAddr::V4(v4)))),
            Some(Host::Ipv6(v6)) => (IpAddr::V6(v6), Some(ServerName::from(IpAddr::V6(v6)))),
            None => {
                return Err(FetchError::BadResponse {
                    url: target.to_string(),
                    reason: "URL has no host".into(),
                })
            }
        };
        if !cfg.allow_private && is_private(ip) {
            return Err(FetchError::PrivateAddress {
                url: target.to_string(),
                ip,
            });
        }
        let port = url
            .port_or_known_default()
            .unwrap_or(if tls { 443 } else { 80 });
        let pool = &self.inner.pool;
        let request = request_bytes(url, &cfg.user_agent, pool.enabled());

        let t0 = Instant::now();
        let deadline = deadline_after(t0, cfg.total_timeout);
        let lim = Limits {
            url: target,
            deadline,
            first_byte: cfg.first_byte_timeout,
            max_body: cfg.max_body_bytes,
            spool_mem: cfg.spool_mem_bytes,
            spool_dir: &cfg.spool_dir,
        };
        let origin = Origin {
            tls,
            host: url.host_str().unwrap_or_default().to_string(),
            ip,
            port,
        };
        let mut kept = pool.take(&origin);
        let (conn, rec) = loop {
            let was_kept = kept.is_some();
            let mut conn = match kept.take() {
                Some(c) => c,
                None => {
                    self.connect(target, &origin, server_name.clone(), t0)
                        .await?
                }
            };
            match exchange(&mut conn, &request, &lim).await {
                Ok(rec) => break (conn, rec),
                // A kept connection the server closed meanwhile, before the answer's head was
                // complete (nothing is recorded yet): ask again on a new one, as browsers do.
                Err(e) if was_kept && went_stale(&e) => continue,
                Err(e) => return Err(e),
            }
        };
        if rec.reusable {
            pool.put(origin, conn);
        }
        let duration_ms = u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(Fetched {
            info: ExchangeInfo {
                url: target.to_string(),
                ip,
                started: rec.started,
                duration_ms,
                status: rec.status,
                headers: rec.headers,
                header_len: rec.header_len,
                truncated: rec.truncated,
                block_digest: rec.block_digest,
                payload_digest: rec.payload_digest,
            },
            request,
            response: rec.spool,
        })
    }

    /// Opens a new connection to `origin` (TCP, then TLS for `https`) within `connect_timeout`
    /// for each step and the whole-exchange deadline.
    async fn connect(
        &self,
        target: &str,
        origin: &Origin,
        server_name: Option<ServerName<'static>>,
        t0: Instant,
    ) -> Result<Conn, FetchError> {
        let cfg = &self.inner.cfg;
        let deadline = deadline_after(t0, cfg.total_timeout);
        let connect_by = deadline_after(Instant::now(), cfg.connect_timeout).min(deadline);
        let connect = TcpStream::connect(SocketAddr::new(origin.ip, origin.port));
        let tcp = match timeout_at(connect_by, connect).await {
            Err(_) => return Err(timeout(target, "connect")),
            Ok(Err(source)) => return Err(FetchError::connect(target, source)),
            Ok(Ok(s)) => s,
        };
        // The request goes out in one write; do not let Nagle hold it back.
        let _ = tcp.set_nodelay(true);
        if !origin.tls {
            return Ok(Conn::Plain(tcp));
        }
        let name = match server_name {
            Some(n) => n,
            None => ServerName::try_from(origin.host.clone()).map_err(|e| FetchError::Tls {
                url: target.to_string(),
                reason: e.to_string(),
            })?,
        };
        let handshake_by = deadline_after(Instant::now(), cfg.connect_timeout).min(deadline);
        let handshake = self.inner.tls.connect(name, tcp);
        match timeout_at(handshake_by, handshake).await {
            Err(_) => Err(timeout(target, "tls")),
            Ok(Err(e)) => Err(tls_error(target, e)),
            Ok(Ok(s)) => Ok(Conn::Tls(Box::new(s))),
        }
    }
}

/// Whether a failure on a kept connection is the server having closed it (a reset, a broken
/// pipe, or the end of the stream before the head was complete), as opposed to a local fault
/// such as a full spool disk, which a second attempt would only repeat.
fn went_stale(e: &FetchError) -> bool {
    use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset, UnexpectedEof};
    match e {
        FetchError::Io { source, .. } => matches!(
            source.kind(),
            BrokenPipe | ConnectionAborted | ConnectionReset | UnexpectedEof
        ),
        _ => false,
    }
}

fn timeout(url: &str, phase: &'static str) -> FetchError {
    FetchError::Timeout {
        url: url.to_string(),
        phase,
    }
}

/// A handshake failure: a TLS-level problem (certificate, protocol) is `Tls`; a network failure
/// during the handshake is `Connect`, which may succeed on retry.
fn tls_error(url: &str, e: std::io::Error) -> FetchError {
    let rustls_err = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .map(ToString::to_string);
    match rustls_err {
        Some(reason) => FetchError::Tls {
            url: url.to_string(),
            reason,
        },
        None => FetchError::connect(url, e),
    }
}

/// The HTTP/1.0 request magpie sends for `url` (see the module docs for why 1.0), asking to
/// keep the connection open when the fetcher keeps connections.
pub(crate) fn request_bytes(url: &Url, user_agent: &str, keep_alive: bool) -> Vec<u8> {
    let mut path = &url[Position::BeforePath..Position::AfterQuery];
    if path.is_empty() {
        path = "/";
    }
    let host = url.host_str().unwrap_or_default();
    let mut req = Vec::with_capacity(200 + path.len() + user_agent.len());
    req.extend_from_slice(b"GET ");
    req.extend_from_slice(path.as_bytes());
    req.extend_from_slice(b" HTTP/1.0\r\nHost: ");
    req.extend_from_slice(host.as_bytes());
    if let Some(port) = url.port() {
        req.extend_from_slice(format!(":{port}").as_bytes());
    }
    req.extend_from_slice(b"\r\nUser-Agent: ");
    req.extend_from_slice(user_agent.as_bytes());
    req.extend_from_slice(
        b"\r\nAccept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n\
          Accept-Encoding: gzip\r\nConnection: ",
    );
    req.extend_from_slice(if keep_alive {
        b"keep-alive\r\n\r\n".as_slice()
    } else {
        b"close\r\n\r\n"
    });
    req
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(url: &str) -> String {
        let u = Url::parse(url).expect("url");
        String::from_utf8(request_bytes(&u, "magpie/0.1", false)).expect("ascii")
    }

    #[test]
    fn request_line_and_host() {
        let tail = "User-Agent: magpie/0.1\r\n\
            Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n\
            Accept-Encoding: gzip\r\nConnection: close\r\n\r\n";
        assert_eq!(
            req("http://Example.com/a/b?x=1&y=%20#frag"),
            format!("GET /a/b?x=1&y=%20 HTTP/1.0\r\nHost: example.com\r\n{tail}")
        );
        assert_eq!(
            req("https://example.com:8443"),
            format!("GET / HTTP/1.0\r\nHost: example.com:8443\r\n{tail}")
        );
        assert_eq!(
            req("http://example.com:80/"),
            format!("GET / HTTP/1.0\r\nHost: example.com\r\n{tail}")
        );
        assert_eq!(
            req("http://[::1]:8080/p"),
            format!("GET /p HTTP/1.0\r\nHost: [::1]:8080\r\n{tail}")
        );
        let u = Url::parse("http://example.com/").expect("url");
        let kept = String::from_utf8(request_bytes(&u, "magpie/0.1", true)).expect("ascii");
        assert!(
            kept.ends_with("\r\nConnection: keep-alive\r\n\r\n"),
            "{kept}"
        );
    }
}
