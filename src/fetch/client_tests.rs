//! End-to-end tests of the fetcher against raw TCP servers on 127.0.0.1.

use super::testserver::{config, digest, respond, serve};
use super::{entity_body, FetchError, Fetched, Fetcher};
use crate::model::Truncation;
use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::{Read, Write};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

fn spool_bytes(f: &Fetched) -> Vec<u8> {
    let mut out = Vec::new();
    f.response
        .reader()
        .expect("reader")
        .read_to_end(&mut out)
        .expect("read spool");
    out
}

fn fetcher(dir: &tempfile::TempDir) -> Fetcher {
    Fetcher::new(config(dir.path())).expect("fetcher")
}

#[tokio::test]
async fn exact_request_and_response_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(b"<html><body>compressed page</body></html>")
        .expect("gzip");
    let gz = gz.finish().expect("gzip");
    let mut wire = format!(
        "HTTP/1.1 200 OK\r\nserver: Odd\r\nCONTENT-TYPE: text/html; charset=utf-8\r\n\
         Set-Cookie: a=1\r\nX-Folded: first\r\n\tsecond\r\nSet-Cookie: b=2\r\n\
         Content-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        gz.len()
    )
    .into_bytes();
    let head_len = wire.len() as u64;
    wire.extend_from_slice(&gz);
    let server = respond(wire.clone()).await;
    let url = server.url("/path/page?q=1#frag");
    let f = fetcher(&dir).fetch(&url).await.expect("fetch");
    let received = server.request.await.expect("server");

    assert_eq!(f.request, received, "recorded request == bytes on the wire");
    let expected_req = format!(
        "GET /path/page?q=1 HTTP/1.0\r\nHost: {}\r\nUser-Agent: magpie-test/0.1 \
         (+https://example.org/bot)\r\nAccept: text/html,application/xhtml+xml,\
         application/xml;q=0.9,*/*;q=0.8\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
        server.addr
    );
    assert_eq!(String::from_utf8_lossy(&received), expected_req);
    assert_eq!(
        spool_bytes(&f),
        wire,
        "recorded response == bytes on the wire"
    );
    assert_eq!(f.info.url, format!("http://{}/path/page?q=1", server.addr));
    assert_eq!(f.info.ip, server.addr.ip());
    assert_eq!(f.info.status, 200);
    assert_eq!(f.info.header_len, head_len);
    assert_eq!(f.info.truncated, None);
    let names: Vec<&str> = f.info.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "server",
            "CONTENT-TYPE",
            "Set-Cookie",
            "X-Folded",
            "Set-Cookie",
            "Content-Encoding",
            "Content-Length"
        ]
    );
    assert_eq!(f.info.header("x-folded"), Some("first second"));
    assert_eq!(f.info.mime(), "text/html");
    assert_eq!(f.info.block_digest, digest(&wire));
    assert_eq!(
        f.info.payload_digest,
        digest(&gz),
        "payload is the coded entity"
    );
    let body = entity_body(&f, 1 << 20).expect("decode");
    assert_eq!(body.bytes, b"<html><body>compressed page</body></html>");
}

#[tokio::test]
async fn content_length_ends_the_body_even_if_the_server_lingers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = serve(|mut s| async move {
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA")
            .await
            .expect("write");
        tokio::time::sleep(Duration::from_secs(10)).await;
    })
    .await;
    let t = Instant::now();
    let f = fetcher(&dir).fetch(&server.url("/")).await.expect("fetch");
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "did not wait for close"
    );
    assert_eq!(
        spool_bytes(&f),
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
    );
    assert_eq!(f.info.truncated, None);
    assert_eq!(f.info.payload_digest, digest(b"hello"));
}

#[tokio::test]
async fn body_without_length_is_read_until_close() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = serve(|mut s| async move {
        s.write_all(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\npart one, ")
            .await
            .expect("write");
        tokio::time::sleep(Duration::from_millis(50)).await;
        s.write_all(b"part two").await.expect("write");
    })
    .await;
    let f = fetcher(&dir).fetch(&server.url("/")).await.expect("fetch");
    let raw = spool_bytes(&f);
    assert!(raw.ends_with(b"\r\n\r\npart one, part two"));
    assert_eq!(f.info.truncated, None);
    assert_eq!(f.info.payload_digest, digest(b"part one, part two"));
    assert_eq!(f.info.block_digest, digest(&raw));
}

