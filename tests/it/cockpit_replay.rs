//! Replay inside the cockpit browses within the archive: an archived page's stylesheet, image
//! and links are rewritten to archive paths (`/replay/KEY/CRAWL/TIMESTAMP/URL`), served from the
//! crawl's WARC files with their archived content types and the sandbox policy on every answer;
//! a link to a URL the crawl did not archive gets a "not archived" page; the key in the path
//! works only while its session lives. In Chromium: the page in the capture view's frame is
//! styled, its image loads, and following its link lands on the second archived page in the
//! frame, all without a request to the live site.

use crate::cockpit_support;
use crate::support;
use crate::web_support;

use cockpit_support::{browser, Browser};
use fantoccini::Locator;
use serde_json::json;
use support::{FixtureWeb, Reply};
use web_support::TestServer;

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

const ONE: &str = r#"<!doctype html><html><head><title>One</title>
<link rel="stylesheet" href="style.css"></head>
<body><h1 id="title">First archived page</h1>
<img id="pic" src="pic.png" alt="a pixel">
<p><a id="next" href="two.html">The second page</a> · <a id="gone" href="never.html">never crawled</a></p>
</body></html>"#;

const TWO: &str = r#"<!doctype html><html><head><title>Two</title>
<link rel="stylesheet" href="style.css"></head>
<body><h1 id="second">Second archived page</h1></body></html>"#;

const CSS: &str = "h1 { color: rgb(1, 2, 3); background: url(pic.png) }\n";

/// The fixture site and a finished crawl of it (`never.html` is out of scope).
async fn crawled(dir: &std::path::Path) -> (FixtureWeb, TestServer, String) {
    let web = FixtureWeb::start(1);
    web.route(0, "/r/one.html", Reply::html(ONE));
    web.route(0, "/r/two.html", Reply::html(TWO));
    web.route(0, "/r/style.css", Reply::typed("text/css", CSS));
    web.route(0, "/r/pic.png", Reply::typed("image/png", PNG));
    let seed = web.url(0, "/r/one.html");
    let srv = TestServer::start(dir, |_| {}).await;
    srv.create(&json!({
        "name": "rp",
        "seeds": [seed],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false, "deny": ["never\\.html"] },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000, "max_retries": 0 }
    }))
    .await;
    srv.action("rp", "start").await;
    srv.wait_for("rp", 60, "the crawl to end", |c| c["state"] == "finished")
        .await;
    for path in ["/r/two.html", "/r/style.css", "/r/pic.png"] {
        let (_, caps) = srv
            .get_json(&format!(
                "/api/v1/crawls/rp/captures?url={}",
                url_param(&web.url(0, path))
            ))
            .await;
        assert!(caps["total"].as_u64() > Some(0), "{path} archived: {caps}");
    }
    (web, srv, seed)
}

fn url_param(u: &str) -> String {
    url::form_urlencoded::byte_serialize(u.as_bytes()).collect()
}

