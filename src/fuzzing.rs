//! Fuzz-target bodies, kept in the library so `fuzz/` (cargo-fuzz) and the stable regression test
//! `tests/it/fuzz_regressions.rs` drive exactly the same code. Not an API: hidden from the docs.
//!
//! Each function takes arbitrary bytes, runs them through the public code path the crawler or
//! the server runs on such input, and may return early on any error. It must never panic, hang
//! or allocate without bound; where an invariant truly holds it is asserted, so a violation is a
//! crash the fuzzer reports. `docs/fuzzing.md` lists the targets, what they found and how to run
//! them.

use std::io::{self, Cursor, Read};
use std::path::Path;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use url::Url;

use crate::aah::{Helper, KnowledgeBase};
use crate::fetch::exchange::{exchange, Limits};
use crate::fetch::{entity_body, Fetched, Robots, Spool};
use crate::http::chunked::{DechunkReader, Dechunker};
use crate::model::ExchangeInfo;

/// Longest URL the targets accept, as the crawler's default `limits.max_url_length`.
const MAX_URL: usize = 2048;
/// Output cap for decoded bodies (the crawler's parse cap is larger; the code path is the same).
const BODY_CAP: usize = 1 << 20;

/// Splits the input at its first newline: (first line, rest).
fn split_line(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// URL canonicaliser: the first line parsed as a seed, the second resolved against it as an
/// href; canonical form, SURT, fingerprint, host key and registered domain of each. The canonical
/// form is a fixed point: parsing and canonicalising it again gives the same string.
pub fn url(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let href = rest.lines().next().unwrap_or("");
    let base = match crate::uri::parse_absolute(first, MAX_URL) {
        Ok(u) => u,
        Err(_) => Url::parse("http://example.com/a/b?c=d").expect("fixed base"),
    };
    let mut urls = vec![base.clone()];
    if let Ok(u) = crate::uri::resolve(href, &base, MAX_URL) {
        urls.push(u);
    }
    for u in urls {
        let canon = crate::uri::canonical(&u);
        let _ = crate::uri::fingerprint(&canon);
        let _ = crate::uri::surt(&u);
        let _ = crate::uri::host_key(&u);
        let _ = crate::uri::registered_domain(u.host_str().unwrap_or_default());
        if let Ok(again) = Url::parse(&canon) {
            assert_eq!(
                crate::uri::canonical(&again),
                canon,
                "canonical form of {u} is not a fixed point"
            );
        }
    }
}

/// robots.txt: the body parsed as a 200 response for magpie's agent, then asked about fixed
/// paths and about the paths it names itself.
pub fn robots(data: &[u8]) {
    let robots = Robots::from_response(200, data, "magpie/0.1 (+https://example.com/bot)");
    let _ = robots.crawl_delay();
    let _ = robots.sitemaps();
    for path in [
        "/",
        "/robots.txt",
        "/a/b?c=d",
        "http://example.com/%7Ex/%2f",
        "/\u{e9}t\u{e9}",
    ] {
        let _ = robots.allowed(path);
    }
    assert!(
        robots.allowed("/robots.txt"),
        "/robots.txt is always allowed"
    );
    let text = String::from_utf8_lossy(&data[..data.len().min(4096)]);
    for line in text.lines().take(32) {
        if let Some((_, value)) = line.split_once(':') {
            let _ = robots.allowed(value.trim());
        }
    }
}

/// The spec loader: parse and validate spec JSON as `magpie crawl` and `POST /api/v1/crawls`
/// do. A valid spec, written back as JSON, loads again.
pub fn spec(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(spec) = crate::spec::Spec::from_json(text) else {
        return;
    };
    let json = serde_json::to_string(spec.written()).expect("a spec serialises");
    if let Err(e) = crate::spec::Spec::from_json(&json) {
        panic!("a valid spec written back does not load: {e}\n{json}");
    }
}

/// A small page in the shape the built-in applications look for, to run fuzzed rules on.
const KB_PAGE: &str = r#"<html><head><meta name="generator" content="WordPress 6.4">
<title>Post</title></head><body class="single post"><div id="content"><article class="post">
<h1 class="entry-title">Title</h1><div class="entry-content"><p>Text</p></div>
<a href="/page/2/" rel="next">Next</a><a href="/?p=1">p</a></article></div></body></html>"#;

/// The knowledge-base loader: one application file checked completely (XPath, regexes, names),
/// then indexed and run, as a helper would, on a small page.
pub fn kb(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(app) = KnowledgeBase::parse_file(text, Path::new("fuzz.xml")) else {
        return;
    };
    let helper = Helper::from_kb(KnowledgeBase::from_apps(vec![app]));
    let url = Url::parse("http://example.com/2024/01/post/").expect("fixed url");
    let links = crate::parse::html(
        KB_PAGE.as_bytes(),
        Some("text/html"),
        None,
        &url,
        &crate::parse::ParseLimits::default(),
    )
    .links;
    // Without a store the helper has no persisted state to fail on.
    if let Ok(found) = helper.analyze(&url, &[], KB_PAGE.as_bytes(), &links) {
        let _ = serde_json::to_string(&found.app);
    }
}

/// A helper on the built-in knowledge base, built once (building one per input would cost more
/// than the page). Its memory of the one host the target uses is bounded, as in a crawl.
fn builtin_helper() -> &'static Helper {
    static HELPER: OnceLock<Helper> = OnceLock::new();
    HELPER.get_or_init(|| Helper::from_kb(crate::aah::builtin().expect("built-in knowledge base")))
}

