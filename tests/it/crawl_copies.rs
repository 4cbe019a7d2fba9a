//! End-to-end: copies of a page under other URLs (`?ref=` tracking variants, `/print/` views)
//! cost the crawl only the few examples needed to learn that they are copies. After that, the
//! rule skips them; every original is still archived, a parameter that changes the page
//! (`?page=2`) is not learned, and the rule with its evidence is served by the API, shown on the
//! cockpit's hosts page and written to the crawl log.

use crate::cockpit_support;
use crate::support;
use crate::web_support;

use cockpit_support::Browser;
use serde_json::{json, Value};
use support::{FixtureWeb, Reply};
use web_support::{TestServer, TOKEN};

/// Articles on the site; each is linked as itself, with `?ref=home` and as a print view.
const ARTICLES: usize = 24;

fn article(i: usize) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>Article {i}</title></head><body>\
         <p>Article number {i} tells its own story.</p>\
         <p><a href=\"/\">Home</a> <a href=\"/a/{n}.html?ref=next\">next</a> \
         <a href=\"/print/a/{n}.html\">print the next</a></p></body></html>",
        n = (i + 1) % ARTICLES
    )
}

fn home() -> String {
    let mut links = String::new();
    for i in 0..ARTICLES {
        links.push_str(&format!(
            "<li><a href=\"/a/{i}.html\">Article {i}</a> \
             (<a href=\"/a/{i}.html?ref=home\">also</a>, <a href=\"/print/a/{i}.html\">print</a>)</li>"
        ));
    }
    format!(
        "<!DOCTYPE html><html><head><title>Home</title></head><body><ul>{links}</ul>\
         <p><a href=\"/list\">list</a> <a href=\"/list?page=2\">2</a> \
         <a href=\"/list?page=3\">3</a></p></body></html>"
    )
}

/// The reply for a request target: query strings are ignored for articles (as a static server
/// does), a print view serves the article's very bytes, and list pages differ by page.
fn reply(target: &str) -> Reply {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let path = path.strip_prefix("/print").unwrap_or(path);
    if path == "/" {
        return Reply::html(home());
    }
    if path == "/list" {
        return Reply::html(format!(
            "<!DOCTYPE html><html><body><p>List page [{query}]</p></body></html>"
        ));
    }
    match path
        .strip_prefix("/a/")
        .and_then(|p| p.strip_suffix(".html"))
        .and_then(|n| n.parse::<usize>().ok())
    {
        Some(i) if i < ARTICLES => Reply::html(article(i)),
        _ => Reply::not_found(),
    }
}

fn is_copy(target: &str) -> bool {
    target.starts_with("/print/") || target.contains("ref=")
}

fn rule<'a>(c: &'a Value, name: &str) -> Option<&'a Value> {
    c["stats"]["copy_rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copies_cost_only_the_examples_that_teach_the_rule() {
    let web = FixtureWeb::start(1);
    web.route_prefix(0, "/", reply);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = json!({
        "name": "copies",
        "seeds": [web.url(0, "/")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0, "respect_robots": false },
        "limits": { "timeout_ms": 3000 }
    });
    srv.create(&spec).await;
    assert_eq!(srv.action("copies", "start").await.0, 200);
    let c = srv
        .wait_for("copies", 30, "the crawl to finish", |c| {
            c["state"] == "finished"
        })
        .await;

    let targets: Vec<String> = web.hits_for(0).into_iter().map(|h| h.target).collect();
    let copies: Vec<&String> = targets.iter().filter(|t| is_copy(t)).collect();
    eprintln!(
        "{} fetches, {} of them copies: {copies:?}",
        targets.len(),
        copies.len()
    );
    // Three examples adopt each of the two rules; one more of each may be fetched while the
    // rule's last example is on its way back.
    assert!(
        copies.len() <= 8,
        "{} copies fetched: {copies:?}; {}",
        copies.len(),
        c["stats"]
    );
    for i in 0..ARTICLES {
        let path = format!("/a/{i}.html");
        assert!(targets.contains(&path), "{path} fetched: {targets:?}");
    }
    for list in ["/list", "/list?page=2", "/list?page=3"] {
        assert!(targets.iter().any(|t| t == list), "{list} fetched");
    }

    for name in ["param:ref", "segment:print"] {
        let r = rule(&c, name).unwrap_or_else(|| panic!("{name} learned: {c}"));
        assert_eq!(r["state"], "adopted", "{r}");
        assert_eq!(r["counter_examples"], 0, "{r}");
        assert!(r["examples"].as_u64().unwrap() >= 3, "{r}");
        assert!(r["skipped"].as_u64().unwrap() >= 10, "{r}");
        assert_eq!(r["evidence"].as_array().unwrap().len(), 3, "{r}");
    }
    assert!(
        rule(&c, "param:page").is_none_or(|r| r["state"] != "adopted"),
        "a parameter that changes the page is not learned: {c}"
    );
    let skipped = c["stats"]["out_of_scope_by_reason"]["copy"]
        .as_u64()
        .unwrap();
    assert!(
        skipped as usize + copies.len() >= 2 * ARTICLES + 2 * ARTICLES / 2,
        "every variant link fetched or skipped: {skipped} skipped"
    );

    // The cockpit's hosts page shows the rules with their evidence.
    let mut b = Browser::login(&srv.base, TOKEN).await;
    let page = b.get("/crawls/copies/hosts").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("id=\"copy-rules\""), "{}", page.body);
    assert!(page.body.contains("param:ref") && page.body.contains("segment:print"));
    assert!(page.body.contains("?ref="), "evidence URLs shown");

    // The crawl log tells each adoption and each skipped copy.
    let log = std::fs::read_to_string(dir.path().join("copies/logs/crawl.log")).unwrap();
    assert!(log.contains("copy-rule-adopted:param:ref"), "{log}");
    assert!(log.contains("copy-rule-adopted:segment:print"), "{log}");
    let refused = log
        .lines()
        .filter(|l| l.contains(" -4000 ") && l.contains("copy:"))
        .count();
    assert!(refused >= 10, "{refused} refusals logged");
    srv.stop().await;
}
