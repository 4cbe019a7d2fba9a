//! The search, capture and export pages over real HTTP, on a crawl (with a topic) of the
//! loopback fixture web: results, facets and escaped hostile titles; a bad query explained on a
//! 400 page; the capture view's sandboxed iframe, headers, record location and outlink scores;
//! export preview, the anti-forgery check, and exports written and downloaded.

use crate::cockpit_support;
use crate::support;
use crate::web_support;

use cockpit_support::Browser;
use serde_json::json;
use support::{FixtureWeb, Reply};
use web_support::TestServer;

/// A page title with markup in it: it must reach every page as text.
const HOSTILE_TITLE: &str = "Solar <script>alert('x')</script> trap";

/// The fixture web, the server and the finished crawl `c` of it (indexed as it ran).
struct Crawled {
    web: FixtureWeb,
    srv: TestServer,
    _dir: tempfile::TempDir,
}

async fn crawl() -> Crawled {
    let web = FixtureWeb::start(1);
    web.route(
        0,
        "/",
        Reply::html(
            "<!DOCTYPE html><html lang=\"en\"><head><title>Solar home</title></head><body>\
             <p>Solar power and photovoltaic panels for homes.</p>\
             <p><a href=\"/panels.html\">photovoltaic panels</a> <a href=\"/trap.html\">solar trap</a></p>\
             </body></html>",
        ),
    );
    web.route(
        0,
        "/panels.html",
        Reply::html(
            "<!DOCTYPE html><html lang=\"en\"><head><title>Panels</title></head><body>\
             <p>Photovoltaic panels convert solar power.</p></body></html>",
        ),
    );
    web.route(
        0,
        "/trap.html",
        Reply::html(format!(
            "<!DOCTYPE html><html lang=\"en\"><head><title>{HOSTILE_TITLE}</title></head><body>\
             <p>Solar power &lt;b&gt;trap&lt;/b&gt; text.</p>\
             <script>document.title = 'pwned'; try {{ parent.document.title = 'pwned'; }} catch (e) {{}}</script>\
             </body></html>"
        )),
    );
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = json!({
        "name": "c",
        "seeds": [web.url(0, "/")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000 },
        "topic": { "keywords": ["solar power"] }
    });
    srv.create(&spec).await;
    let (status, body) = srv.action("c", "start").await;
    assert_eq!(status, 200, "{body}");
    srv.wait_for("c", 30, "the crawl to finish", |c| c["state"] == "finished")
        .await;
    // The index is written live; wait until its last commit is visible.
    for _ in 0..100 {
        let (_, r) = srv.get_json("/api/v1/crawls/c/search?kind=page").await;
        if r["total"].as_u64().unwrap_or(0) >= 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    Crawled {
        web,
        srv,
        _dir: dir,
    }
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_shows_results_facets_and_explains_bad_queries() {
    let c = crawl().await;
    let mut b = Browser::login(&c.srv.base, web_support::TOKEN).await;
    let p = b.get("/crawls/c/search?q=solar").await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p.headers["content-security-policy"]
        .to_str()
        .unwrap()
        .contains("script-src 'self'"));
    assert!(p.body.contains("id=\"hits\""), "{}", p.body);
    // Highlighted words are marked, crawled markup is text.
    assert!(p.body.contains("<mark>"), "{}", p.body);
    assert!(
        p.body
            .contains("Solar &#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62; trap"),
        "the hostile title is escaped: {}",
        p.body
    );
    assert!(!p.body.contains("<script>"), "no script from the crawl");
    assert!(!p.body.contains("<b>trap"), "snippet markup stays text");
    // Facets link to the search narrowed by them.
    let host = c.web.url(0, "/");
    let host = url::Url::parse(&host).unwrap();
    let key = format!("{}:{}", host.host_str().unwrap(), host.port().unwrap());
    let facet = format!("/crawls/c/search?q=solar&#38;host={}", enc(&key));
    assert!(p.body.contains(&facet), "host facet {facet}: {}", p.body);
    assert!(p.body.contains(">en</a>"), "language facet");
    assert!(p.body.contains(">2xx</a>"), "status facet");
    // The status facet's link works.
    let p2 = b
        .get(&format!(
            "/crawls/c/search?q={}",
            enc("(solar) AND status:[200 TO 299]")
        ))
        .await;
    assert_eq!(p2.status, 200, "{}", p2.body);
    assert!(p2.body.contains("Panels") || p2.body.contains("Solar home"));
    // Each result opens the capture view.
    let view = format!(
        "/crawls/c/capture?url={}",
        enc(&c.web.url(0, "/panels.html"))
    );
    assert!(p.body.contains(&view), "{view}: {}", p.body);
    // Filters narrow; paging reports the page.
    let lang = b.get("/crawls/c/search?q=solar&lang=de").await;
    assert!(lang.body.contains("0 result(s)"), "{}", lang.body);

    // A query the parser refuses: its explanation on the page, a 400, the form kept.
    let bad = b
        .get(&format!("/crawls/c/search?q={}", enc("title:(solar")))
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(bad.body.contains("id=\"search-error\""), "{}", bad.body);
    assert!(bad.body.contains("cannot be read"), "{}", bad.body);
    assert!(bad.body.contains("value=\"title:(solar\""), "{}", bad.body);
    // Bad parameters name themselves.
    for (path, name) in [
        ("/crawls/c/search?min_score=high", "min_score"),
        ("/crawls/c/search?kind=bird", "kind"),
        ("/crawls/c/search?page=0", "page"),
        ("/crawls/c/search?nope=1", "nope"),
    ] {
        let p = b.get(path).await;
        assert_eq!(p.status, 400, "{path}: {}", p.body);
        assert!(p.body.contains(name), "{path}: {}", p.body);
    }
    assert_eq!(b.get("/crawls/nope/search").await.status, 404);
    c.srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_capture_view_sandboxes_the_page_and_explains_its_outlinks() {
    let c = crawl().await;
    let mut b = Browser::login(&c.srv.base, web_support::TOKEN).await;
    let seed = c.web.url(0, "/");
    let p = b
        .get(&format!("/crawls/c/capture?url={}", enc(&seed)))
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    let csp = p.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("frame-src 'self'") && csp.contains("frame-ancestors 'none'"));
    // The archived page: in a sandboxed iframe (no scripts, no same origin), from the cockpit's
    // archive path (`/replay/KEY/CRAWL/TIMESTAMP/URL`, the session's replay key in the path).
    let re = regex::Regex::new(r#"<iframe [^>]*sandbox src="([^"]+)""#).unwrap();
    let src = re
        .captures(&p.body)
        .unwrap_or_else(|| panic!("no sandboxed iframe: {}", p.body))[1]
        .replace("&#38;", "&");
    assert!(!p.body.contains("allow-scripts") && !p.body.contains("allow-same-origin"));
    let archive_path = regex::Regex::new(r"^/replay/[0-9a-f]{64}/c/\d{14}/(.+)$").unwrap();
    let archived = archive_path
        .captures(&src)
        .unwrap_or_else(|| panic!("not an archive path: {src}"))[1]
        .to_string();
    assert_eq!(archived, seed);
    let replay = c.srv.get(&src).send().await.unwrap();
    assert_eq!(replay.status(), 200);
    let rcsp = replay.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(rcsp.starts_with("sandbox"), "{rcsp}");
    assert!(
        rcsp.contains("frame-ancestors 'self'"),
        "the cockpit may frame it: {rcsp}"
    );
    assert_eq!(replay.headers()["x-frame-options"], "SAMEORIGIN");
    assert!(replay.text().await.unwrap().contains("Solar power"));
    // Headers, the record's location and digests.
    assert!(p.body.contains("id=\"http-headers\""));
    assert!(p.body.contains("text/html"), "{}", p.body);
    let warc = regex::Regex::new(r"<code>[^<]+\.warc\.gz</code> at offset \d+, \d+ bytes").unwrap();
    assert!(warc.is_match(&p.body), "{}", p.body);
    assert!(p.body.contains("sha1:"), "digests");
    assert!(p.body.contains("WARC-Record-ID"), "WARC fields");
    // The outlinks with the components of their score, from the analysis record.
    assert!(p.body.contains("id=\"outlinks\""), "{}", p.body);
    let panels = c.web.url(0, "/panels.html");
    let row = regex::Regex::new(&format!(
        r#"<tr><td class="url">{}</td><td>L</td>(<td class="num">\d\.\d{{3}}</td>){{6}}"#,
        regex::escape(&panels)
    ))
    .unwrap();
    assert!(
        row.is_match(&p.body),
        "score components of {panels}: {}",
        p.body
    );
    assert!(p.body.contains("Relevance"));
    // The other captures of the URL, the current one marked.
    assert!(p.body.contains("(shown)"));
    // The hostile page: its title is text on the page too.
    let trap = c.web.url(0, "/trap.html");
    let t = b
        .get(&format!("/crawls/c/capture?url={}", enc(&trap)))
        .await;
    assert_eq!(t.status, 200);
    assert!(!t.body.contains("<script>"), "{}", t.body);
    // Errors name their parameter.
    for (path, status, name) in [
        ("/crawls/c/capture".to_string(), 400, "url"),
        ("/crawls/c/capture?url=nope".to_string(), 400, "url"),
        (
            format!("/crawls/c/capture?url={}&at=soon", enc(&seed)),
            400,
            "at",
        ),
        (
            format!(
                "/crawls/c/capture?url={}",
                enc(&c.web.url(0, "/never.html"))
            ),
            404,
            "never",
        ),
    ] {
        let p = b.get(&path).await;
        assert_eq!(p.status, status, "{path}: {}", p.body);
        assert!(p.body.contains(name), "{path}: {}", p.body);
    }
    c.srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exports_are_previewed_refused_without_the_token_and_written() {
    let c = crawl().await;
    let mut b = Browser::login(&c.srv.base, web_support::TOKEN).await;
    let page = b.get("/crawls/c/export").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("No exports yet."));
    // The preview is the API's.
    let p = b
        .get("/crawls/c/export?q=convert&min_score=&host=&app=&kind=page&preview=1")
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    let (_, api) = c
        .srv
        .get_json("/api/v1/crawls/c/exports/preview?q=convert&kind=page")
        .await;
    assert_eq!(api["captures"], 1, "{api}");
    assert!(
        p.body
            .contains(&format!("id=\"preview-captures\">{}<", api["captures"])),
        "{}",
        p.body
    );
    // The size includes the export's own warcinfo record, measured on a sample (its date
    // differs between the two calls by a few bytes at most).
    let shown: i64 = regex::Regex::new(r#"data-bytes="(\d+)""#)
        .unwrap()
        .captures(&p.body)
        .unwrap()[1]
        .parse()
        .unwrap();
    assert!(
        (shown - api["bytes"].as_i64().unwrap()).abs() < 64,
        "{shown} vs {api}"
    );
    let bad = b.get("/crawls/c/export?q=title:(x&preview=1").await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(bad.body.contains("cannot be read"));
    let bad = b.get("/crawls/c/export?min_score=lots&preview=1").await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("min_score"));

    // Without the token: refused, nothing written.
    let form = [("q", "convert"), ("kind", "page"), ("name", "sel")];
    let refused = b.post("/crawls/c/export", &form).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let (_, list) = c.srv.get_json("/api/v1/crawls/c/exports").await;
    assert_eq!(list["exports"], json!([]), "{list}");
    // With it: written, and both files download.
    let token = p.csrf();
    let mut with_token = form.to_vec();
    with_token.push(("csrf", &token));
    let done = b.post("/crawls/c/export", &with_token).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("id=\"export-created\""), "{}", done.body);
    // The page links the cockpit's path (it takes the session); the API's takes the token.
    let warc = "/crawls/c/exports/sel.warc.gz";
    assert!(
        done.body.contains(&format!("href=\"{warc}\"")),
        "{}",
        done.body
    );
    assert!(done.body.contains(&format!("href=\"{warc}.cdxj\"")));
    let by_session = c
        .srv
        .get(warc)
        .header("cookie", b.session_cookie())
        .send()
        .await
        .unwrap();
    assert_eq!(by_session.status(), 200);
    let warc = "/api/v1/crawls/c/exports/sel.warc.gz";
    let file = c
        .srv
        .get(warc)
        .bearer_auth(web_support::TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(file.status(), 200);
    let bytes = file.bytes().await.unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "a gzipped WARC");
    let cdxj = c
        .srv
        .get(&format!("{warc}.cdxj"))
        .bearer_auth(web_support::TOKEN)
        .send()
        .await
        .unwrap();
    let cdxj = cdxj.text().await.unwrap();
    assert!(cdxj.contains("panels.html"), "{cdxj}");
    // Listed on the page; the same name again is a conflict; a bad name names the field.
    let page = b.get("/crawls/c/export").await;
    assert!(page.body.contains(">sel.warc.gz</a>"), "{}", page.body);
    let again = b.post("/crawls/c/export", &with_token).await;
    assert_eq!(again.status, 409, "{}", again.body);
    // As a WACZ: one file to download, listed as WACZ.
    let mut wacz = with_token.clone();
    wacz.retain(|(k, _)| *k != "name");
    wacz.extend([("name", "selz"), ("format", "wacz")]);
    let done = b.post("/crawls/c/export", &wacz).await;
    assert_eq!(done.status, 200, "{}", done.body);
    let file = "/crawls/c/exports/selz.wacz";
    assert!(
        done.body.contains("id=\"download-wacz\"") && done.body.contains(file),
        "{}",
        done.body
    );
    let resp = c
        .srv
        .get(file)
        .header("cookie", b.session_cookie())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(&resp.bytes().await.unwrap()[..2], b"PK");
    let page = b.get("/crawls/c/export").await;
    assert!(page.body.contains(">selz.wacz</a>") && page.body.contains("<td>WACZ</td>"));
    let bad = b
        .post("/crawls/c/export", &[("name", "../x"), ("csrf", &token)])
        .await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("name"), "{}", bad.body);
    c.srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_panels_render_alone_with_scores_terms_and_languages() {
    let c = crawl().await;
    let mut b = Browser::login(&c.srv.base, web_support::TOKEN).await;
    let (_, view) = c.srv.get_json("/api/v1/crawls/c").await;
    let p = b.get("/crawls/c/panels").await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p.headers["content-security-policy"]
        .to_str()
        .unwrap()
        .contains("script-src 'self'"));
    assert!(!p.body.contains("<h1>"), "a fragment, not a page");
    assert!(!p.body.contains("<script"), "{}", p.body);
    // Every fetch the crawl reports is a row, with its score components once analysed.
    for f in view["focus"]["recent"].as_array().unwrap() {
        assert!(p.body.contains(f["url"].as_str().unwrap()), "{f}");
    }
    let trap = c.web.url(0, "/trap.html");
    let row = p.body.split("<tr>").find(|r| r.contains(&trap)).unwrap();
    assert_eq!(row.matches("<td class=\"num\">").count(), 9, "{row}");
    assert!(!row.contains("not scored"), "{row}");
    // The topic's terms and the languages counted.
    assert!(p.body.contains("<td>solar</td>"), "{}", p.body);
    for (lang, n) in view["focus"]["languages"].as_object().unwrap() {
        assert!(
            p.body
                .contains(&format!("<td>{lang}</td><td class=\"num\">{n}</td>")),
            "{lang}"
        );
    }
    // The page embeds the same panels where cockpit.js refreshes them.
    let page = b.get("/crawls/c").await;
    assert!(page.body.contains("data-refresh=\"/crawls/c/panels\""));
    assert!(page.body.contains(row), "same rendering on the page");
    assert_eq!(b.get("/crawls/nope/panels").await.status, 404);
}
