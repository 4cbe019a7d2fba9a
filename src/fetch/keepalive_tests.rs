//! Tests of kept connections: reuse when the server agrees, a new connection when it does not,
//! when the kept one went stale, or when the message did not end cleanly.

use super::testserver::config;
use super::Fetcher;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server does with the `n`th request (counted over all connections) it reads.
#[derive(Clone, Copy, PartialEq)]
enum Answer {
    /// A 200 with `Content-Length` and `Connection: keep-alive`; the connection stays open.
    Keep,
    /// The same, plus bytes past the declared length.
    KeepWithTrailingBytes,
    /// The same, with bytes past the declared length sent 30 ms later.
    KeepWithLateBytes,
    /// A 200 with `Content-Length` and no `Connection` header (HTTP/1.0: close after).
    Plain,
    /// Close the connection without answering (a server that timed it out meanwhile).
    Hangup,
}

struct KeepServer {
    url: url::Url,
    accepted: Arc<AtomicUsize>,
    /// Connections the client closed.
    closed: Arc<AtomicUsize>,
}

fn body(n: usize) -> String {
    format!("<p>page {n}</p>")
}

/// A server answering every request on every connection with `script(n)`.
async fn keep_server(script: fn(usize) -> Answer) -> KeepServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let accepted = Arc::new(AtomicUsize::new(0));
    let closed = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(AtomicUsize::new(0));
    let (count, ends) = (accepted.clone(), closed.clone());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let (requests, ends) = (requests.clone(), ends.clone());
            tokio::spawn(async move {
                if serve_conn(stream, requests, script).await {
                    ends.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
    });
    KeepServer {
        url: url::Url::parse(&format!("http://{addr}/")).expect("url"),
        accepted,
        closed,
    }
}

/// Serves one connection; true when it ended because the client closed it.
async fn serve_conn(
    mut s: TcpStream,
    requests: Arc<AtomicUsize>,
    script: fn(usize) -> Answer,
) -> bool {
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            match s.read(&mut buf).await {
                Ok(0) => return true,
                Err(_) => return false,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        let end = got.windows(4).position(|w| w == b"\r\n\r\n").expect("head") + 4;
        got.drain(..end);
        let n = requests.fetch_add(1, Ordering::SeqCst);
        let answer = script(n);
        let b = body(n);
        let connection = match answer {
            Answer::Hangup => return false,
            Answer::Plain => "",
            _ => "Connection: keep-alive\r\n",
        };
        let mut wire = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n{connection}\r\n{b}",
            b.len()
        );
        if answer == Answer::KeepWithTrailingBytes {
            wire.push_str("junk");
        }
        if s.write_all(wire.as_bytes()).await.is_err() || answer == Answer::Plain {
            return false;
        }
        if answer == Answer::KeepWithLateBytes {
            tokio::time::sleep(Duration::from_millis(30)).await;
            if s.write_all(b"late").await.is_err() {
                return false;
            }
        }
    }
}

fn fetcher(dir: &tempfile::TempDir, keep: Duration) -> Fetcher {
    let mut cfg = config(dir.path());
    cfg.keep_alive = keep;
    Fetcher::new(cfg).expect("fetcher")
}

fn response(f: &super::Fetched) -> String {
    let mut out = String::new();
    f.response
        .reader()
        .expect("reader")
        .read_to_string(&mut out)
        .expect("spool");
    out
}

async fn fetch_bodies(f: &Fetcher, url: &url::Url, times: usize) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..times {
        let got = f.fetch(url).await.expect("fetch");
        assert_eq!(got.info.truncated, None);
        let text = response(&got);
        out.push(
            text.split("\r\n\r\n")
                .nth(1)
                .unwrap_or_default()
                .to_string(),
        );
    }
    out
}

#[tokio::test]
async fn a_willing_server_serves_every_request_on_one_connection() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = keep_server(|_| Answer::Keep).await;
    let f = fetcher(&dir, Duration::from_secs(5));
    let bodies = fetch_bodies(&f, &server.url, 3).await;
    assert_eq!(bodies, [body(0), body(1), body(2)]);
    assert_eq!(server.accepted.load(Ordering::SeqCst), 1);
    let got = f.fetch(&server.url).await.expect("fetch");
    let request = String::from_utf8(got.request).expect("ascii");
    assert!(
        request.ends_with("\r\nConnection: keep-alive\r\n\r\n"),
        "{request}"
    );
}

