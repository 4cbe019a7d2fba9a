//! Tiny raw-TCP servers for the fetch tests: each accepts one connection on 127.0.0.1:0, reads
//! the request head, and then plays a script that controls every byte on the wire.

use super::FetchConfig;
use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A running one-connection server; `request` resolves to the bytes it received.
pub(crate) struct Server {
    pub addr: SocketAddr,
    pub request: JoinHandle<Vec<u8>>,
}

impl Server {
    /// `http://127.0.0.1:{port}{path}`.
    pub(crate) fn url(&self, path: &str) -> url::Url {
        url::Url::parse(&format!("http://{}{}", self.addr, path)).expect("test url")
    }
}

/// Starts a server that reads one request head and then runs `script` on the connection.
pub(crate) async fn serve<F, Fut>(script: F) -> Server
where
    F: FnOnce(TcpStream) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let request = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.expect("accept");
        let req = read_head(&mut stream).await;
        script(stream).await;
        req
    });
    Server { addr, request }
}

/// Starts a server that answers with exactly `bytes` and closes.
pub(crate) async fn respond(bytes: Vec<u8>) -> Server {
    serve(move |mut s| async move {
        // The client may hang up early (head too large); that is part of some tests.
        let _ = s.write_all(&bytes).await;
        let _ = s.shutdown().await;
    })
    .await
}

/// Reads until the blank line ending a request head.
async fn read_head(stream: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    got
}

/// A configuration for tests: private addresses allowed, generous but finite limits.
pub(crate) fn config(spool_dir: &Path) -> FetchConfig {
    FetchConfig {
        user_agent: "magpie-test/0.1 (+https://example.org/bot)".into(),
        connect_timeout: Duration::from_secs(2),
        first_byte_timeout: Duration::from_secs(2),
        total_timeout: Duration::from_secs(5),
        max_body_bytes: 10 << 20,
        allow_private: true,
        spool_dir: spool_dir.to_path_buf(),
        spool_mem_bytes: 1 << 20,
        dns_ttl: Duration::from_secs(60),
        keep_alive: Duration::ZERO,
    }
}

/// `sha1:` + base32 of `bytes`, computed independently of the fetch code.
pub(crate) fn digest(bytes: &[u8]) -> String {
    use sha1::Digest;
    let hash = sha1::Sha1::digest(bytes);
    format!("sha1:{}", data_encoding::BASE32.encode(&hash))
}