#[tokio::test]
async fn chunked_is_recorded_raw_and_digested_dechunked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
        6\r\nhello \r\n6;name=v\r\nworld!\r\n0\r\nX-Checksum: abc\r\n\r\n"
        .to_vec();
    let sent = wire.clone();
    // The server keeps the connection open: the last chunk must end the exchange.
    let server = serve(|mut s| async move {
        s.write_all(&sent).await.expect("write");
        tokio::time::sleep(Duration::from_secs(10)).await;
    })
    .await;
    let t = Instant::now();
    let f = fetcher(&dir).fetch(&server.url("/")).await.expect("fetch");
    assert!(t.elapsed() < Duration::from_secs(2));
    assert_eq!(spool_bytes(&f), wire);
    assert_eq!(f.info.truncated, None);
    assert_eq!(f.info.payload_digest, digest(b"hello world!"));
    assert_eq!(f.info.block_digest, digest(&wire));
    assert_eq!(entity_body(&f, 100).expect("body").bytes, b"hello world!");
}

#[tokio::test]
async fn byte_cap_truncates_with_length() {
    let dir = tempfile::tempdir().expect("tempdir");
    let head = b"HTTP/1.1 200 OK\r\nContent-Length: 10000\r\n\r\n".to_vec();
    let mut wire = head.clone();
    wire.extend((0..10_000u32).map(|i| (i % 250) as u8));
    let server = respond(wire.clone()).await;
    let mut cfg = config(dir.path());
    cfg.max_body_bytes = 1000;
    let f = Fetcher::new(cfg.clone())
        .expect("fetcher")
        .fetch(&server.url("/"))
        .await
        .expect("fetch");
    assert_eq!(f.info.truncated, Some(Truncation::Length));
    assert_eq!(spool_bytes(&f), &wire[..head.len() + 1000]);
    assert_eq!(
        f.info.payload_digest,
        digest(&wire[head.len()..head.len() + 1000])
    );

    // A body exactly at the cap is complete.
    let mut exact = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".to_vec();
    exact.extend(std::iter::repeat_n(b'x', 1000));
    let server = respond(exact.clone()).await;
    let f = Fetcher::new(cfg)
        .expect("fetcher")
        .fetch(&server.url("/"))
        .await
        .expect("fetch");
    assert_eq!(f.info.truncated, None);
    assert_eq!(spool_bytes(&f), exact);
}

#[tokio::test]
async fn slow_drip_is_cut_by_total_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = serve(|mut s| async move {
        if s.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await.is_err() {
            return;
        }
        for _ in 0..200 {
            if s.write_all(b"x").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let mut cfg = config(dir.path());
    cfg.total_timeout = Duration::from_millis(500);
    let t = Instant::now();
    let f = Fetcher::new(cfg)
        .expect("fetcher")
        .fetch(&server.url("/"))
        .await
        .expect("fetch");
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(450) && took < Duration::from_millis(1500),
        "{took:?}"
    );
    assert_eq!(f.info.truncated, Some(Truncation::Time));
    let body = f.response.len() - f.info.header_len;
    assert!(
        (3..=15).contains(&body),
        "about 10 drips arrived, got {body}"
    );
    assert_eq!(f.info.block_digest, digest(&spool_bytes(&f)));
}

#[tokio::test]
async fn endless_body_is_capped_and_spilled() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = serve(|mut s| async move {
        let _ = s
            .write_all(b"HTTP/1.0 200 OK\r\nContent-Type: video/mp4\r\n\r\n")
            .await;
        let block: Vec<u8> = (0..65_536u32).map(|i| (i % 253) as u8).collect();
        while s.write_all(&block).await.is_ok() {}
    })
    .await;
    let mut cfg = config(dir.path());
    cfg.max_body_bytes = 1 << 20;
    cfg.spool_mem_bytes = 64 * 1024;
    let f = Fetcher::new(cfg)
        .expect("fetcher")
        .fetch(&server.url("/stream"))
        .await
        .expect("fetch");
    assert_eq!(f.info.truncated, Some(Truncation::Length));
    assert_eq!(f.response.len(), f.info.header_len + (1 << 20));
    assert!(f.response.is_spilled());
    let raw = spool_bytes(&f);
    let body = &raw[f.info.header_len as usize..];
    assert!(body
        .iter()
        .enumerate()
        .all(|(i, &b)| b == (i % 65_536 % 253) as u8));
    assert_eq!(f.info.block_digest, digest(&raw));
    assert_eq!(f.info.payload_digest, digest(body));
    let tail = f
        .response
        .read_range(f.response.len() - 10, 100)
        .expect("range");
    assert_eq!(tail, &raw[raw.len() - 10..]);
}