#[tokio::test]
async fn without_keep_alive_each_request_gets_its_connection() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = keep_server(|_| Answer::Plain).await;
    let f = fetcher(&dir, Duration::from_secs(5));
    assert_eq!(fetch_bodies(&f, &server.url, 3).await.len(), 3);
    assert_eq!(server.accepted.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn bytes_past_the_message_end_the_connection_and_are_not_recorded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = keep_server(|_| Answer::KeepWithTrailingBytes).await;
    let f = fetcher(&dir, Duration::from_secs(5));
    let bodies = fetch_bodies(&f, &server.url, 2).await;
    assert_eq!(bodies, [body(0), body(1)]);
    assert_eq!(server.accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn bytes_arriving_after_the_message_keep_the_connection_from_reuse() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = keep_server(|_| Answer::KeepWithLateBytes).await;
    let f = fetcher(&dir, Duration::from_secs(5));
    fetch_bodies(&f, &server.url, 1).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(fetch_bodies(&f, &server.url, 1).await, [body(1)]);
    assert_eq!(server.accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn idle_connections_are_closed_in_time_without_another_request_to_their_host() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (
        keep_server(|_| Answer::Keep).await,
        keep_server(|_| Answer::Keep).await,
    );
    let f = fetcher(&dir, Duration::from_millis(50));
    fetch_bodies(&f, &a.url, 1).await;
    tokio::time::sleep(Duration::from_millis(120)).await;
    // Parking b's connection sweeps a's, idle past its time.
    fetch_bodies(&f, &b.url, 1).await;
    for _ in 0..50 {
        if a.closed.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        a.closed.load(Ordering::SeqCst),
        1,
        "a's idle connection closed"
    );
    assert_eq!(b.closed.load(Ordering::SeqCst), 0, "b's kept");
}

#[tokio::test]
async fn closing_idle_connections_frees_them_and_the_next_fetch_connects_anew() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = keep_server(|_| Answer::Keep).await;
    let f = fetcher(&dir, Duration::from_secs(5));
    fetch_bodies(&f, &server.url, 1).await;
    f.close_idle();
    for _ in 0..50 {
        if server.closed.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        server.closed.load(Ordering::SeqCst),
        1,
        "the idle one closed"
    );
    assert_eq!(fetch_bodies(&f, &server.url, 1).await, [body(1)]);
    assert_eq!(server.accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_kept_connection_the_server_dropped_is_replaced_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The second request meets a server that hung up on it: the fetch asks again on a new
    // connection, where the third request count is answered.
    let server = keep_server(|n| if n == 1 { Answer::Hangup } else { Answer::Keep }).await;
    let f = fetcher(&dir, Duration::from_secs(5));
    let bodies = fetch_bodies(&f, &server.url, 2).await;
    assert_eq!(bodies, [body(0), body(2)]);
    assert_eq!(server.accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_fresh_connection_that_fails_is_an_error_not_a_retry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = keep_server(|_| Answer::Hangup).await;
    let f = fetcher(&dir, Duration::from_secs(5));
    let err = f.fetch(&server.url).await.expect_err("hung up");
    assert_eq!(err.kind(), "io");
    assert_eq!(server.accepted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn idle_connections_expire_and_zero_keeps_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = keep_server(|_| Answer::Keep).await;
    let f = fetcher(&dir, Duration::from_millis(50));
    fetch_bodies(&f, &server.url, 1).await;
    tokio::time::sleep(Duration::from_millis(120)).await;
    fetch_bodies(&f, &server.url, 1).await;
    assert_eq!(
        server.accepted.load(Ordering::SeqCst),
        2,
        "expired, not reused"
    );

    let server = keep_server(|_| Answer::Keep).await;
    let f = fetcher(&dir, Duration::ZERO);
    let got = f.fetch(&server.url).await.expect("fetch");
    let request = String::from_utf8(got.request).expect("ascii");
    assert!(
        request.ends_with("\r\nConnection: close\r\n\r\n"),
        "{request}"
    );
    fetch_bodies(&f, &server.url, 1).await;
    assert_eq!(server.accepted.load(Ordering::SeqCst), 2);
}