/// HTML to the XPath tree: the page parsed as the crawler parses it (links, and links alone
/// from the token stream), converted into the XPath document, and analysed by the helper on the
/// built-in knowledge base.
pub fn html_xpath(data: &[u8]) {
    let url = Url::parse("http://example.com/dir/page.html").expect("fixed url");
    let _ = crate::parse::html_links(
        data,
        Some("text/html"),
        None,
        &url,
        &crate::parse::ParseLimits::default(),
    );
    let headers = vec![(
        "Content-Type".to_string(),
        "text/html; charset=utf-8".to_string(),
    )];
    let page = crate::parse::html(
        data,
        Some("text/html"),
        None,
        &url,
        &crate::parse::ParseLimits::default(),
    );
    let (text, _) = crate::parse::decode(data, Some("text/html"), true);
    let package = crate::aah::dom::html_package(&text);
    let doc = package.as_document();
    let _ = crate::aah::dom::node_text(doc.root().into());
    if let Ok(found) = builtin_helper().analyze(&url, &headers, data, &page.links) {
        let _ = serde_json::to_string(&found.app);
    }
}

/// The cockpit's XPath tester: the first line is the expression, the rest the page, within the
/// page-size limit the `/kb` page enforces.
pub fn xpath_tester(data: &[u8]) {
    let (expr, html) = split_line(data);
    if html.len() > crate::web::pages::kb::MAX_TEST_HTML_BYTES {
        return;
    }
    let expr = String::from_utf8_lossy(expr);
    let html = String::from_utf8_lossy(html);
    if let Ok(outcome) = crate::aah::tester::test_xpath(&html, &expr) {
        assert!(outcome.outline.len() <= crate::aah::tester::MAX_LINES);
    }
}

/// The scored-URL intake (`POST /api/v1/urls`): the body read as JSON and as NDJSON, each item
/// checked and its URL parsed and canonicalised as the intake router does.
pub fn intake(data: &[u8]) {
    for ndjson in [false, true] {
        let Ok(items) = crate::intake::read_body(data, ndjson) else {
            continue;
        };
        for item in &items {
            if let Ok(c) = item.check(MAX_URL) {
                let _ = item.source_name();
                let _ = crate::uri::canonical(&c.url);
            }
        }
    }
}

/// The search query (`q` of the search and export routes and the cockpit's pages): the input,
/// as text, searched in an empty in-memory index exactly as the server searches a crawl's index.
/// Length, nesting and term count are bounded before tantivy's recursive parser runs; a stack
/// overflow here aborts the fuzzer, as it aborted the server.
pub fn search_query(data: &[u8]) {
    static INDEX: OnceLock<Option<crate::index::Index>> = OnceLock::new();
    let Some(index) = INDEX.get_or_init(|| crate::index::Index::temporary().ok()) else {
        return;
    };
    let q = crate::index::SearchQuery {
        q: String::from_utf8_lossy(data).into_owned(),
        ..Default::default()
    };
    let _ = index.search(&q);
}

/// The WARC reader: every record of the input (gzip or plain), its block streamed to the end,
/// and the Iterator form, which frames records without reading blocks.
pub fn warc_reader(data: &[u8]) {
    if let Ok(mut reader) = crate::archive::WarcReader::new(data) {
        while let Ok(Some(head)) = reader.next_record() {
            let _ = head.record_type();
            let _ = head.record_id();
            let _ = head.field("WARC-Target-URI");
            if io::copy(&mut reader.block(), &mut io::sink()).is_err() {
                break;
            }
        }
    }
    if let Ok(reader) = crate::archive::WarcReader::new(data) {
        for record in reader {
            if record.is_err() {
                break;
            }
        }
    }
}

/// The checker behind `magpie warc check`, on the input as a file's bytes.
pub fn warc_check(data: &[u8]) {
    let _ = crate::archive::check_reader(Cursor::new(data));
}

/// An in-memory connection: reads hand out the response in pieces of `step` bytes, writes
/// (the request) are swallowed.
struct Wire<'a> {
    data: &'a [u8],
    step: usize,
}

impl tokio::io::AsyncRead for Wire<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self.step.min(self.data.len()).min(buf.remaining());
        buf.put_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncWrite for Wire<'_> {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(b.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// A `Fetched` for `http://example.com/x` holding `response`.
