//! Crawl workflows and the dashboard's events log: "Run again" (in the cockpit and the API)
//! makes a new crawl with the same spec under a new name, both runs are listed under their
//! workflow (over a restart too), the old crawl is left as it was; the notable events are on the
//! dashboard when it is opened after they happened, and after a restart.

use crate::cockpit_support;
use crate::support;
use crate::web_support;

use cockpit_support::Browser;
use serde_json::{json, Value};
use web_support::TestServer;

fn spec(name: &str, seed: &str) -> Value {
    json!({
        "name": name,
        "seeds": [seed],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "topic": { "keywords": ["many"] },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000, "max_retries": 0, "retry_delay_ms": 10 }
    })
}

async fn ended(srv: &TestServer, id: &str) -> Value {
    srv.wait_for(id, 60, "the crawl to end", |c| c["state"] == "finished")
        .await
}

/// The spec as served, without its name.
async fn spec_of(srv: &TestServer, id: &str) -> Value {
    let mut s = srv.crawl(id).await["spec"].clone();
    s.as_object_mut().unwrap().remove("name");
    s
}

/// The runs the workflows page lists under `workflow`, in order.
fn runs_listed(html: &str, workflow: &str) -> Vec<(String, String)> {
    let section = html
        .split(&format!("data-workflow=\"{workflow}\""))
        .nth(1)
        .unwrap_or_else(|| panic!("no workflow {workflow} in:\n{html}"));
    let section = section.split("</section>").next().unwrap();
    let re =
        regex::Regex::new(r#"data-run="([^"]+)"[\s\S]*?class="state state-([a-z-]+)""#).unwrap();
    re.captures_iter(section)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_again_makes_a_new_crawl_of_the_same_spec_listed_under_its_workflow() {
    let web = support::FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 4);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&spec("birds", &seed)).await;
    srv.action("birds", "start").await;
    let first = ended(&srv, "birds").await;
    let pages = first["stats"]["pages_fetched"].as_u64().unwrap();
    assert!(pages >= 5, "{first}");
    assert_eq!(first["workflow"], "birds");

    // Run again from the dashboard's button: a new crawl, started, and its dashboard shown.
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let dash = b.get("/crawls/birds").await;
    assert!(
        dash.body.contains(r#"value="rerun" id="action-rerun""#),
        "{}",
        dash.body
    );
    let key = dash.csrf();
    let moved = b
        .post(
            "/crawls/birds/action",
            &[
                ("action", "rerun"),
                ("csrf", &key),
                ("next", "/crawls/birds"),
            ],
        )
        .await;
    assert_eq!(moved.status, 303, "{}", moved.body);
    assert_eq!(moved.headers["location"], "/crawls/birds-2");
    let second = ended(&srv, "birds-2").await;
    assert_eq!(second["workflow"], "birds");
    assert_eq!(
        second["stats"]["pages_fetched"], pages,
        "a new crawl fetches the site anew: {second}"
    );
    assert_eq!(spec_of(&srv, "birds-2").await, spec_of(&srv, "birds").await);
    // The first run is left as it was.
    let before = srv.crawl("birds").await;
    assert_eq!(before["stats"]["pages_fetched"], pages);
    assert_eq!(before["outcome"]["kind"], "completed");
    let dash = b.get("/crawls/birds-2").await;
    assert!(
        dash.body.contains("A run of the workflow <b>birds</b>"),
        "{}",
        dash.body
    );

    // Through the API, from the second run: the third of the same workflow.
    let (status, third) = srv
        .post_json("/api/v1/crawls/birds-2/rerun", &json!({}))
        .await;
    assert_eq!(status, 201, "{third}");
    assert_eq!(
        (&third["id"], &third["workflow"]),
        (&json!("birds-3"), &json!("birds"))
    );
    ended(&srv, "birds-3").await;
    let (status, _) = srv.post_json("/api/v1/crawls/nope/rerun", &json!({})).await;
    assert_eq!(status, 404);

    let (status, list) = srv.get_json("/api/v1/workflows").await;
    assert_eq!(status, 200, "{list}");
    let w = &list["workflows"][0];
    assert_eq!(list["workflows"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(w["id"], "birds");
    assert_eq!(w["seeds"], json!([seed]));
    let ids: Vec<&str> = w["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["birds", "birds-2", "birds-3"]);

    // The workflows page lists the runs with their outcome; so does it after a restart (the
    // relationship is kept in each run's status.json).
    let page = b.get("/workflows").await;
    assert_eq!(page.status, 200);
    let want: Vec<(String, String)> = ["birds", "birds-2", "birds-3"]
        .iter()
        .map(|id| (id.to_string(), "completed".to_string()))
        .collect();
    assert_eq!(runs_listed(&page.body, "birds"), want, "{}", page.body);
    assert!(page.body.contains("<time datetime=\""), "creation times");
    srv.stop().await;
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let page = b.get("/workflows").await;
    assert_eq!(runs_listed(&page.body, "birds"), want, "{}", page.body);
    assert_eq!(srv.crawl("birds-3").await["workflow"], "birds");
    // Run again from the workflows page runs the latest run's spec: the fourth.
    let key = page.csrf();
    let moved = b
        .post(
            "/crawls/birds-3/action",
            &[("action", "rerun"), ("csrf", &key)],
        )
        .await;
    assert_eq!(moved.headers["location"], "/crawls/birds-4");
    ended(&srv, "birds-4").await;
    srv.stop().await;
}

/// The event log's entries in a dashboard: (kind, detail).
fn logged(html: &str) -> Vec<(String, String)> {
    let log = html
        .split(r#"<ol class="events" id="events""#)
        .nth(1)
        .expect("the events log")
        .split("</ol>")
        .next()
        .unwrap();
    let re = regex::Regex::new(r#"<li data-kind="([a-z-]+)"><time datetime="[0-9TZ:-]{20}">[^<]*</time> [a-z-]+: ([^<]*)</li>"#).unwrap();
    re.captures_iter(log)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_events_log_is_there_after_a_reload_and_a_restart() {
    // Its seed never answers for 10 s: the crawl cannot end between `start` and `pause`.
    let (_hole, seed) = web_support::black_hole();
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut idle = web_support::idle_spec("ev");
    idle["seeds"] = json!([seed]);
    idle["limits"]["timeout_ms"] = json!(10_000);
    srv.create(&idle).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    assert!(logged(&b.get("/crawls/ev").await.body).is_empty());
    srv.action("ev", "start").await;
    srv.action("ev", "pause").await;
    srv.wait_for("ev", 10, "the pause", |c| c["state"] == "paused")
        .await;
    // The engine tells of its pause as it takes it.
    let mut events = vec![];
    for _ in 0..100 {
        events = logged(&b.get("/crawls/ev").await.body);
        if events.iter().any(|(k, _)| k == "crawl-paused") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        events.last().map(|e| e.0.as_str()),
        Some("crawl-started"),
        "oldest last: {events:?}"
    );
    assert!(
        events.iter().any(|(k, d)| k == "crawl-paused" && d == "ev"),
        "{events:?}"
    );
    srv.action("ev", "stop").await;
    ended(&srv, "ev").await;
    let html = b.get("/crawls/ev").await.body;
    let before = logged(&html);
    assert_eq!(before[0].0, "crawl-finished", "newest first: {before:?}");

    // Kept with the crawl's status: the same log after a restart.
    srv.stop().await;
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let after = logged(&b.get("/crawls/ev").await.body);
    assert_eq!(after, before);
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chromium_run_again_opens_the_new_run_and_the_log_survives_a_reload() {
    use fantoccini::Locator;
    let Some(browser) = cockpit_support::browser::start().await else {
        return;
    };
    let web = support::FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 3);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&spec("owls", &seed)).await;
    srv.action("owls", "start").await;
    ended(&srv, "owls").await;
    let c = &browser.client;
    c.goto(&srv.url(&format!("/crawls/owls?token={}", web_support::TOKEN)))
        .await
        .unwrap();
    // Opened after the crawl ended: the log already tells how it went.
    let first = c
        .find(Locator::Css("#events li[data-kind='crawl-finished']"))
        .await
        .expect("the crawl's end in the log");
    assert!(first.text().await.unwrap().contains("owls"));
    c.find(Locator::Id("action-rerun"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let mut url = String::new();
    for _ in 0..100 {
        url = c.current_url().await.unwrap().to_string();
        if url.ends_with("/crawls/owls-2") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(url, srv.url("/crawls/owls-2"));
    let run = c.find(Locator::Id("workflow")).await.unwrap();
    assert!(run
        .text()
        .await
        .unwrap()
        .contains("A run of the workflow owls"));
    ended(&srv, "owls-2").await;
    // A reload shows the events the stream told before it.
    c.refresh().await.unwrap();
    let kinds = {
        let mut kinds = vec![];
        for li in c.find_all(Locator::Css("#events li")).await.unwrap() {
            kinds.push(li.attr("data-kind").await.unwrap().unwrap_or_default());
        }
        kinds
    };
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("crawl-finished"),
        "{kinds:?}"
    );
    assert!(kinds.iter().any(|k| k == "crawl-started"), "{kinds:?}");
    // The workflows page, reached from the dashboard's link, lists both runs.
    c.find(Locator::LinkText("its runs"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let rows = c
        .find_all(Locator::Css("[data-workflow='owls'] tr[data-run]"))
        .await
        .unwrap();
    let mut runs = vec![];
    for r in rows {
        runs.push(r.attr("data-run").await.unwrap().unwrap_or_default());
    }
    assert_eq!(runs, ["owls", "owls-2"]);
    browser.screenshot("workflows").await;
    browser.close().await;
    srv.stop().await;
}
