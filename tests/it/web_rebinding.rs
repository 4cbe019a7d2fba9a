//! DNS rebinding against `magpie serve`: a page whose name (`evil.example`) is rebound to
//! 127.0.0.1 sends its own name in `Host` and `Origin`. It must get nothing: no page (so no
//! anti-forgery token), no API read, no crawl created, no token. Forwarded headers never make a
//! foreign origin pass, and no page shows the API token.

use crate::web_support;

use regex::Regex;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use web_support::{TestServer, TOKEN};

/// One raw HTTP/1.1 exchange with exactly these headers (no client adds or fixes any).
async fn raw(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text[9..12].parse().unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Reply {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn session(&self) -> String {
        let re = Regex::new(r"(?i)set-cookie: (magpie_[0-9]+_session=[0-9a-f]+)").unwrap();
        re.captures(&self.head).expect("a session cookie")[1].to_string()
    }
    fn form_key(&self) -> String {
        let re = Regex::new(r#"data-form-key="([0-9a-f]+)""#).unwrap();
        re.captures(&self.body).expect("a form key")[1].to_string()
    }
}

/// A request as (method, path, headers, body).
type Attempt<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, &'a str);

const FORM: &str = "application/x-www-form-urlencoded";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebound_name_gets_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let addr = srv.base.trim_start_matches("http://").to_string();
    let port = addr.rsplit_once(':').unwrap().1.to_string();
    let evil_host = format!("evil.example:{port}");
    let evil_origin = format!("http://{evil_host}");
    // The operator made a crawl; its intake page is what once showed the token.
    srv.create(&web_support::idle_spec("c1")).await;

    let evil = [
        ("Host", evil_host.as_str()),
        ("Origin", evil_origin.as_str()),
    ];
    let spec = json!({"name": "stolen", "seeds": ["http://127.0.0.1:9/"],
                      "network": {"allow_private": true}})
    .to_string();
    let form = "csrf=00&op=create&name=stolen&seeds=http%3A%2F%2F127.0.0.1%3A9%2F";
    let with = |extra: (&'static str, &'static str)| {
        let mut h = evil.to_vec();
        h.push(extra);
        h
    };
    let attempts: Vec<Attempt> = vec![
        ("GET", "/", evil.to_vec(), ""),
        ("GET", "/kb", evil.to_vec(), ""),
        ("GET", "/crawls/new", evil.to_vec(), ""),
        ("GET", "/crawls/c1/intake", evil.to_vec(), ""),
        ("GET", "/api/v1/crawls", evil.to_vec(), ""),
        ("GET", "/api/v1/crawls/c1", evil.to_vec(), ""),
        (
            "POST",
            "/api/v1/crawls",
            with(("Content-Type", "application/json")),
            &spec,
        ),
        ("POST", "/crawls/new", with(("Content-Type", FORM)), form),
        (
            "POST",
            "/crawls/c1/action",
            with(("Content-Type", FORM)),
            "csrf=00&action=start",
        ),
        // Forwarded headers naming the real server do not help.
        (
            "GET",
            "/crawls/new",
            with(("X-Forwarded-Host", "127.0.0.1")),
            "",
        ),
        (
            "GET",
            "/api/v1/crawls",
            with(("Forwarded", "host=localhost")),
            "",
        ),
    ];
    for (method, path, headers, body) in attempts {
        let r = raw(&addr, method, path, &headers, body).await;
        assert_eq!(r.status, 421, "{method} {path}: {}", r.body);
        assert!(r.body.contains("does not answer to the host"), "{}", r.body);
        assert!(
            !r.body.contains("csrf"),
            "no anti-forgery token: {}",
            r.body
        );
        assert!(!r.body.contains(TOKEN), "no API token");
        assert!(
            !r.head.to_ascii_lowercase().contains("set-cookie"),
            "no cookie"
        );
    }

    // Even with a real session and its form key, a form sent from the rebound origin is
    // refused, forwarded headers or not.
    let own = [("Host", addr.as_str())];
    let login = raw(&addr, "GET", &format!("/?token={TOKEN}"), &own, "").await;
    assert_eq!(login.status, 200);
    let session = login.session();
    let logged_in = [("Host", addr.as_str()), ("Cookie", session.as_str())];
    let page = raw(&addr, "GET", "/crawls/new", &logged_in, "").await;
    assert_eq!(page.status, 200);
    let (cookie, csrf) = (session.clone(), login.form_key());
    let form = format!("csrf={csrf}&op=create&name=stolen&seeds=http%3A%2F%2F127.0.0.1%3A9%2F");
    for forwarded in [
        ("X-Forwarded-Host", evil_host.as_str()),
        ("Forwarded", "proto=http"),
    ] {
        let headers = [
            ("Host", addr.as_str()),
            ("Origin", evil_origin.as_str()),
            ("Cookie", cookie.as_str()),
            ("Content-Type", FORM),
            forwarded,
        ];
        let r = raw(&addr, "POST", "/crawls/new", &headers, &form).await;
        assert_eq!(r.status, 403, "{}", r.body);
        assert!(r.body.contains("another origin"), "{}", r.body);
    }

    // Nothing was created; only the operator's crawl exists.
    let (_, list) = srv.get_json("/api/v1/crawls").await;
    let names: Vec<&str> = list["crawls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["c1"]);
    assert!(!dir.path().join("stolen").exists());

    // The server still answers to its own names, and no page shows the token.
    for host in [
        addr.clone(),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ] {
        let r = raw(
            &addr,
            "GET",
            "/crawls/c1/intake",
            &[("Host", host.as_str()), ("Cookie", session.as_str())],
            "",
        )
        .await;
        assert_eq!(r.status, 200, "{host}");
        assert!(
            !r.body.contains(TOKEN),
            "the intake page never shows the token"
        );
        assert!(
            r.body.contains(&format!("http://{host}/api/v1/urls")),
            "{}",
            r.body
        );
    }
    let r = raw(&addr, "POST", "/crawls/c1/intake", &logged_in, "").await;
    // The intake form posts scored URLs (with the form key, which this request lacks); it never
    // answers with the token.
    assert_eq!(r.status, 403, "no form key: {}", r.body);
    assert!(!r.body.contains(TOKEN));
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configured_names_are_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |c| {
        c.allowed_hosts = vec!["crawler.lan".into()];
    })
    .await;
    let addr = srv.base.trim_start_matches("http://").to_string();
    let port = addr.rsplit_once(':').unwrap().1;
    let lan = format!("crawler.lan:{port}");
    let r = raw(
        &addr,
        "GET",
        "/api/v1/crawls",
        &[("Host", lan.as_str())],
        "",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let other = format!("crawler.lan.evil.example:{port}");
    let r = raw(
        &addr,
        "GET",
        "/api/v1/crawls",
        &[("Host", other.as_str())],
        "",
    )
    .await;
    assert_eq!(r.status, 421);
    srv.stop().await;
}
