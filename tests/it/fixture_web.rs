//! Tests of the loopback test web itself, using plain `std::net::TcpStream` clients.

use crate::support;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant, SystemTime};
use support::client::{dechunk, get, parse, request, send};
use support::{FixtureWeb, Reply};

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Connects to `host`, sends a GET for `target`, and returns the open stream.
fn open(web: &FixtureWeb, host: usize, target: &str) -> TcpStream {
    let mut s = TcpStream::connect(web.addr(host)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    s.write_all(&request("GET", web, host, target))
        .expect("send");
    s
}

#[test]
fn html_reply_has_type_length_and_close() {
    let web = FixtureWeb::start(1);
    web.route(0, "/", Reply::html("<p>héllo</p>"));
    let r = get(&web, 0, "/");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(r.header("Content-Length"), Some("13"));
    assert_eq!(r.header("Connection"), Some("close"));
    assert_eq!(r.text(), "<p>héllo</p>");
}

#[test]
fn status_reply_keeps_header_case_and_adds_only_missing_framing() {
    let web = FixtureWeb::start(1);
    let hs = headers(&[("x-ODD-case", "Value"), ("Content-Type", "text/plain")]);
    web.route(
        0,
        "/odd",
        Reply::Status {
            status: 418,
            headers: hs,
            body: b"teapot".to_vec(),
        },
    );
    let lying = headers(&[("content-length", "100"), ("connection", "keep-alive")]);
    web.route(
        0,
        "/lying",
        Reply::Status {
            status: 200,
            headers: lying,
            body: b"short".to_vec(),
        },
    );

    let r = get(&web, 0, "/odd");
    assert!(r.head.starts_with("HTTP/1.1 418 "), "{}", r.head);
    assert!(r.head.contains("\r\nx-ODD-case: Value\r\n"), "{}", r.head);
    assert!(
        r.head
            .contains("\r\nContent-Length: 6\r\nConnection: close"),
        "{}",
        r.head
    );
    assert_eq!(r.body, b"teapot");

    let r = get(&web, 0, "/lying");
    assert_eq!(r.head.matches("ength").count(), 1, "{}", r.head);
    assert_eq!(r.header("content-length"), Some("100"));
    assert_eq!(r.header("connection"), Some("keep-alive"));
    assert_eq!(r.body, b"short");

    let head_only = parse(send(web.addr(0), &request("HEAD", &web, 0, "/odd")).expect("HEAD"));
    assert_eq!(head_only.header("content-length"), Some("6"));
    assert!(head_only.body.is_empty());
}

#[test]
fn raw_reply_is_sent_byte_for_byte() {
    let web = FixtureWeb::start(1);
    let raw = b"HTTP/1.0 200 Whatever\nX-Bare-LF: yes\n\n\x00\xffbody without length".to_vec();
    web.route(0, "/raw", Reply::Raw(raw.clone()));
    let got = send(web.addr(0), &request("GET", &web, 0, "/raw")).expect("raw");
    assert_eq!(got, raw);
}

#[test]
fn chunked_reply_frames_chunks_and_trailers() {
    let web = FixtureWeb::start(1);
    let chunks = vec![
        b"<p>one".to_vec(),
        vec![],
        vec![b'x'; 300],
        b"</p>".to_vec(),
    ];
    let trailers = headers(&[("X-Sum", "abc"), ("X-Other", "1")]);
    web.route(
        0,
        "/c",
        Reply::Chunked {
            headers: vec![],
            chunks,
            trailers,
        },
    );
    let r = get(&web, 0, "/c");
    assert_eq!(r.header("transfer-encoding"), Some("chunked"));
    assert_eq!(r.header("trailer"), Some("X-Sum, X-Other"));
    assert_eq!(r.header("content-length"), None);
    assert!(
        r.body.starts_with(b"6\r\n<p>one\r\n12c\r\n"),
        "{}",
        r.text()
    );
    let (data, got_trailers) = dechunk(&r.body);
    assert_eq!(data, [b"<p>one".as_slice(), &[b'x'; 300], b"</p>"].concat());
    assert_eq!(got_trailers, headers(&[("X-Sum", "abc"), ("X-Other", "1")]));
}

#[test]
fn reset_gives_the_client_an_error() {
    let web = FixtureWeb::start(1);
    web.route(0, "/reset", Reply::Reset);
    let mut s = open(&web, 0, "/reset");
    let mut buf = [0u8; 64];
    let err = s
        .read(&mut buf)
        .expect_err("reset must not look like a clean close");
    assert_eq!(err.kind(), ErrorKind::ConnectionReset);
    assert_eq!(web.hits().len(), 1, "the request was read before the reset");
}

#[test]
fn reset_after_delivers_the_bytes_then_an_error() {
    let web = FixtureWeb::start(1);
    let partial = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial".to_vec();
    web.route(0, "/cut", Reply::ResetAfter(partial.clone()));
    let mut s = open(&web, 0, "/cut");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let err = loop {
        match s.read(&mut buf) {
            Ok(0) => panic!("clean close instead of a reset"),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) => break e,
        }
    };
    assert_eq!(err.kind(), ErrorKind::ConnectionReset);
    assert_eq!(got, partial);
}

