//! The cockpit's XPath tester cannot crash or stall the server: expressions nested too deep or
//! too long are refused before the XPath engine sees them (1,500 nested parentheses once
//! overflowed a worker's stack and aborted the process), an expensive expression is given up
//! after the time budget, and no more than two evaluations burn CPU at once.

mod cockpit_support;
mod web_support;

use cockpit_support::Browser;
use std::time::{Duration, Instant};
use web_support::TestServer;

const PAGE: &str = "<html><body><p>one</p><p>two</p></body></html>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_and_long_expressions_get_400_and_the_server_stays_up() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let csrf = b.get("/kb").await.csrf();
    let deep = format!("{}1{}", "(".repeat(1500), ")".repeat(1500));
    let long = format!("//p[@class='{}']", "x".repeat(5000));
    let cases = [
        (deep.as_str(), "nests 1500 levels deep"),
        (long.as_str(), "at most 4096 are accepted"),
    ];
    for (expr, why) in cases {
        let p = b
            .post("/kb", &[("csrf", &csrf), ("expr", expr), ("html", PAGE)])
            .await;
        assert_eq!(p.status, 400, "{}", &p.body[..p.body.len().min(2000)]);
        assert!(p.body.contains("id=\"xpath-error\""));
        assert!(p.body.contains(why), "{why}");
    }
    // Still up, and still testing.
    let p = b
        .post("/kb", &[("csrf", &csrf), ("expr", "//p"), ("html", PAGE)])
        .await;
    assert_eq!(p.status, 200);
    assert!(p.body.contains("<strong id=\"match-count\">2</strong>"));
    let big = format!("<p>{}</p>", "x".repeat(2 * 1024 * 1024));
    let resp = srv
        .client
        .post(srv.url("/kb"))
        .header("cookie", b.session_cookie())
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        413,
        "a huge form is refused before it is read"
    );
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expensive_expressions_are_given_up_and_bounded_in_number() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |c| {
        c.xpath_budget = Duration::from_millis(100);
    })
    .await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let csrf = b.get("/kb").await.csrf();
    // Quadratic: each p counts every p before it.
    let html = format!("<html><body>{}</body></html>", "<p>x</p>".repeat(6000));
    let slow = "//p[count(preceding::p)>0]";
    let mut answers = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        let p = b
            .post("/kb", &[("csrf", &csrf), ("expr", slow), ("html", &html)])
            .await;
        assert!(
            t0.elapsed() < Duration::from_secs(2),
            "answered within the budget"
        );
        answers.push(p);
    }
    for p in &answers[..2] {
        assert_eq!(p.status, 503);
        assert!(p.body.contains("took longer than 100 ms"), "{}", p.body);
    }
    assert_eq!(answers[2].status, 503, "two evaluations still run");
    assert!(answers[2].body.contains("busy"), "{}", answers[2].body);
    // Pages and the API still answer at once.
    let t0 = Instant::now();
    assert_eq!(b.get("/").await.status, 200);
    assert_eq!(srv.get_json("/api/v1/crawls").await.0, 200);
    assert!(t0.elapsed() < Duration::from_secs(1));
    srv.stop().await;
}
