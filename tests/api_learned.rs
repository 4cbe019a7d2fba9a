//! Over real HTTP: what a topical crawl of the fixture web learned — the topic's top terms,
//! live relevance figures and recent fetches with their score components in the crawl view,
//! and the helper's relaxations (open crawls only).

mod support;
mod web_support;

use serde_json::json;
use support::{FixtureWeb, Reply};
use web_support::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topic_terms_focus_figures_and_relaxations_are_served() {
    let web = FixtureWeb::start(1);
    web.route(
        0,
        "/",
        Reply::html(
            "<!DOCTYPE html><html lang=\"en\"><head><title>Solar power</title></head><body>\
             <p>Solar power and photovoltaic panels for homes.</p>\
             <p><a href=\"/panels.html\">photovoltaic panels</a></p></body></html>",
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
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = json!({
        "name": "learn",
        "seeds": [web.url(0, "/")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000 },
        "topic": { "keywords": ["solar power"] }
    });
    srv.create(&spec).await;
    // Nothing is published before the crawl first runs.
    let (status, t) = srv.get_json("/api/v1/crawls/learn/topic").await;
    assert_eq!(status, 200, "{t}");
    assert!(
        t["terms"].as_array().unwrap().is_empty(),
        "not run yet: {t}"
    );

    let (status, _) = srv.action("learn", "start").await;
    assert_eq!(status, 200);
    let c = srv
        .wait_for("learn", 20, "the crawl to finish", |c| {
            c["state"] == "finished"
        })
        .await;
    assert_eq!(c["stats"]["pages_analysed"], 2, "{c}");
    assert!(c["focus"]["harvest_ratio"].as_f64().unwrap() > 0.0, "{c}");
    let recent = c["focus"]["recent"].as_array().unwrap();
    let panels = recent
        .iter()
        .find(|r| r["url"].as_str().unwrap().ends_with("/panels.html"))
        .expect("panels in recent fetches");
    assert!(
        panels["components"]["anchor"].as_f64().unwrap() > 0.0,
        "{panels}"
    );
    assert_eq!(c["focus"]["languages"]["en"], 2);

    // The seed page was learned into the topic: its words now weigh in.
    let (_, t) = srv.get_json("/api/v1/crawls/learn/topic?n=50").await;
    let terms: Vec<&str> = t["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["term"].as_str().unwrap())
        .collect();
    assert!(
        terms.iter().any(|x| x.starts_with("photovolta")),
        "{terms:?}"
    );
    let (status, _) = srv.get_json("/api/v1/crawls/learn/topic?n=x").await;
    assert_eq!(status, 400);
    let (status, _) = srv.get_json("/api/v1/crawls/nope/topic").await;
    assert_eq!(status, 404);

    // The helper's memory is only open while the crawl is.
    let (status, body) = srv.get_json("/api/v1/crawls/learn/relaxations").await;
    assert_eq!(status, 409, "{body}");
    srv.stop().await;
}