#[test]
fn empty_reply_closes_without_a_byte() {
    let web = FixtureWeb::start(1);
    web.route(0, "/empty", Reply::Empty);
    assert_eq!(
        send(web.addr(0), &request("GET", &web, 0, "/empty")).expect("clean close"),
        b""
    );
}

#[test]
fn slow_drip_dribbles_one_byte_per_interval() {
    let web = FixtureWeb::start(1);
    let head = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n".to_vec();
    let every = Duration::from_millis(40);
    web.route(
        0,
        "/drip",
        Reply::SlowDrip {
            head: head.clone(),
            byte: b'z',
            every,
        },
    );
    let mut s = open(&web, 0, "/drip");
    let mut got = vec![0u8; head.len()];
    s.read_exact(&mut got).expect("head");
    assert_eq!(got, head);
    let start = Instant::now();
    let mut times = Vec::new();
    let mut byte = [0u8; 1];
    for _ in 0..3 {
        s.read_exact(&mut byte).expect("drip");
        assert_eq!(byte[0], b'z');
        times.push(start.elapsed());
    }
    assert!(
        times[2] >= every * 2,
        "three bytes after the head came too fast: {times:?}"
    );
    assert!(times[2] < Duration::from_secs(2), "too slow: {times:?}");
    // The server is still dripping, and stops once the client goes away.
    drop(s);
    web.route(0, "/after", Reply::html("ok"));
    assert_eq!(get(&web, 0, "/after").text(), "ok");
}

#[test]
fn endless_reply_never_ends() {
    let web = FixtureWeb::start(1);
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
    web.route(0, "/endless", Reply::Endless { head: head.clone() });
    let mut s = open(&web, 0, "/endless");
    let mut got = Vec::with_capacity(5 << 20);
    let mut buf = [0u8; 65536];
    while got.len() < 4 << 20 {
        let n = s.read(&mut buf).expect("read");
        assert!(n > 0, "endless body ended after {} bytes", got.len());
        got.extend_from_slice(&buf[..n]);
    }
    assert!(got.starts_with(&head));
    assert!(got[head.len()..].starts_with(b"<p>endless</p>\n"));
}

#[test]
fn sequence_advances_and_repeats_its_last_reply() {
    let web = FixtureWeb::start(1);
    web.route(
        0,
        "/flaky",
        Reply::Sequence(vec![
            Reply::status(503),
            Reply::Reset,
            Reply::html("finally"),
        ]),
    );
    assert_eq!(get(&web, 0, "/flaky").status, 503);
    assert!(
        send(web.addr(0), &request("GET", &web, 0, "/flaky")).is_err(),
        "second request is reset"
    );
    for _ in 0..2 {
        let r = get(&web, 0, "/flaky");
        assert_eq!((r.status, r.text().as_str()), (200, "finally"));
    }
    // Re-registering restarts the count.
    web.route(
        0,
        "/flaky",
        Reply::Sequence(vec![Reply::status(500), Reply::html("second")]),
    );
    assert_eq!(get(&web, 0, "/flaky").status, 500);
}

#[test]
fn unrouted_targets_get_404_and_routes_can_be_added_while_running() {
    let web = FixtureWeb::start(1);
    assert_eq!(get(&web, 0, "/later").status, 404);
    web.route(0, "/later", Reply::html("now"));
    assert_eq!(get(&web, 0, "/later").text(), "now");
    // Exact match includes the query.
    assert_eq!(get(&web, 0, "/later?x=1").status, 404);
}

