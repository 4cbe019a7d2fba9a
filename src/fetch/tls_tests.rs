//! https tests: a local TLS server with a test CA (see `testdata/README.md`); the recorded bytes
//! must be the plaintext HTTP exchange.

use super::testserver::{config, digest};
use super::{FetchError, Fetcher};
use crate::model::Truncation;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

const CA: &[u8] = include_bytes!("testdata/ca.der");
const LEAF: &[u8] = include_bytes!("testdata/leaf.der");
const LEAF_KEY: &[u8] = include_bytes!("testdata/leaf.key.der");

/// The test server's TLS side: the leaf certificate signed by the test CA.
fn acceptor() -> tokio_rustls::TlsAcceptor {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(LEAF.to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(LEAF_KEY.to_vec())),
        )
        .expect("server cert");
    tokio_rustls::TlsAcceptor::from(Arc::new(cfg))
}

/// Serves one TLS connection: reads the request head, writes `response`, then either closes
/// properly (close_notify) or just drops the TCP connection.
async fn tls_server(response: Vec<u8>, close_notify: bool) -> (SocketAddr, JoinHandle<Vec<u8>>) {
    let acceptor = acceptor();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let handle = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.expect("accept");
        let Ok(mut tls) = acceptor.accept(tcp).await else {
            return Vec::new(); // the client refused the certificate
        };
        let mut req = Vec::new();
        let mut buf = [0u8; 1024];
        while !req.windows(4).any(|w| w == b"\r\n\r\n") {
            match tls.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => req.extend_from_slice(&buf[..n]),
            }
        }
        let _ = tls.write_all(&response).await;
        let _ = tls.flush().await;
        if close_notify {
            let _ = tls.shutdown().await;
        } else {
            let (tcp, _) = tls.into_inner();
            drop(tcp);
        }
        req
    });
    (addr, handle)
}

fn test_ca_fetcher(dir: &tempfile::TempDir) -> Fetcher {
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from(CA.to_vec()))
        .expect("test CA");
    Fetcher::with_roots(config(dir.path()), roots).expect("fetcher")
}

#[tokio::test]
async fn https_records_the_plaintext_exchange() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wire =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\nhello https"
            .to_vec();
    let (addr, server) = tls_server(wire.clone(), true).await;
    let url =
        url::Url::parse(&format!("https://localhost:{}/secure?x=1", addr.port())).expect("url");
    let f = test_ca_fetcher(&dir).fetch(&url).await.expect("fetch");
    let received = server.await.expect("server");
    assert_eq!(f.request, received);
    assert!(received.starts_with(b"GET /secure?x=1 HTTP/1.0\r\nHost: localhost:"));
    let mut raw = Vec::new();
    f.response
        .reader()
        .expect("reader")
        .read_to_end(&mut raw)
        .expect("read");
    assert_eq!(raw, wire);
    assert_eq!(f.info.truncated, None);
    assert_eq!(f.info.payload_digest, digest(b"hello https"));
}

#[tokio::test]
async fn https_read_until_close_without_close_notify() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wire = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end".to_vec();
    let (addr, server) = tls_server(wire.clone(), false).await;
    // An IP literal: the certificate's IP SAN is checked instead of a name.
    let url = url::Url::parse(&format!("https://127.0.0.1:{}/", addr.port())).expect("url");
    let f = test_ca_fetcher(&dir).fetch(&url).await.expect("fetch");
    server.await.expect("server");
    assert_eq!(f.response.len(), wire.len() as u64);
    assert_eq!(f.info.truncated, None);

    // A declared length that the server does not deliver before dropping the connection.
    let short = b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nonly this".to_vec();
    let (addr, _server) = tls_server(short, false).await;
    let url = url::Url::parse(&format!("https://localhost:{}/", addr.port())).expect("url");
    let f = test_ca_fetcher(&dir).fetch(&url).await.expect("fetch");
    assert_eq!(f.info.truncated, Some(Truncation::Disconnect));
}

#[tokio::test]
async fn untrusted_certificate_is_a_tls_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (addr, _server) = tls_server(b"HTTP/1.0 200 OK\r\n\r\n".to_vec(), true).await;
    let url = url::Url::parse(&format!("https://localhost:{}/", addr.port())).expect("url");
    let fetcher = Fetcher::new(config(dir.path())).expect("fetcher");
    let err = fetcher.fetch(&url).await.expect_err("untrusted");
    assert!(matches!(err, FetchError::Tls { .. }), "{err}");
    assert!(!err.retryable());
    assert!(err.to_string().contains("localhost"));
}

/// Serves `n` requests on one TLS connection, each answered with `Connection: keep-alive` and a
/// `Content-Length`; returns how many requests that connection carried.
async fn tls_keep_server(n: usize) -> (SocketAddr, JoinHandle<usize>) {
    let acceptor = acceptor();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let handle = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.expect("accept");
        let mut tls = acceptor.accept(tcp).await.expect("handshake");
        let mut served = 0;
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        while served < n {
            while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                match tls.read(&mut buf).await {
                    Ok(0) | Err(_) => return served,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                }
            }
            got.clear();
            served += 1;
            let body = format!("page {served}");
            let wire = format!(
                "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            if tls.write_all(wire.as_bytes()).await.is_err() || tls.flush().await.is_err() {
                return served;
            }
        }
        served
    });
    (addr, handle)
}

#[tokio::test]
async fn https_connections_are_kept_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (addr, server) = tls_keep_server(2).await;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from(CA.to_vec()))
        .expect("test CA");
    let mut cfg = config(dir.path());
    cfg.keep_alive = std::time::Duration::from_secs(5);
    let fetcher = Fetcher::with_roots(cfg, roots).expect("fetcher");
    for i in 1..=2 {
        let url = url::Url::parse(&format!("https://localhost:{}/{i}", addr.port())).expect("url");
        let f = fetcher.fetch(&url).await.expect("fetch");
        let mut text = String::new();
        f.response
            .reader()
            .expect("reader")
            .read_to_string(&mut text)
            .expect("spool");
        assert!(text.ends_with(&format!("\r\n\r\npage {i}")), "{text}");
    }
    assert_eq!(server.await.expect("server"), 2, "both over one connection");
}
