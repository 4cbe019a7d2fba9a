//! The cockpit's pages over real HTTP: every page renders with the strict CSP, forms refuse
//! requests without the anti-forgery token, spec errors land on their fields, lifecycle and
//! frontier actions work, and hostile text is escaped.

use crate::cockpit_support;
use crate::web_support;

use cockpit_support::Browser;
use serde_json::json;
use web_support::{idle_spec, TestServer};

const HOSTILE: &str = "<script>alert('x')</script>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_renders_with_a_strict_csp() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&idle_spec("c1")).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    for path in [
        "/",
        "/crawls/new",
        "/crawls/new?from=c1",
        "/crawls/c1",
        "/crawls/c1/frontier",
        "/crawls/c1/frontier?host=nowhere&limit=5",
        "/crawls/c1/hosts",
        "/crawls/c1/reports",
        "/crawls/c1/log",
        "/crawls/c1/log?status=4xx&host=a.example&limit=5",
        "/crawls/c1/url?url=http%3A%2F%2Fa.example%2F",
        "/crawls/c1/intake",
        "/kb",
        "/login",
    ] {
        let p = b.get(path).await;
        assert_eq!(p.status, 200, "{path}: {}", p.body);
        let csp = p.headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("default-src 'self'"), "{path}");
        assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"));
        assert_eq!(p.headers["x-content-type-options"], "nosniff");
        assert!(p.body.contains("<h1>"), "{path}");
        assert!(!p.body.contains("<script>"), "{path}: no inline script");
    }
    let copy = b.get("/crawls/new?from=c1").await;
    assert!(
        copy.body.contains("value=\"c1-copy\""),
        "the copy is renamed"
    );
    for (path, status) in [
        ("/crawls/nope", 404),
        ("/crawls/nope/frontier", 404),
        ("/crawls/c1/frontier?limit=many", 400),
        ("/crawls/nope/reports", 404),
        ("/crawls/nope/log", 404),
        ("/crawls/c1/log?status=lots", 400),
        ("/crawls/c1/log?before=..%2Fspec.json%3A0", 400),
        ("/crawls/c1/url", 400),
        ("/crawls/c1/url?url=nowhere", 400),
        ("/crawls/new?from=nope", 404),
        ("/no/such/page", 404),
        ("/static/nope.js", 404),
    ] {
        let p = b.get(path).await;
        assert_eq!(p.status, status, "{path}");
        assert!(p.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html"));
    }
    let bad = b.get("/crawls/c1/frontier?limit=many").await;
    assert!(
        bad.body.contains("limit"),
        "names the parameter: {}",
        bad.body
    );
    let js = b.get("/static/cockpit.js").await;
    assert_eq!(js.status, 200);
    assert!(js.headers["content-type"]
        .to_str()
        .unwrap()
        .contains("javascript"));
    let spec = b.get("/crawls/c1/spec.json").await;
    let v: serde_json::Value = serde_json::from_str(&spec.body).unwrap();
    assert_eq!(v["name"], "c1");
    assert!(v["limits"]["max_pages"].is_u64(), "defaults filled in");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_without_the_token_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    // A server that takes connections and never answers keeps the crawl running.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut spec = idle_spec("c2");
    spec["seeds"] = json!([format!("http://{}/", silent.local_addr().unwrap())]);
    spec["limits"]["timeout_ms"] = json!(60_000);
    srv.create(&spec).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let page = b.get("/").await;
    let token = page.csrf();
    // No token in the form.
    let p = b.post("/crawls/c2/action", &[("action", "start")]).await;
    assert_eq!(p.status, 403, "{}", p.body);
    // A token, but not the one of this browser's cookie.
    let p = b
        .post(
            "/crawls/c2/action",
            &[("action", "start"), ("csrf", "00ff")],
        )
        .await;
    assert_eq!(p.status, 403);
    // The right token without the cookie (what a forging site could send at best).
    let mut other = Browser::login(&srv.base, web_support::TOKEN).await;
    let p = other
        .post(
            "/crawls/c2/action",
            &[("action", "start"), ("csrf", &token)],
        )
        .await;
    assert_eq!(p.status, 403);
    for path in [
        "/crawls/new",
        "/crawls/c2/frontier",
        "/crawls/c2/intake",
        "/kb",
    ] {
        let p = b.post(path, &[("op", "create")]).await;
        assert_eq!(p.status, 403, "{path}");
    }
    assert_eq!(
        srv.crawl("c2").await["state"],
        "created",
        "nothing happened"
    );
    // With token and cookie it works.
    let p = b
        .post(
            "/crawls/c2/action",
            &[
                ("action", "start"),
                ("csrf", &token),
                ("next", "/crawls/c2"),
            ],
        )
        .await;
    assert_eq!(p.status, 303, "{}", p.body);
    assert_eq!(p.headers["location"], "/crawls/c2");
    assert_eq!(srv.crawl("c2").await["state"], "running");
    let p = b
        .post(
            "/crawls/c2/action",
            &[("action", "pause"), ("csrf", &token)],
        )
        .await;
    assert_eq!(p.status, 303);
    assert_eq!(srv.crawl("c2").await["state"], "paused");
    let p = b
        .post(
            "/crawls/c2/action",
            &[("action", "explode"), ("csrf", &token)],
        )
        .await;
    assert_eq!(p.status, 400);
    assert!(p.body.contains("action"));
    // The API token is never shown in a page, not even through a checked POST.
    let intake = b.get("/crawls/c2/intake").await;
    assert!(!intake.body.contains(web_support::TOKEN));
    // It names the real data folder and token file.
    let data = std::fs::canonicalize(dir.path()).unwrap();
    assert!(
        intake
            .body
            .contains(&data.join("api-token").display().to_string()),
        "{}",
        intake.body
    );
    let shown = b.post("/crawls/c2/intake", &[("csrf", &token)]).await;
    assert_eq!(shown.status, 400, "nothing to send: {}", shown.body);
    assert!(!shown.body.contains(web_support::TOKEN));
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_spec_form_shows_errors_on_their_fields_and_creates_crawls() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let form = b.get("/crawls/new").await;
    let csrf = form.csrf();
    let p = b
        .post(
            "/crawls/new",
            &[
                ("csrf", &csrf),
                ("op", "create"),
                ("name", "bad name"),
                ("seeds", "http://ok.example/\nftp://x.example/"),
                ("limits.max_pages", "lots"),
                ("warc.gzip_level", "11"),
                ("frontier.update", "avg"),
            ],
        )
        .await;
    assert_eq!(p.status, 400);
    for (field, text) in [
        ("name", "letters, digits"),
        ("seeds", "line 2: not an http(s) URL"),
        ("limits.max_pages", "not a whole number"),
        ("warc.gzip_level", "0 to 9"),
    ] {
        let re = regex::Regex::new(&format!(
            r#"<p class="error" id="[^"]+" data-field="{}">([^<]*)</p>"#,
            regex::escape(field)
        ))
        .unwrap();
        let msg = re
            .captures(&p.body)
            .unwrap_or_else(|| panic!("no error for {field}"))[1]
            .to_string();
        assert!(msg.contains(text), "{field}: {msg}");
    }
    assert!(p.body.contains("value=\"bad name\""), "the values are kept");

    let port = web_support::closed_port();
    let seed = format!("http://127.0.0.1:{port}/");
    let good = [
        ("csrf", csrf.as_str()),
        ("op", "create"),
        ("name", "made"),
        ("seeds", seed.as_str()),
        ("topic.keywords", "birds\nmagpies"),
        ("limits.max_pages", "5"),
        ("network.allow_private", "on"),
        ("frontier.update", "max"),
    ];
    let p = b.post("/crawls/new", &good).await;
    assert_eq!(p.status, 303, "{}", p.body);
    assert_eq!(p.headers["location"], "/crawls/made");
    let c = srv.crawl("made").await;
    assert_eq!(c["spec"]["limits"]["max_pages"], 5);
    assert_eq!(c["spec"]["topic"]["keywords"], json!(["birds", "magpies"]));
    assert_eq!(c["spec"]["frontier"]["update"], "max");
    assert_eq!(c["state"], "created", "not started without the box");
    let again = b.post("/crawls/new", &good).await;
    assert_eq!(again.status, 400);
    assert!(again.body.contains("exists already"));

    // Download the form's spec, and import it back.
    let mut dl = good.to_vec();
    dl[1] = ("op", "download");
    let file = b.post("/crawls/new", &dl).await;
    assert!(file.headers["content-disposition"]
        .to_str()
        .unwrap()
        .contains("made.json"));
    let text = file.body.replace("\"made\"", "\"imported\"");
    let p = b
        .post(
            "/crawls/new",
            &[("csrf", &csrf), ("op", "import"), ("spec_json", &text)],
        )
        .await;
    assert_eq!(p.status, 200);
    assert!(p.body.contains("value=\"imported\""));
    let p = b
        .post(
            "/crawls/new",
            &[
                ("csrf", &csrf),
                ("op", "import"),
                ("spec_json", "{\"name\": 5}"),
            ],
        )
        .await;
    assert_eq!(p.status, 400);
    assert!(p.body.contains("id=\"import-error\""));
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frontier_steering_goes_through_the_intake_and_text_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = idle_spec("f1");
    let seed = spec["seeds"][0].as_str().unwrap().to_string();
    srv.create(&spec).await;
    // A source that is markup is refused at the intake (sources are short tokens); what the
    // pages show of the others is escaped all the same.
    let items = json!([
        {"crawl_id": "f1", "url": format!("{seed}a"), "score": 0.4, "source": "ranker-a"},
        {"crawl_id": "f1", "url": format!("{seed}b"), "score": 0.3, "source": "ranker"},
        {"crawl_id": "f1", "url": format!("{seed}c"), "score": 0.3, "source": HOSTILE},
    ]);
    let (status, report) = srv.post_json("/api/v1/urls", &items).await;
    assert_eq!(status, 200);
    assert_eq!(report["rejected"][0]["index"], 2, "{report}");
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let page = b.get("/crawls/f1/frontier").await;
    assert!(page.body.contains(&format!("{seed}a")));
    assert!(!page.body.contains(&format!("{seed}c")));
    assert!(!page.body.contains(HOSTILE), "nothing unescaped");
    let intake = b.get("/crawls/f1/intake").await;
    assert!(!intake.body.contains(HOSTILE));
    let csrf = page.csrf();
    let url_a = format!("{seed}a");
    let url_b = format!("{seed}b");
    let p = b
        .post(
            "/crawls/f1/frontier",
            &[
                ("csrf", &csrf),
                ("op", "priority"),
                ("url", &url_b),
                ("score", "0.95"),
            ],
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p.body.contains("1 updated"), "{}", p.body);
    let p = b
        .post(
            "/crawls/f1/frontier",
            &[("csrf", &csrf), ("op", "blacklist"), ("url", &url_a)],
        )
        .await;
    assert!(p.body.contains("1 blacklisted"), "{}", p.body);
    let p = b
        .post(
            "/crawls/f1/frontier",
            &[
                ("csrf", &csrf),
                ("op", "priority"),
                ("url", &url_b),
                ("score", "7"),
            ],
        )
        .await;
    assert_eq!(p.status, 400);
    assert!(p.body.contains("score"));
    let (_, f) = srv.get_json("/api/v1/crawls/f1/frontier").await;
    let urls: Vec<&str> = f["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap())
        .collect();
    assert!(!urls.contains(&url_a.as_str()), "blacklisted: {urls:?}");
    let b_row = f["urls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["url"] == url_b.as_str())
        .unwrap();
    assert_eq!(b_row["source"], "cockpit");
    let intake = b.get("/crawls/f1/intake").await;
    assert!(
        intake.body.contains("<td>cockpit</td>"),
        "counted by source"
    );

    // Blacklisting by pattern: a bad pattern is explained on its field; a good one empties
    // the matching queue entries and keeps matching URLs out of the intake.
    let items = json!([
        {"crawl_id": "f1", "url": format!("{seed}calendar/1"), "score": 0.9},
        {"crawl_id": "f1", "url": format!("{seed}calendar/2"), "score": 0.9},
    ]);
    srv.post_json("/api/v1/urls", &items).await;
    let p = b
        .post(
            "/crawls/f1/frontier",
            &[("csrf", &csrf), ("op", "block"), ("pattern", "(calendar")],
        )
        .await;
    assert_eq!(p.status, 400);
    assert!(p.body.contains("pattern"), "{}", p.body);
    let p = b
        .post(
            "/crawls/f1/frontier",
            &[("csrf", &csrf), ("op", "block"), ("pattern", "/calendar/")],
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p.body.contains("2 queued URLs removed"), "{}", p.body);
    let (_, f) = srv.get_json("/api/v1/crawls/f1/frontier").await;
    assert!(!f["urls"].to_string().contains("calendar"), "{f}");
    assert_eq!(f["blocked"], json!(["/calendar/"]), "the pattern is listed");
    let (_, r) = srv
        .post_json(
            "/api/v1/urls",
            &json!({"crawl_id": "f1", "url": format!("{seed}calendar/3"), "score": 1.0}),
        )
        .await;
    assert_eq!(r["rejected"][0]["reason"], "blocked by a pattern", "{r}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cockpit_needs_a_login_even_on_loopback() {
    let dir = tempfile::tempdir().unwrap();
    // Reads of the API are open here, the cockpit's pages are not.
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut b = Browser::new(&srv.base);
    for path in ["/", "/crawls/new", "/kb", "/crawls/c/intake"] {
        let p = b.get(path).await;
        assert_eq!(p.status, 303, "{path}");
        assert_eq!(p.headers["location"], "/login");
    }
    assert_eq!(b.get("/api/v1/crawls").await.status, 200);
    // A wrong token in the address logs nobody in.
    let p = b.get("/?token=wrong-token-123456").await;
    assert_eq!(p.status, 401);
    assert!(p.headers.get("set-cookie").is_none());
    assert!(!p.body.contains(web_support::TOKEN));
    // A session cookie made up by the visitor, or one of another server (under this server's
    // cookie name), is refused.
    let port = srv.base.rsplit_once(':').unwrap().1;
    let other = TestServer::start(&dir.path().join("other"), |_| {}).await;
    let foreign = Browser::login(&other.base, web_support::TOKEN).await;
    let foreign_id = foreign
        .session_cookie()
        .split_once('=')
        .unwrap()
        .1
        .to_string();
    for made_up in [
        format!("magpie_{port}_session=00"),
        format!("magpie_{port}_session={foreign_id}"),
        foreign.session_cookie(),
    ] {
        let resp = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
            .get(srv.url("/"))
            .header("cookie", &made_up)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 303, "{made_up}");
    }
    other.stop().await;
    let login = b.get("/login").await;
    assert_eq!(login.status, 200);
    let csrf = login.csrf();
    let p = b
        .post(
            "/login",
            &[("csrf", &csrf), ("token", "wrong-token-123456")],
        )
        .await;
    assert_eq!(p.status, 401);
    let p = b
        .post(
            "/login",
            &[
                ("csrf", &csrf),
                ("token", web_support::TOKEN),
                ("next", "/kb"),
            ],
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    let (_, next) = cockpit_support::login_answer(&p.body);
    assert_eq!(next, "/kb");
    assert_eq!(b.get("/").await.status, 200);
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_xpath_tester_highlights_matches_and_lists_the_kb() {
    let dir = tempfile::tempdir().unwrap();
    let kb = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kb");
    let srv = TestServer::start(dir.path(), |c| c.kb_dir = kb).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let page = b.get("/kb").await;
    assert!(
        page.body.contains("id=\"app-wordpress\""),
        "the kb is listed"
    );
    assert!(page.body.contains("id=\"app-phpbb\""));
    let csrf = page.csrf();
    let html = format!(
        "<html><head><title>{HOSTILE}</title></head><body><a href='/x'>one</a><p>{HOSTILE}</p><a href='/y'>two</a></body></html>"
    );
    let p = b
        .post("/kb", &[("csrf", &csrf), ("expr", "//a"), ("html", &html)])
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(
        p.body.contains("<strong id=\"match-count\">2</strong>"),
        "{}",
        p.body
    );
    assert_eq!(p.body.matches("<mark>").count(), 2);
    assert!(
        p.body
            .contains("<mark>&#60;a href=&#34;/x&#34;&#62;</mark>"),
        "{}",
        p.body
    );
    assert!(!p.body.contains(HOSTILE), "page text is escaped");
    let p = b
        .post("/kb", &[("csrf", &csrf), ("expr", "//a["), ("html", &html)])
        .await;
    assert!(p.body.contains("id=\"xpath-error\""));
    let p = b
        .post(
            "/kb",
            &[
                ("csrf", &csrf),
                ("expr", "//a"),
                ("crawl", "none"),
                ("url", "http://x/"),
            ],
        )
        .await;
    assert!(
        p.body.contains("id=\"xpath-error\""),
        "unknown crawl is an inline error"
    );
    srv.stop().await;
}
