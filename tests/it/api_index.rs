//! End-to-end over a real `magpie serve`: a crawl of the loopback fixture web is indexed, then
//! searched (facets, snippets, paging, bad queries), replayed (sandbox headers, archived cookies
//! kept out, revisits served with their original's body), listed by URL, and exported (preview,
//! written file and CDXJ, download, streamed export, `warcio check`, names that try to leave
//! the exports folder).

use crate::support;
use crate::web_support;

use magpie::crawl::reindex::{self, TextLimits};
use magpie::index::{self, Index};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;
use support::{basic_site, harness, page, FixtureWeb, Reply};
use web_support::{status_json, TestServer, TOKEN};

const DUP: &str = "<!DOCTYPE html><html lang=\"en\"><head><title>Twin</title></head>\
    <body><p>Identical twin pages share one payload.</p></body></html>";
const COOKIE_BODY: &str = "<!DOCTYPE html><html lang=\"de\"><head><title>Keks</title></head>\
    <body><p>Ein Keks wird gesetzt.</p></body></html>";

/// The fixture web, the server, and the crawl `c` of it (finished, not yet indexed).
struct Crawled {
    web: FixtureWeb,
    srv: TestServer,
    _dir: tempfile::TempDir,
}

impl Crawled {
    fn u(&self, path: &str) -> String {
        self.web.url(0, path)
    }

    /// Builds the index from the WARC files, as `magpie index rebuild` does.
    fn rebuild(&self) {
        let data = &self.srv.data;
        reindex::rebuild(
            &Index::open(&index::index_dir(data, "c")).unwrap(),
            &index::warc_dir(data, "c"),
            &TextLimits::default(),
        )
        .unwrap();
    }

    fn records(&self) -> Vec<harness::Rec> {
        harness::records(&self.srv.data, "c")
    }
}

