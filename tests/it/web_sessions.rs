//! The cockpit's sessions against other services of the same host (`src/web/csrf.rs`): a
//! browser sends its cookies to every port of 127.0.0.1, so a cookie alone never changes
//! anything, sessions end (idle, absolute, logout), two servers do not log each other out,
//! forms from another port's page are refused, the API takes no cookie, slow bodies are cut off,
//! and a deeply nested search query is a 400 on every route that takes one.

use crate::cockpit_support;
use crate::web_support;

use cockpit_support::Browser;
use serde_json::json;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use web_support::{TestServer, TOKEN};

const FORM: &str = "application/x-www-form-urlencoded";

fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// A private-address crawl, as the attacks of the hardening report created.
fn stolen_crawl(csrf: &str) -> String {
    form(&[
        ("csrf", csrf),
        ("op", "create"),
        ("name", "stolen"),
        ("seeds", "http://127.0.0.1:9/"),
        ("network.allow_private", "on"),
        ("frontier.update", "max"),
        ("start", "1"),
    ])
}

fn names(list: &serde_json::Value) -> Vec<String> {
    list["crawls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cookie_that_leaked_to_another_port_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |c| c.public_reads = false).await;
    let b = Browser::login(&srv.base, TOKEN).await;
    // What a service on another port of 127.0.0.1 received from the operator's browser.
    let stolen = b.session_cookie();
    let thief = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    // It can read the cockpit's pages while the session lives, but no page carries the form
    // key, and a form without it (or with a guess) is refused.
    let page = thief
        .get(srv.url("/crawls/new"))
        .header("cookie", &stolen)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        html.contains(r#"name="csrf" value="""#),
        "no key in the page"
    );
    for guess in ["", "00", &"0".repeat(64)] {
        let r = thief
            .post(srv.url("/crawls/new"))
            .header("cookie", &stolen)
            .header("content-type", FORM)
            .body(stolen_crawl(guess))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "key {guess:?}");
    }
    // The API does not take the cookie at all, however its path is spelt (the router decodes
    // `%61` to `a`).
    for path in [
        "/api/v1/crawls",
        "/metrics",
        "/%61pi/v1/crawls",
        "/ap%69/v1/crawls",
        "/%6detrics",
    ] {
        let r = thief
            .get(srv.url(path))
            .header("cookie", &stolen)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401, "{path}");
    }
    for path in ["/api/v1/crawls", "/%61pi/v1/crawls", "/a%70i/v1/crawls"] {
        let r = thief
            .post(srv.url(path))
            .header("cookie", &stolen)
            .json(&json!({"name": "stolen", "seeds": ["http://127.0.0.1:9/"],
                          "network": {"allow_private": true}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401, "{path}");
    }
    let (_, list) = srv.get_json("/api/v1/crawls").await;
    assert!(names(&list).is_empty(), "{list}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_from_another_origin_of_the_host_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut b = Browser::login(&srv.base, TOKEN).await;
    let key = b.get("/crawls/new").await.csrf();
    let port = srv.base.rsplit_once(':').unwrap().1;
    // The operator's own page passes.
    let own = format!("http://127.0.0.1:{port}");
    for (name, value) in [
        // A page on port 80 or 443 of the same host: the Origin names no port.
        ("origin", "http://127.0.0.1"),
        ("origin", "http://localhost"),
        ("origin", "https://127.0.0.1"),
        ("origin", "http://127.0.0.1:9"),
        // Same site, other origin (a browser that sends no Origin on this request).
        ("sec-fetch-site", "same-site"),
    ] {
        let r = srv
            .client
            .post(srv.url("/crawls/new"))
            .header("cookie", b.session_cookie())
            .header("content-type", FORM)
            .header(name, value)
            .body(stolen_crawl(&key))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{name}: {value}");
        let body = r.text().await.unwrap();
        assert!(body.contains("another origin"), "{body}");
    }
    let (_, list) = srv.get_json("/api/v1/crawls").await;
    assert!(names(&list).is_empty(), "{list}");
    // The login form's token belongs to the browser's own login cookie: a token signed for
    // another visitor's cookie (what `GET /login` hands anyone) does not pass.
    let mut visitor = Browser::new(&srv.base);
    let visitor_token = visitor.get("/login").await.csrf();
    let mut operator = Browser::new(&srv.base);
    operator.get("/login").await;
    let p = operator
        .post("/login", &[("csrf", &visitor_token), ("token", TOKEN)])
        .await;
    assert_eq!(p.status, 403, "{}", p.body);
    // And the page of its own origin still works.
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(srv.url("/crawls/new"))
        .header("cookie", b.session_cookie())
        .header("content-type", FORM)
        .header("origin", own)
        .header("sec-fetch-site", "same-origin")
        .body(form(&[
            ("csrf", &key),
            ("op", "create"),
            ("name", "mine"),
            ("seeds", "http://127.0.0.1:9/"),
            ("network.allow_private", "on"),
            ("frontier.update", "max"),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303, "{}", r.text().await.unwrap());
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_end_at_logout_and_when_idle_and_two_servers_keep_theirs() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestServer::start(&dir.path().join("a"), |_| {}).await;
    let b = TestServer::start(&dir.path().join("b"), |c| {
        c.session_idle = Duration::from_millis(1500);
    })
    .await;
    let mut on_a = Browser::login(&a.base, TOKEN).await;
    let mut on_b = Browser::login(&b.base, TOKEN).await;
    // One browser holds both cookies for 127.0.0.1 and sends both to each port.
    let jar = format!("{}; {}", on_a.session_cookie(), on_b.session_cookie());
    assert_ne!(on_a.session_cookie(), on_b.session_cookie());
    let get = |srv: &TestServer, path: &str| {
        srv.client
            .get(srv.url(path))
            .header("cookie", jar.clone())
            .send()
    };
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    assert_eq!(get(&a, "/").await.unwrap().status(), 200);
    assert_eq!(get(&b, "/").await.unwrap().status(), 200);
    // Logging out of A ends A's session on the server; B's goes on.
    let key = on_a.get("/").await.csrf();
    let p = on_a.post("/logout", &[("csrf", &key)]).await;
    assert_eq!(p.status, 303);
    assert_eq!(p.headers["location"], "/login");
    let cleared = p.headers["set-cookie"].to_str().unwrap().to_string();
    assert!(cleared.contains("Max-Age=0"), "{cleared}");
    let r = no_redirects
        .get(a.url("/"))
        .header("cookie", jar.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303, "the old cookie no longer opens A");
    assert_eq!(get(&b, "/").await.unwrap().status(), 200);
    // B's session ends when left unused longer than its idle limit.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let r = no_redirects
        .get(b.url("/"))
        .header("cookie", jar.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303, "idle session ended");
    assert_eq!(on_b.get("/").await.status, 303);
    a.stop().await;
    b.stop().await;
}

/// Sends a request head that announces a body, then `sent` of it, and waits for the answer.
async fn trickle(addr: &str, path: &str, sent: &[u8]) -> (String, Duration) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {FORM}\r\nContent-Length: 100\r\n\r\n"
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(sent).await.unwrap();
    let t0 = std::time::Instant::now();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(60), s.read_to_end(&mut out)).await;
    (String::from_utf8_lossy(&out).into_owned(), t0.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_body_on_an_open_route_is_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let addr = srv.base.trim_start_matches("http://").to_string();
    let (answer, waited) = trickle(&addr, "/login", b"csrf=").await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("stalled"), "{answer}");
    assert!(waited < Duration::from_secs(30), "closed after {waited:?}");
    // After one request the connection is closed, so the next head cannot be trickled past
    // the head timeout (actix bounds only a connection's first head).
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!("GET /login HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    s.write_all(head.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await;
    assert!(
        read.is_ok(),
        "the server closed the connection after its answer"
    );
    assert!(String::from_utf8_lossy(&out).starts_with("HTTP/1.1 200"));
    // The server still answers.
    assert_eq!(srv.get("/login").send().await.unwrap().status(), 200);
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deeply_nested_query_is_a_400_on_every_route_and_the_server_lives() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    // A crawl with an index: a finished crawl of nothing reachable still has one.
    srv.create(&web_support::idle_spec("c1")).await;
    let deep = format!("{}a{}", "(".repeat(3000), ")".repeat(3000));
    let nine = format!("{}a{}", "(".repeat(9), ")".repeat(9));
    let mut b = Browser::login(&srv.base, TOKEN).await;
    for q in [&deep, &nine] {
        let enc = url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>();
        for path in [
            format!("/api/v1/crawls/c1/search?q={enc}"),
            format!("/api/v1/crawls/c1/exports/preview?q={enc}"),
            format!("/api/v1/crawls/c1/export?q={enc}"),
        ] {
            let r = srv.get(&path).bearer_auth(TOKEN).send().await.unwrap();
            let status = r.status().as_u16();
            let body: serde_json::Value = r.json().await.unwrap();
            assert_eq!(status, 400, "{path}: {body}");
            assert_eq!(body["field"], "q", "{body}");
        }
        let r = srv
            .post("/api/v1/crawls/c1/exports")
            .json(&json!({"name": "sel", "q": q}))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let body = r.text().await.unwrap();
        assert_eq!(status, 400, "{body}");
        let p = b.get(&format!("/crawls/c1/search?q={enc}")).await;
        assert_eq!(p.status, 400, "{}", p.body);
        assert!(p.body.contains("nests parentheses") || p.body.contains("bytes"));
    }
    // A field query the index cannot answer is the client's mistake too.
    for q in ["title:*", "url:*", "body:*"] {
        let r = srv
            .get(&format!(
                "/api/v1/crawls/c1/search?q={}",
                url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()
            ))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        assert!(
            status == 400 || status == 200 || status == 409,
            "{q}: {status}"
        );
        assert_ne!(status, 500, "{q}");
    }
    // Still alive, and searching.
    let r = srv
        .get("/api/v1/crawls/c1/search?q=a")
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_ne!(r.status().as_u16(), 400);
    srv.stop().await;
}

/// A service on another port of 127.0.0.1 (port 80 when it can be had, as in the report):
/// it serves `page` and keeps the `Cookie` header of every request it gets.
async fn other_service(page: String) -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:80").await {
        Ok(l) => l,
        Err(_) => tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
    };
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let (page, kept) = (page.clone(), kept.clone());
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16384];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                for line in head.lines() {
                    if let Some(v) = line.strip_prefix("Cookie: ") {
                        kept.lock().unwrap().push(v.to_string());
                    }
                }
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = s.write_all(reply.as_bytes()).await;
            });
        }
    });
    (port, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attacks_from_a_page_on_another_port_fail_in_chromium() {
    let Some(chrome) = cockpit_support::browser::start().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |c| c.public_reads = false).await;
    let target = srv.base.clone();
    let deep = format!("{}a{}", "(".repeat(3000), ")".repeat(3000));
    let body = stolen_crawl("");
    // The report's attacks: a form posted to the cockpit in the operator's browser (with any
    // token an outsider can make), a no-cors fetch doing the same, and an image whose address
    // is a search nested 3,000 deep (once a stack overflow that aborted the server).
    let page = format!(
        r#"<!doctype html><title>other service</title>
<img src="{target}/crawls/c1/search?q={q}">
<form id="f" method="post" action="{target}/crawls/new">{fields}</form>
<script>
fetch("{target}/crawls/new", {{method: "POST", mode: "no-cors", credentials: "include",
  headers: {{"Content-Type": "{FORM}"}}, body: "{body}"}})
  .finally(() => setTimeout(() => document.getElementById("f").submit(), 300));
</script>"#,
        q = url::form_urlencoded::byte_serialize(deep.as_bytes()).collect::<String>(),
        fields = url::form_urlencoded::parse(body.as_bytes())
            .map(|(k, v)| format!(r#"<input name="{k}" value="{v}">"#))
            .collect::<String>(),
    );
    let (port, seen) = other_service(page).await;
    srv.create(&web_support::idle_spec("c1")).await;
    let c = &chrome.client;
    c.goto(&srv.url(&format!("/?token={TOKEN}"))).await.unwrap();
    // Logged in: the login page handed the form key over and went on to the crawl list.
    for _ in 0..50 {
        if c.current_url().await.unwrap().path() == "/" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(c.current_url().await.unwrap().path(), "/");
    c.goto(&format!("http://127.0.0.1:{port}/attack.html"))
        .await
        .unwrap();
    // The form lands on the cockpit's refusal.
    let mut landed = String::new();
    for _ in 0..100 {
        landed = c.current_url().await.unwrap().to_string();
        if landed.starts_with(&target) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(landed.starts_with(&target), "the form was sent: {landed}");
    let source = c.source().await.unwrap();
    assert!(source.contains("another origin"), "{source}");
    // The other service did get the operator's session cookie from the browser...
    let cookies = seen.lock().unwrap().clone();
    let stolen = cookies
        .iter()
        .flat_map(|c| c.split("; "))
        .find(|c| c.starts_with("magpie_") && c.contains("_session="))
        .unwrap_or_else(|| panic!("the browser sent no session cookie to port {port}: {cookies:?}"))
        .to_string();
    // ... and replaying it from a plain client changes nothing either.
    let r = reqwest::Client::new()
        .post(srv.url("/crawls/new"))
        .header("cookie", &stolen)
        .header("content-type", FORM)
        .body(stolen_crawl(""))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // Nothing was created, and the server is alive.
    let (_, list) = srv.get_json("/api/v1/crawls").await;
    assert_eq!(names(&list), ["c1"], "{list}");
    // The operator's own form, in the same browser, still works.
    c.goto(&srv.url("/")).await.unwrap();
    let start = c
        .find(fantoccini::Locator::Css(
            "form[action='/crawls/c1/action'] button",
        ))
        .await
        .unwrap();
    start.click().await.unwrap();
    let mut state = String::new();
    for _ in 0..50 {
        state = srv.crawl("c1").await["state"].as_str().unwrap().to_string();
        if state != "created" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_ne!(state, "created", "the operator's click started the crawl");
    eprintln!("the other service listened on port {port}");
    chrome.close().await;
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_goes_on_to_paths_of_this_server_only() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    for (path, next) in [
        ("/crawls/new", "/crawls/new"),
        ("//evil.example/", "/"),
        ("/%09/evil.example", "/%09/evil.example"),
    ] {
        let mut b = Browser::new(&srv.base);
        let p = b.get(&format!("{path}?token={TOKEN}")).await;
        assert_eq!(p.status, 200, "{path}");
        assert_eq!(cockpit_support::login_answer(&p.body).1, next, "{path}");
    }
    // The login form's `next`, with a tab that browsers would drop (`/\t/evil.example` is
    // `//evil.example`).
    let mut b = Browser::new(&srv.base);
    let csrf = b.get("/login").await.csrf();
    let p = b
        .post(
            "/login",
            &[
                ("csrf", &csrf),
                ("token", TOKEN),
                ("next", "/\t/evil.example"),
            ],
        )
        .await;
    assert_eq!(p.status, 200);
    assert_eq!(cockpit_support::login_answer(&p.body).1, "/");
    srv.stop().await;
}