#[test]
fn prefix_routes_yield_to_exact_routes_and_longer_prefixes() {
    let web = FixtureWeb::start(1);
    web.route_prefix(0, "/p/", |t| Reply::html(format!("short {t}")));
    web.route_prefix(0, "/p/deep/", |t| Reply::html(format!("long {t}")));
    web.route(0, "/p/exact", Reply::html("exact"));
    assert_eq!(get(&web, 0, "/p/x?y").text(), "short /p/x?y");
    assert_eq!(get(&web, 0, "/p/deep/z").text(), "long /p/deep/z");
    assert_eq!(get(&web, 0, "/p/exact").text(), "exact");
    assert_eq!(get(&web, 0, "/q/x").status, 404);
}

#[test]
fn hits_record_host_method_target_raw_head_and_time() {
    let web = FixtureWeb::start(2);
    web.route(1, "/x?a=1", Reply::html("x"));
    let (before, before_wall) = (Instant::now(), SystemTime::now());
    let raw_head = b"GET /x?a=1 HTTP/1.0\r\nhOsT: example\r\nX-Custom:  spaced \r\n\r\n".to_vec();
    let r = parse(send(web.addr(1), &raw_head).expect("send"));
    assert_eq!(r.status, 200);
    get(&web, 0, "/nothing");
    let after = Instant::now();

    let hits = web.hits();
    assert_eq!(hits.len(), 2);
    let h = &hits[0];
    assert_eq!(
        (h.host, h.method.as_str(), h.target.as_str()),
        (1, "GET", "/x?a=1")
    );
    assert_eq!(h.head, raw_head);
    assert_eq!(h.header("host").as_deref(), Some("example"));
    assert_eq!(h.header("x-custom").as_deref(), Some("spaced"));
    assert!(before <= h.at && h.at <= hits[1].at && hits[1].at <= after);
    assert!(h.time >= before_wall && h.time <= SystemTime::now());
    assert_eq!(web.hits_for(0).len(), 1);
    assert_eq!(web.hits_for(0)[0].target, "/nothing");
    assert_eq!(web.hits_to(1, "/x?a=1").len(), 1);
}

#[test]
fn hosts_bind_distinct_addresses_and_have_their_own_routes() {
    let web = FixtureWeb::start(3);
    let addrs: Vec<_> = (0..3).map(|h| web.addr(h)).collect();
    assert!(addrs.iter().all(|a| a.ip().is_loopback()));
    assert_eq!(
        addrs.iter().collect::<std::collections::HashSet<_>>().len(),
        3
    );
    if addrs[1].ip() != addrs[0].ip() {
        assert_eq!(addrs[1].ip().to_string(), "127.0.0.2");
        assert_eq!(addrs[2].ip().to_string(), "127.0.0.3");
    }
    assert_eq!(web.base(2), format!("http://{}", addrs[2]));
    assert_eq!(web.url(2, "/a?b"), format!("http://{}/a?b", addrs[2]));
    web.route(1, "/mine", Reply::html("host one"));
    assert_eq!(get(&web, 1, "/mine").text(), "host one");
    assert_eq!(get(&web, 0, "/mine").status, 404);
    assert_eq!(get(&web, 2, "/mine").status, 404);
    let hosts: Vec<usize> = web.hits().iter().map(|h| h.host).collect();
    assert_eq!(hosts, vec![1, 0, 2]);
}

#[test]
fn dropping_the_web_stops_it_even_with_a_connection_open() {
    let web = FixtureWeb::start(1);
    let addr = web.addr(0);
    let every = Duration::from_millis(20);
    web.route(
        0,
        "/drip",
        Reply::SlowDrip {
            head: b"HTTP/1.1 200 OK\r\n\r\n".to_vec(),
            byte: b'.',
            every,
        },
    );
    let mut s = open(&web, 0, "/drip");
    let mut byte = [0u8; 1];
    s.read_exact(&mut byte).expect("drip started");
    drop(web);
    assert!(
        TcpStream::connect(addr).is_err(),
        "still accepting after drop"
    );
    let mut rest = Vec::new();
    // The open connection ends (closed or reset) instead of dripping forever.
    let _ = s.read_to_end(&mut rest);
    assert!(rest.len() < 200, "kept dripping: {} bytes", rest.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_tests_can_use_the_web() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let web = FixtureWeb::start(1);
    web.route(0, "/", Reply::html("async"));
    let mut s = tokio::net::TcpStream::connect(web.addr(0))
        .await
        .expect("connect");
    s.write_all(&request("GET", &web, 0, "/"))
        .await
        .expect("send");
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.expect("read");
    assert_eq!(parse(out).text(), "async");
}