fn fetched(status: u16, headers: Vec<(String, String)>, header_len: u64, raw: Vec<u8>) -> Fetched {
    Fetched {
        info: ExchangeInfo {
            url: "http://example.com/x".into(),
            ip: [192, 0, 2, 1].into(),
            started: chrono::Utc::now(),
            duration_ms: 1,
            status,
            headers,
            header_len,
            truncated: None,
            block_digest: String::new(),
            payload_digest: String::new(),
        },
        request: Vec::new(),
        response: Spool::from_bytes(raw),
    }
}

/// The HTTP response parser: the input is what a server sends, read by the fetcher's exchange
/// (head parse, framing by `Content-Length` / chunked / close, body cap, digests); the first
/// byte picks the read size and the body cap. The recorded response is then decoded for the
/// parser as the crawler does.
pub fn http_response(data: &[u8]) {
    let Some((&knob, wire)) = data.split_first() else {
        return;
    };
    let step = [1, 7, 512, 16 * 1024][usize::from(knob & 3)];
    let max_body = [0, 10, 4096, 1 << 20][usize::from(knob >> 2 & 3)];
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(r) => r,
        Err(_) => return,
    };
    let dir = std::env::temp_dir();
    let recorded = runtime.block_on(async {
        let lim = Limits {
            url: "http://example.com/x",
            deadline: tokio::time::Instant::now() + std::time::Duration::from_secs(60),
            first_byte: std::time::Duration::from_secs(60),
            max_body,
            spool_mem: 4 << 20,
            spool_dir: &dir,
        };
        let mut stream = Wire { data: wire, step };
        exchange(&mut stream, b"GET /x HTTP/1.0\r\n\r\n", &lim).await
    });
    let Ok(rec) = recorded else {
        return;
    };
    let len = rec.spool.len();
    assert!(
        rec.header_len <= len,
        "head longer than the recorded response"
    );
    assert!(len <= wire.len() as u64, "recorded more than was sent");
    assert!(len - rec.header_len <= max_body, "body over its cap");
    if let Some(bytes) = rec.spool.as_slice() {
        assert_eq!(
            bytes,
            &wire[..bytes.len()],
            "recorded bytes differ from the wire"
        );
    }
    let f = Fetched {
        info: ExchangeInfo {
            truncated: rec.truncated,
            block_digest: rec.block_digest,
            payload_digest: rec.payload_digest,
            ..fetched(rec.status, rec.headers, rec.header_len, Vec::new()).info
        },
        request: Vec::new(),
        response: rec.spool,
    };
    if let Ok(body) = entity_body(&f, BODY_CAP) {
        assert!(body.bytes.len() <= BODY_CAP);
    }
}

/// Chunked decoding: the de-chunker fed the input in pieces of every size the first byte picks
/// gives the same entity and message length as fed in one piece, and so does the reader adapter.
pub fn chunked(data: &[u8]) {
    let Some((&knob, input)) = data.split_first() else {
        return;
    };
    let step = usize::from(knob).max(1);
    let run = |step: usize| {
        let mut d = Dechunker::new();
        let mut out = Vec::new();
        let mut used = 0;
        for piece in input.chunks(step) {
            used += d.feed(piece, |b| out.extend_from_slice(b));
            if d.is_done() {
                break;
            }
        }
        (out, used, d.is_done(), d.is_raw())
    };
    let whole = run(input.len().max(1));
    assert_eq!(run(step), whole, "result depends on how the input is split");
    assert!(whole.1 <= input.len());
    struct Drip<'a>(&'a [u8], usize);
    impl Read for Drip<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(self.0.len()).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut out = Vec::new();
    DechunkReader::new(Drip(input, step))
        .read_to_end(&mut out)
        .expect("reading from memory cannot fail");
    assert_eq!(
        out, whole.0,
        "the reader adapter differs from the de-chunker"
    );
}

/// Gzip / deflate decoding (`entity_body`): the first byte picks the `Content-Encoding` and
/// `Transfer-Encoding` headers, the rest is the body as recorded.
pub fn body_decode(data: &[u8]) {
    let Some((&knob, body)) = data.split_first() else {
        return;
    };
    const CODINGS: [&str; 8] = [
        "gzip",
        "x-gzip",
        "deflate",
        "gzip, gzip",
        "deflate, gzip",
        "identity",
        "gzip, deflate",
        "br",
    ];
    let mut headers = vec![(
        "Content-Encoding".to_string(),
        CODINGS[usize::from(knob & 7)].to_string(),
    )];
    if knob & 8 != 0 {
        headers.push(("Transfer-Encoding".into(), "chunked".into()));
    }
    let mut raw = b"HTTP/1.1 200 OK\r\n".to_vec();
    for (n, v) in &headers {
        raw.extend_from_slice(format!("{n}: {v}\r\n").as_bytes());
    }
    raw.extend_from_slice(b"\r\n");
    let header_len = raw.len() as u64;
    raw.extend_from_slice(body);
    let cap = if knob & 16 != 0 { 100 } else { BODY_CAP };
    if let Ok(d) = entity_body(&fetched(200, headers, header_len, raw), cap) {
        assert!(d.bytes.len() <= cap);
        assert!(!d.capped || d.bytes.len() == cap);
    }
}
