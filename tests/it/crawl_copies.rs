//! End-to-end: copies of a page under other URLs (`?ref=` tracking variants, `/print/` views,
//! a final slash) cost the crawl only the few examples needed to learn that they are copies.
//! After that, the rule skips them; every original is still archived, a parameter that changes
//! the page (`?page=2`) is not learned, a slashed URL that its bare one redirects to is still
//! fetched, and the rule with its evidence is served by the API, shown on the cockpit's hosts
//! page and written to the crawl log.

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

/// Crawls the fixture web's first host from `/` with no delay, to the end: the server, its
/// folder and the finished crawl's status.
async fn crawl(web: &FixtureWeb, name: &str) -> (tempfile::TempDir, TestServer, Value) {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = json!({
        "name": name,
        "seeds": [web.url(0, "/")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0, "respect_robots": false },
        "limits": { "timeout_ms": 3000 }
    });
    srv.create(&spec).await;
    assert_eq!(srv.action(name, "start").await.0, 200);
    let c = srv
        .wait_for(name, 30, "the crawl to finish", |c| {
            c["state"] == "finished"
        })
        .await;
    (dir, srv, c)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copies_cost_only_the_examples_that_teach_the_rule() {
    let web = FixtureWeb::start(1);
    web.route_prefix(0, "/", reply);
    let (dir, srv, c) = crawl(&web, "copies").await;

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

/// Threads on the second site; each is linked as itself and with a final slash (djeddit's
/// comment links), served alike; folders `/d/N` redirect to `/d/N/`, the page.
const THREADS: usize = 16;

fn slashed_site(target: &str) -> Reply {
    let path = target.split_once('?').map_or(target, |(p, _)| p);
    if path == "/" {
        // The threads first, so that the rule is adopted before the folders' redirects come.
        let mut links = String::new();
        for i in 0..THREADS {
            links.push_str(&format!(
                "<li><a href=\"/t/{i}/thread-{i}\">Thread {i}</a> \
                 <a href=\"/t/{i}/thread-{i}/#comments\">2 comments</a></li>"
            ));
        }
        for i in 0..THREADS {
            links.push_str(&format!("<li><a href=\"/d/{i}\">folder {i}</a></li>"));
        }
        return Reply::html(format!(
            "<!DOCTYPE html><html><head><title>Threads</title></head><body><ul>{links}</ul></body></html>"
        ));
    }
    let thread = path
        .strip_prefix("/t/")
        .and_then(|p| p.split_once('/'))
        .and_then(|(n, rest)| Some((n.parse::<usize>().ok()?, rest)));
    if let Some((i, rest)) = thread {
        if i < THREADS && rest.trim_end_matches('/') == format!("thread-{i}") {
            return Reply::html(format!(
                "<!DOCTYPE html><html><head><title>Thread {i}</title></head><body>\
                 <p>Thread {i} and its two comments.</p><p><a href=\"/\">Home</a></p></body></html>"
            ));
        }
    }
    match path.strip_prefix("/d/") {
        Some(n) if !n.ends_with('/') => Reply::redirect(301, &format!("/d/{n}/")),
        Some(n) => Reply::html(format!(
            "<!DOCTYPE html><html><body><p>Folder {n}</p></body></html>"
        )),
        None => Reply::not_found(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_served_with_and_without_a_final_slash_is_fetched_once_after_the_examples() {
    let web = FixtureWeb::start(1);
    web.route_prefix(0, "/", slashed_site);
    let (_dir, srv, c) = crawl(&web, "slashes").await;
    let targets: Vec<String> = web.hits_for(0).into_iter().map(|h| h.target).collect();
    let copies: Vec<&String> = targets
        .iter()
        .filter(|t| t.starts_with("/t/") && t.ends_with('/'))
        .collect();
    // Three examples adopt the rule; one more may be on its way back meanwhile.
    assert!(
        copies.len() <= 4,
        "{} copies fetched: {copies:?}",
        copies.len()
    );
    for i in 0..THREADS {
        let thread = format!("/t/{i}/thread-{i}");
        assert!(targets.contains(&thread), "{thread} fetched: {targets:?}");
        // Where the bare URL redirects to the slashed one, the slashed one is the page.
        let folder = format!("/d/{i}/");
        assert!(targets.contains(&folder), "{folder} fetched: {targets:?}");
    }
    let r = rule(&c, "slash:final").unwrap_or_else(|| panic!("slash:final learned: {c}"));
    assert_eq!(r["state"], "adopted", "{r}");
    assert_eq!(r["counter_examples"], 0, "{r}");
    assert!(r["skipped"].as_u64().unwrap() >= 10, "{r}");
    srv.stop().await;
}