#[tokio::test]
async fn early_close_and_reset_mid_body_are_disconnects() {
    let dir = tempfile::tempdir().expect("tempdir");
    let head = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
    // Orderly close before the declared length.
    let mut wire = head.to_vec();
    wire.extend_from_slice(&[b'a'; 100]);
    let server = respond(wire.clone()).await;
    let f = fetcher(&dir).fetch(&server.url("/")).await.expect("fetch");
    assert_eq!(f.info.truncated, Some(Truncation::Disconnect));
    assert_eq!(spool_bytes(&f), wire);

    // Reset (RST) after part of the body.
    let server = serve(move |mut s| async move {
        let _ = s.write_all(head).await;
        let _ = s.write_all(&[b'b'; 100]).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let _ = s.set_zero_linger();
        drop(s);
    })
    .await;
    let f = fetcher(&dir).fetch(&server.url("/")).await.expect("fetch");
    assert_eq!(f.info.truncated, Some(Truncation::Disconnect));
    assert_eq!(f.response.len(), head.len() as u64 + 100);
    assert_eq!(f.info.payload_digest, digest(&[b'b'; 100]));
}

#[tokio::test]
async fn failures_before_a_complete_head_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fetcher = fetcher(&dir);
    let kind_and_reason = |r: Result<Fetched, FetchError>| match r {
        Ok(f) => panic!("expected an error, got status {}", f.info.status),
        Err(e) => (e.kind(), e.to_string()),
    };

    // Closing without a complete head is a lost connection (retryable), not a bad answer.
    let server = respond(Vec::new()).await;
    let (kind, msg) = kind_and_reason(fetcher.fetch(&server.url("/")).await);
    assert_eq!(kind, "io");
    assert!(
        msg.contains("empty response") && msg.contains("127.0.0.1"),
        "{msg}"
    );

    let server = respond(b"SSH-2.0-OpenSSH_9.6\r\n\r\n".to_vec()).await;
    assert_eq!(
        kind_and_reason(fetcher.fetch(&server.url("/")).await).0,
        "bad-response"
    );

    let server = respond(b"HTTP/1.1 200 OK\r\nContent-Ty".to_vec()).await;
    let (kind, msg) = kind_and_reason(fetcher.fetch(&server.url("/")).await);
    assert_eq!(kind, "io");
    assert!(msg.contains("inside the head"), "{msg}");

    let mut huge = b"HTTP/1.1 200 OK\r\nX-Filler: ".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 70 * 1024));
    huge.extend_from_slice(b"\r\n\r\n");
    let server = respond(huge).await;
    let (kind, msg) = kind_and_reason(fetcher.fetch(&server.url("/")).await);
    assert_eq!(kind, "bad-response");
    assert!(msg.contains("larger than 65536"), "{msg}");

    let mut many = b"HTTP/1.1 200 OK\r\n".to_vec();
    for i in 0..300 {
        many.extend_from_slice(format!("X-H{i}: v\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    let server = respond(many).await;
    let (kind, msg) = kind_and_reason(fetcher.fetch(&server.url("/")).await);
    assert_eq!(kind, "bad-response");
    assert!(msg.contains("header lines"), "{msg}");

    let server = serve(|mut s| async move {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nServ").await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let _ = s.set_zero_linger();
    })
    .await;
    let (kind, _) = kind_and_reason(fetcher.fetch(&server.url("/")).await);
    assert!(kind == "io" || kind == "bad-response", "{kind}");
}

#[tokio::test]
async fn timeouts_before_the_head() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cfg = config(dir.path());
    cfg.first_byte_timeout = Duration::from_millis(200);
    let fetcher = Fetcher::new(cfg).expect("fetcher");
    let server = serve(|s| async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        drop(s);
    })
    .await;
    let t = Instant::now();
    let err = fetcher.fetch(&server.url("/")).await.expect_err("timeout");
    assert!(t.elapsed() < Duration::from_secs(2));
    assert!(
        matches!(
            err,
            FetchError::Timeout {
                phase: "first-byte",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.retryable());

    let mut cfg = config(dir.path());
    cfg.total_timeout = Duration::from_millis(300);
    let server = serve(|mut s| async move {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\n").await;
        tokio::time::sleep(Duration::from_secs(5)).await;
    })
    .await;
    let err = Fetcher::new(cfg)
        .expect("fetcher")
        .fetch(&server.url("/"))
        .await
        .expect_err("timeout");
    assert!(
        matches!(err, FetchError::Timeout { phase: "head", .. }),
        "{err}"
    );
}

#[tokio::test]
async fn private_addresses_are_refused_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let mut cfg = config(dir.path());
    cfg.allow_private = false;
    let strict = Fetcher::new(cfg).expect("fetcher");
    for host in ["127.0.0.1", "localhost", "[::1]"] {
        let url = url::Url::parse(&format!("http://{host}:{port}/")).expect("url");
        let err = strict.fetch(&url).await.expect_err("refused");
        assert_eq!(err.kind(), "private-address", "{host}: {err}");
        assert!(!err.retryable());
    }
    let accepted = tokio::time::timeout(Duration::from_millis(200), listener.accept()).await;
    assert!(accepted.is_err(), "no connection was made");

    // Allowed: the same kind of address is fetched, through DNS for `localhost`.
    let server = respond(b"HTTP/1.0 204 No Content\r\n\r\n".to_vec()).await;
    let url = url::Url::parse(&format!("http://localhost:{}/", server.addr.port())).expect("url");
    let f = fetcher(&dir).fetch(&url).await.expect("fetch");
    assert_eq!(f.info.status, 204);
    assert!(f.info.ip.is_loopback());
    let req = server.request.await.expect("server");
    let host_line = format!("Host: localhost:{}\r\n", server.addr.port());
    assert!(String::from_utf8_lossy(&req).contains(&host_line));
    assert_eq!(f.info.payload_digest, digest(b""));
}

#[tokio::test]
async fn connect_refused_and_unsupported_scheme() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fetcher = fetcher(&dir);
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let url = url::Url::parse(&format!("http://127.0.0.1:{port}/")).expect("url");
    let err = fetcher.fetch(&url).await.expect_err("refused");
    assert_eq!(err.kind(), "connect");
    let url = url::Url::parse("ftp://example.com/file").expect("url");
    assert_eq!(fetcher.fetch(&url).await.expect_err("ftp").kind(), "scheme");
}

#[tokio::test]
async fn clones_share_one_fetcher_across_tasks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fetcher = fetcher(&dir);
    let mut tasks = Vec::new();
    for i in 0..8 {
        let body = format!("page {i}");
        let wire = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let server = respond(wire.into_bytes()).await;
        let f = fetcher.clone();
        tasks.push(tokio::spawn(async move {
            let got = f.fetch(&server.url("/")).await.expect("fetch");
            (body, got)
        }));
    }
    for t in tasks {
        let (body, got) = t.await.expect("task");
        assert_eq!(entity_body(&got, 100).expect("body").bytes, body.as_bytes());
    }
}