async fn crawl() -> Crawled {
    let web = FixtureWeb::start(2);
    let site = basic_site(&web, 0);
    web.route(
        0,
        "/dups.html",
        Reply::html(page(
            "Dups",
            "",
            &["/dup-a.html", "/dup-b.html", "/cookie.html"],
        )),
    );
    web.route(0, "/dup-a.html", Reply::html(DUP));
    web.route(0, "/dup-b.html", Reply::html(DUP));
    web.route(
        0,
        "/cookie.html",
        Reply::Status {
            status: 200,
            headers: vec![
                ("Content-Type".into(), "text/html; charset=utf-8".into()),
                ("Set-Cookie".into(), "session=archived; Path=/".into()),
                ("Refresh".into(), "0; url=http://live.example/".into()),
            ],
            body: COOKIE_BODY.as_bytes().to_vec(),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = json!({
        "name": "c",
        "seeds": [site.seed, web.url(0, "/dups.html"), web.base(1) + "/elsewhere.html"],
        "network": { "allow_private": true },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 100, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000, "retry_delay_ms": 50, "max_pages": 500 }
    });
    srv.create(&spec).await;
    let (status, body) = srv.action("c", "start").await;
    assert_eq!(status, 200, "{body}");
    srv.wait_for("c", 60, "the crawl to finish", |c| c["state"] == "finished")
        .await;
    Crawled {
        web,
        srv,
        _dir: dir,
    }
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn counts(list: &Value) -> BTreeMap<String, u64> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["value"].as_str().unwrap().to_string(),
                f["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_has_facets_snippets_paging_and_explains_bad_queries() {
    let c = crawl().await;
    let srv = &c.srv;
    // The crawl indexed as it ran; without its index folder, the server says so (and never
    // creates one).
    let dir = index::index_dir(&srv.data, "c");
    std::fs::remove_dir_all(&dir).unwrap();
    let (status, body) = srv.get_json("/api/v1/crawls/c/search?q=about").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("no-index")),
        "{body}"
    );
    let (status, body) = srv.get_json("/api/v1/crawls/nope/search?q=x").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("not-found")),
        "{body}"
    );

    // An index whose writer is held (as a running crawl holds it) is read all the same, and
    // the commits made after the server opened it become visible.
    let writer_side = Index::open(&dir).unwrap();
    let held = writer_side.writer().unwrap();
    let (status, body) = srv.get_json("/api/v1/crawls/c/search").await;
    assert_eq!((status, body["total"].as_u64()), (200, Some(0)), "{body}");
    drop(held);
    reindex::rebuild(
        &writer_side,
        &index::warc_dir(&srv.data, "c"),
        &TextLimits::default(),
    )
    .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let all = loop {
        let (_, body) = srv.get_json("/api/v1/crawls/c/search?per_page=1000").await;
        if body["total"].as_u64() > Some(0) {
            break body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "commit never visible"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };

    // Facets count what the WARC files hold, read with an independent reader.
    let recs = c.records();
    let captures: Vec<&harness::Rec> = recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
        .collect();
    assert_eq!(all["total"].as_u64(), Some(captures.len() as u64), "{all}");
    let mut hosts = BTreeMap::new();
    let mut classes = BTreeMap::new();
    for r in &captures {
        let u = url::Url::parse(&r.uri).unwrap();
        let host = format!("{}:{}", u.host_str().unwrap(), u.port().unwrap());
        *hosts.entry(host).or_insert(0u64) += 1;
        let status = String::from_utf8_lossy(&r.body)
            .split(' ')
            .nth(1)
            .unwrap()
            .to_string();
        *classes.entry(format!("{}xx", &status[..1])).or_insert(0u64) += 1;
    }
    assert_eq!(hosts.len(), 2, "both hosts crawled: {hosts:?}");
    assert_eq!(counts(&all["facets"]["hosts"]), hosts);
    assert_eq!(counts(&all["facets"]["status_classes"]), classes);
    assert_eq!(
        counts(&all["facets"]["langs"]).get("de"),
        Some(&1),
        "{}",
        all["facets"]["langs"]
    );

    // Snippets mark the words, hits link to their replay, paging splits the results.
    let (status, page1) = srv
        .get_json("/api/v1/crawls/c/search?q=about&per_page=2&page=1&kind=page")
        .await;
    assert_eq!(status, 200, "{page1}");
    let total = page1["total"].as_u64().unwrap();
    assert!(total >= 4, "{page1}");
    assert_eq!(page1["pages"].as_u64(), Some(total.div_ceil(2)));
    let hits = page1["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    assert!(
        hits[0]["snippet"]
            .as_str()
            .unwrap()
            .contains("<mark>about</mark>"),
        "{}",
        hits[0]
    );
    assert!(hits[0]["replay"]
        .as_str()
        .unwrap()
        .starts_with("/api/v1/crawls/c/capture?url="));
    let (_, page2) = srv
        .get_json("/api/v1/crawls/c/search?q=about&per_page=2&page=2&kind=page")
        .await;
    let urls = |p: &Value| -> Vec<String> {
        p["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["url"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(urls(&page2).iter().all(|u| !urls(&page1).contains(u)));

    let (_, one) = srv
        .get_json(&format!(
            "/api/v1/crawls/c/search?q={}",
            enc("title:\"page a\"")
        ))
        .await;
    assert_eq!(urls(&one), vec![c.u("/a.html")], "{one}");
    let host1 = c.web.addr(1).to_string();
    let (_, other) = srv
        .get_json(&format!("/api/v1/crawls/c/search?host={host1}"))
        .await;
    assert_eq!(other["total"].as_u64(), hosts.get(&host1).copied());

    for (query, code, field) in [
        ("q=title%3A%28", "bad-query", "q"),
        ("q=%22unclosed", "bad-query", "q"),
        ("kind=blob", "bad-parameter", "kind"),
        ("min_score=abc", "bad-parameter", "min_score"),
        ("from=yesterday", "bad-parameter", "from"),
        ("sort=random", "bad-parameter", "sort"),
        ("page=0", "bad-parameter", "page/per_page"),
        ("per_page=x", "bad-parameter", "per_page"),
    ] {
        let (status, body) = srv
            .get_json(&format!("/api/v1/crawls/c/search?{query}"))
            .await;
        assert_eq!(
            (status, body["code"].as_str(), body["field"].as_str()),
            (400, Some(code), Some(field)),
            "{query}: {body}"
        );
    }
    let (status, _) = srv.get_json("/api/v1/crawls/c/search?bogus=1").await;
    assert_eq!(status, 400);
    srv_stop(c).await;
}

async fn srv_stop(c: Crawled) {
    c.srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_is_sandboxed_resolves_revisits_and_lists_captures() {
    let c = crawl().await;
    c.rebuild();
    let srv = &c.srv;
    let replay = |path: &str| {
        srv.get(&format!("/api/v1/crawls/c/capture?url={}", enc(&c.u(path))))
            .send()
    };

    let resp = replay("/cookie.html").await.unwrap();
    assert_eq!(resp.status(), 200);
    let h = resp.headers().clone();
    let csp = h["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("sandbox"), "{csp}");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert_eq!(h["content-type"], "text/html; charset=utf-8");
    assert!(
        h.get("set-cookie").is_none(),
        "archived cookies stay archived"
    );
    assert!(h.get("refresh").is_none());
    assert_eq!(resp.text().await.unwrap(), COOKIE_BODY);

    // The info view shows what replay kept back.
    let (status, info) = srv
        .get_json(&format!(
            "/api/v1/crawls/c/capture/info?url={}",
            enc(&c.u("/cookie.html"))
        ))
        .await;
    assert_eq!(status, 200, "{info}");
    let headers = info["http"]["headers"].as_array().unwrap();
    assert!(headers
        .iter()
        .any(|p| p[0] == "Set-Cookie" && p[1] == "session=archived; Path=/"));
    let warc_fields = info["warc"]["fields"].as_array().unwrap();
    let field = |n: &str| {
        warc_fields
            .iter()
            .find(|p| p[0] == n)
            .map(|p| p[1].as_str().unwrap().to_string())
    };
    assert_eq!(field("WARC-Type").as_deref(), Some("response"));
    assert_eq!(
        field("WARC-Payload-Digest").as_deref(),
        info["capture"]["digest"].as_str()
    );
    let loc = &info["capture"]["location"];
    assert!(loc["file"].as_str().unwrap().ends_with(".warc.gz"));
    assert!(loc["length"].as_u64().unwrap() > 0);
    let (head, _) = magpie::archive::read_record_at(
        &index::warc_dir(&srv.data, "c").join(loc["file"].as_str().unwrap()),
        loc["offset"].as_u64().unwrap(),
    )
    .unwrap();
    assert_eq!(
        head.field("WARC-Target-URI"),
        Some(c.u("/cookie.html").as_str())
    );

    // The twin page was archived as a revisit; replay serves the original's body.
    let resp = replay("/dup-b.html").await.unwrap();
    assert_eq!(resp.status(), 200);
    let original_id = resp.headers()["x-magpie-original-record-id"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(resp.text().await.unwrap(), DUP);
    let (_, info) = srv
        .get_json(&format!(
            "/api/v1/crawls/c/capture/info?url={}",
            enc(&c.u("/dup-b.html"))
        ))
        .await;
    assert_eq!(info["capture"]["kind"], "revisit", "{info}");
    assert_eq!(
        info["original"]["url"].as_str(),
        Some(c.u("/dup-a.html").as_str())
    );
    assert_eq!(
        info["original"]["record_id"].as_str(),
        Some(original_id.as_str())
    );

    // Archived error statuses are replayed as such.
    let resp = replay("/missing.html").await.unwrap();
    assert_eq!(resp.status(), 404);
    assert!(resp.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .starts_with("sandbox"));

    // The captures of a URL, and lookups of what is not there.
    let (status, list) = srv
        .get_json(&format!(
            "/api/v1/crawls/c/captures?url={}",
            enc(&c.u("/dup-b.html"))
        ))
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["total"], 1);
    assert_eq!(list["captures"][0]["kind"], "revisit");
    let at = list["captures"][0]["time"].as_str().unwrap();
    let resp = srv
        .get(list["captures"][0]["replay"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.text().await.unwrap(), DUP, "replay link of {at}");
    let (_, none) = srv
        .get_json(&format!(
            "/api/v1/crawls/c/captures?url={}",
            enc(&c.u("/never.html"))
        ))
        .await;
    assert_eq!(none["total"], 0);
    let (status, body) = srv
        .get_json(&format!(
            "/api/v1/crawls/c/capture?url={}",
            enc(&c.u("/never.html"))
        ))
        .await;
    assert_eq!((status, body["code"].as_str()), (404, Some("not-found")));
    for (query, field) in [
        ("", "url"),
        ("url=not%20a%20url", "url"),
        ("url=http%3A%2F%2Fa.example%2F&at=soon", "at"),
    ] {
        let (status, body) = srv
            .get_json(&format!("/api/v1/crawls/c/capture?{query}"))
            .await;
        assert_eq!(
            (status, body["field"].as_str()),
            (400, Some(field)),
            "{query}: {body}"
        );
    }
    srv_stop(c).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exports_preview_write_download_and_stay_in_their_folder() {
    let c = crawl().await;
    c.rebuild();
    let srv = &c.srv;
    let q = enc("title:\"page a\" OR title:\"page b\"");
    let (status, preview) = srv
        .get_json(&format!("/api/v1/crawls/c/exports/preview?q={q}"))
        .await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["selected"], 2, "{preview}");
    assert_eq!(preview["captures"], 2);
    // Own warcinfo, the source file's warcinfo, then response + request + metadata + the
    // helper's reading twice.
    assert_eq!(preview["records"], 2 + 4 * 2);

    let body = json!({ "name": "ab", "q": "title:\"page a\" OR title:\"page b\"" });
    let resp = srv
        .client
        .post(srv.url("/api/v1/crawls/c/exports"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401, "a token is needed");
    let (status, made) = srv.post_json("/api/v1/crawls/c/exports", &body).await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["warc"], "ab.warc.gz");
    assert_eq!(made["cdxj"], "ab.warc.gz.cdxj");
    assert_eq!(made["records"], preview["records"]);
    let (made_bytes, preview_bytes) = (
        made["bytes"].as_u64().unwrap(),
        preview["bytes"].as_u64().unwrap(),
    );
    assert!(
        made_bytes.abs_diff(preview_bytes) <= 16,
        "preview {preview_bytes} bytes, written {made_bytes}"
    );
    let (status, again) = srv.post_json("/api/v1/crawls/c/exports", &body).await;
    assert_eq!(
        (status, again["code"].as_str()),
        (409, Some("exists")),
        "{again}"
    );

    // Download both files and check them independently.
    let resp = srv
        .get(made["download"]["warc"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .contains("ab.warc.gz"));
    let warc = resp.bytes().await.unwrap();
    assert_eq!(warc.len() as u64, made_bytes);
    let got = tempfile::tempdir().unwrap();
    let crawl_dir = got.path().join("x").join("warc");
    std::fs::create_dir_all(&crawl_dir).unwrap();
    let file = crawl_dir.join("ab.warc.gz");
    std::fs::write(&file, &warc).unwrap();
    harness::warcio_check(std::slice::from_ref(&file));
    let recs = harness::records(got.path(), "x");
    let responses: Vec<&str> = recs
        .iter()
        .filter(|r| r.kind == "response")
        .map(|r| r.uri.as_str())
        .collect();
    assert_eq!(responses.len(), 2);
    assert!(responses.contains(&c.u("/a.html").as_str()));
    assert!(responses.contains(&c.u("/b.html").as_str()));
    let cdxj = srv
        .get(made["download"]["cdxj"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(cdxj.lines().count(), 2, "{cdxj}");
    for line in cdxj.lines() {
        let v: Value = serde_json::from_str(&line[line.find('{').unwrap()..]).unwrap();
        let offset: u64 = v["offset"].as_str().unwrap().parse().unwrap();
        let (head, _) = magpie::archive::read_record_at(&file, offset).unwrap();
        assert_eq!(head.field("WARC-Target-URI"), v["url"].as_str());
    }
    let (_, listed) = srv.get_json("/api/v1/crawls/c/exports").await;
    assert_eq!(listed["exports"][0]["name"], "ab", "{listed}");
    assert_eq!(listed["exports"][0]["format"], "warc", "{listed}");
    assert_eq!(listed["exports"][0]["bytes"].as_u64(), Some(made_bytes));

    // The same selection as a WACZ: one file, the same records inside, listed and
    // downloadable; its name is taken for both formats; an unknown format is a 400.
    let wbody =
        json!({ "name": "abz", "format": "wacz", "q": "title:\"page a\" OR title:\"page b\"" });
    let (status, wacz) = srv.post_json("/api/v1/crawls/c/exports", &wbody).await;
    assert_eq!(status, 201, "{wacz}");
    assert_eq!(wacz["format"], "wacz");
    assert_eq!(wacz["file"], "abz.wacz");
    assert!(
        wacz.get("warc").is_none() && wacz.get("cdxj").is_none(),
        "{wacz}"
    );
    assert_eq!(wacz["records"], made["records"], "the same WARC inside");
    assert_eq!(wacz["pages"], 2, "{wacz}");
    let resp = srv
        .get(wacz["download"]["file"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/wacz");
    let bytes = resp.bytes().await.unwrap();
    assert_eq!(bytes.len() as u64, wacz["bytes"].as_u64().unwrap());
    assert_eq!(&bytes[..2], b"PK", "a ZIP");
    let (_, listed) = srv.get_json("/api/v1/crawls/c/exports").await;
    let formats: Vec<(&str, &str)> = listed["exports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["file"].as_str().unwrap(), e["format"].as_str().unwrap()))
        .collect();
    assert_eq!(formats, [("ab.warc.gz", "warc"), ("abz.wacz", "wacz")]);
    let (status, _) = srv
        .post_json(
            "/api/v1/crawls/c/exports",
            &json!({ "name": "ab", "format": "wacz" }),
        )
        .await;
    assert_eq!(status, 409, "ab is taken by the WARC export");
    let (status, body) = srv
        .post_json("/api/v1/crawls/c/exports", &json!({ "format": "zip" }))
        .await;
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("format")),
        "{body}"
    );

    // A revisit brings its original; the streamed export holds the same records as a file.
    let dup = enc(&format!("url:\"{}\"", c.u("/dup-b.html")));
    let resp = srv
        .get(&format!("/api/v1/crawls/c/export?q={dup}&name=twin"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let streamed = resp.bytes().await.unwrap();
    let file = crawl_dir.join("twin.warc.gz");
    std::fs::write(&file, &streamed).unwrap();
    harness::warcio_check(std::slice::from_ref(&file));
    std::fs::remove_file(crawl_dir.join("ab.warc.gz")).unwrap();
    let recs = harness::records(got.path(), "x");
    let kinds: Vec<(&str, &str)> = recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
        .map(|r| (r.kind.as_str(), r.uri.as_str()))
        .collect();
    let (b, a) = (c.u("/dup-b.html"), c.u("/dup-a.html"));
    assert!(kinds.contains(&("revisit", b.as_str())), "{kinds:?}");
    assert!(kinds.contains(&("response", a.as_str())), "{kinds:?}");
    let (status, body) = srv.get_json("/api/v1/crawls/c/export?q=title%3A%28").await;
    assert_eq!((status, body["code"].as_str()), (400, Some("bad-query")));

    // Names never leave the exports folder.
    for name in ["../evil", "a/b", ".hidden", "x..y", ""] {
        let (status, body) = srv
            .post_json(
                "/api/v1/crawls/c/exports",
                &json!({ "name": name, "q": "zzz" }),
            )
            .await;
        if name.is_empty() {
            // No name: one is generated.
            assert_eq!(status, 201, "{body}");
            continue;
        }
        assert_eq!(
            (status, body["field"].as_str()),
            (400, Some("name")),
            "{name}: {body}"
        );
    }
    for path in [
        "..%2Fspec.json",
        "..%2F..%2Fapi-token.warc.gz",
        "%2E%2E%2Fc%2Fspec.json.warc.gz",
        "ab.txt",
    ] {
        let resp = srv
            .get(&format!("/api/v1/crawls/c/exports/{path}"))
            .send()
            .await
            .unwrap();
        let (status, body) = status_json(resp).await;
        assert_eq!(status, 400, "{path}: {body}");
    }
    let (status, _) = srv.get_json("/api/v1/crawls/c/exports/zz.warc.gz").await;
    assert_eq!(status, 404);
    let (status, body) = srv
        .post_json("/api/v1/crawls/c/exports", &json!({ "min_score": "high" }))
        .await;
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("min_score")),
        "{body}"
    );
    let resp = srv
        .client
        .post(srv.url("/api/v1/crawls/nope/exports"))
        .bearer_auth(TOKEN)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    let entries: Vec<String> = std::fs::read_dir(srv.data.join("c").join("exports"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        entries.iter().all(|e| !e.ends_with(".partial")),
        "{entries:?}"
    );
    srv_stop(c).await;
}