/// The capture view's frame source for `url`.
async fn frame_src(b: &mut Browser, url: &str) -> String {
    let p = b
        .get(&format!("/crawls/rp/capture?url={}", url_param(url)))
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    let re = regex::Regex::new(r#"<iframe [^>]*sandbox src="([^"]+)""#).unwrap();
    re.captures(&p.body)
        .unwrap_or_else(|| panic!("no sandboxed iframe: {}", p.body))[1]
        .replace("&#38;", "&")
}

/// GETs a cockpit path without any cookie; status, content type, CSP and body.
async fn fetch(srv: &TestServer, path: &str) -> (u16, String, String, String) {
    let resp = srv.get(path).send().await.unwrap();
    let h = |n: &str| {
        resp.headers()
            .get(n)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let (status, ct, csp) = (
        resp.status().as_u16(),
        h("content-type"),
        h("content-security-policy"),
    );
    (status, ct, csp, resp.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archived_pages_refer_to_archive_paths_served_sandboxed() {
    let dir = tempfile::tempdir().unwrap();
    let (web, srv, seed) = crawled(dir.path()).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let src = frame_src(&mut b, &seed).await;
    let re = regex::Regex::new(r"^(/replay/[0-9a-f]{64}/rp/\d{14})/(.+)$").unwrap();
    let caps = re
        .captures(&src)
        .unwrap_or_else(|| panic!("not an archive path: {src}"));
    let (prefix, archived) = (caps[1].to_string(), caps[2].to_string());
    assert_eq!(archived, seed);
    let path_of = |p: &str| format!("{prefix}/{}", web.url(0, p));

    // The page, without a cookie (as the sandboxed frame asks for it): rewritten.
    let (status, ct, csp, html) = fetch(&srv, &src).await;
    assert_eq!(
        (status, ct.as_str()),
        (200, "text/html; charset=utf-8"),
        "{html}"
    );
    assert!(csp.starts_with("sandbox"), "{csp}");
    for (what, want) in [
        (
            "stylesheet",
            format!(r#"href="{}""#, path_of("/r/style.css")),
        ),
        ("image", format!(r#"src="{}""#, path_of("/r/pic.png"))),
        ("link", format!(r#"href="{}""#, path_of("/r/two.html"))),
        (
            "unarchived link",
            format!(r#"href="{}""#, path_of("/r/never.html")),
        ),
    ] {
        assert!(html.contains(&want), "{what}: {want} not in\n{html}");
    }
    // Each archive path is served from the archive, with its archived type, sandboxed.
    let (status, ct, csp, css) = fetch(&srv, &path_of("/r/style.css")).await;
    assert_eq!((status, ct.as_str()), (200, "text/css"));
    assert!(csp.starts_with("sandbox"), "{csp}");
    assert!(
        css.contains(&format!(r#"url("{}")"#, path_of("/r/pic.png"))),
        "the stylesheet's own URLs too: {css}"
    );
    let resp = srv.get(&path_of("/r/pic.png")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "image/png");
    assert!(resp.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .starts_with("sandbox"));
    assert_eq!(resp.bytes().await.unwrap().as_ref(), PNG);
    let (status, ct, csp, two) = fetch(&srv, &path_of("/r/two.html")).await;
    assert_eq!((status, ct.as_str()), (200, "text/html; charset=utf-8"));
    assert!(csp.starts_with("sandbox"));
    assert!(two.contains("Second archived page"), "{two}");
    // As archived (`id_`): not rewritten.
    let raw = src.replacen(&prefix, &format!("{prefix}id_"), 1);
    let (status, _, csp, original) = fetch(&srv, &raw).await;
    assert_eq!(status, 200);
    assert!(csp.starts_with("sandbox"));
    assert!(original.contains(r#"href="style.css""#), "{original}");
    // Not archived: a short page saying so, sandboxed as well.
    let (status, ct, csp, gone) = fetch(&srv, &path_of("/r/never.html")).await;
    assert_eq!((status, ct.as_str()), (404, "text/html; charset=utf-8"));
    assert!(csp.starts_with("sandbox"), "{csp}");
    assert!(gone.contains("Not archived"), "{gone}");

    // The key is the session's: another key is refused, and so is this one after logout.
    let forged = src.replacen("/replay/", "/replay/00", 1);
    assert_eq!(fetch(&srv, &forged).await.0, 403);
    let key = b.get("/").await.csrf();
    let out = b.post("/logout", &[("csrf", &key)]).await;
    assert!(out.status < 400, "{}", out.body);
    let (status, _, _, body) = fetch(&srv, &src).await;
    assert_eq!(status, 403, "{body}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chromium_the_frame_browses_from_page_to_page_within_the_archive() {
    let Some(browser) = browser::start().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (web, srv, seed) = crawled(dir.path()).await;
    let c = &browser.client;
    c.goto(&srv.url(&format!("/?token={}", web_support::TOKEN)))
        .await
        .unwrap();
    let live_hits = web.hits().len();
    c.goto(&srv.url(&format!("/crawls/rp/capture?url={}", url_param(&seed))))
        .await
        .unwrap();
    let title = c.title().await.unwrap();
    let frame = c.find(Locator::Id("capture-frame")).await.unwrap();
    assert!(frame
        .attr("src")
        .await
        .unwrap()
        .unwrap()
        .starts_with("/replay/"));
    frame.clone().enter_frame().await.unwrap();
    let h1 = c.find(Locator::Id("title")).await.unwrap();
    // Styled by the archived stylesheet, its image loaded from the archive.
    let mut color = String::new();
    for _ in 0..50 {
        color = h1.css_value("color").await.unwrap();
        if color.contains("1, 2, 3") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        color.contains("1, 2, 3"),
        "the archived style applies: {color}"
    );
    let pic = c.find(Locator::Id("pic")).await.unwrap();
    let width = c
        .execute(
            "return arguments[0].naturalWidth",
            vec![serde_json::to_value(&pic).unwrap()],
        )
        .await
        .unwrap();
    assert_eq!(width, json!(1), "the archived image loads");
    browser.screenshot("replay").await;
    // Following the link: the second archived page, in the frame.
    c.find(Locator::Id("next"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let second = c.find(Locator::Id("second")).await.unwrap();
    assert_eq!(second.text().await.unwrap(), "Second archived page");
    c.enter_parent_frame().await.unwrap();
    assert_eq!(
        c.title().await.unwrap(),
        title,
        "the cockpit stays where it was"
    );
    // A link to what was not archived stays in the archive too.
    c.goto(&srv.url(&format!("/crawls/rp/capture?url={}", url_param(&seed))))
        .await
        .unwrap();
    c.find(Locator::Id("capture-frame"))
        .await
        .unwrap()
        .enter_frame()
        .await
        .unwrap();
    c.find(Locator::Id("gone"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let mut text = String::new();
    for _ in 0..50 {
        text = match c.find(Locator::Css("body")).await {
            Ok(body) => body.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if text.contains("Not archived") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(text.contains("Not archived"), "{text}");
    c.enter_parent_frame().await.unwrap();
    assert_eq!(
        c.title().await.unwrap(),
        title,
        "the cockpit stays where it was"
    );
    assert_eq!(
        web.hits().len(),
        live_hits,
        "nothing was asked of the live site during replay"
    );
    browser.close().await;
    srv.stop().await;
}
