//! The reports, the log viewer and the URL story over a real crawl of a loopback web: the
//! per-host, MIME-type and status-code figures equal what the crawl log (read here on its own)
//! and the capture index (through the search API) hold, after the crawl has finished; the log
//! viewer's filters and pages; the story of a fetched URL, of URLs refused by robots.txt and by
//! scope, and of a redirect and its target; crawled text escaped on every page.

use crate::cockpit_support;
use crate::support;
use crate::web_support;

use cockpit_support::Browser;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use support::{page, FixtureWeb, Reply};
use web_support::TestServer;

/// The fixture site: a start page linking to pages, a redirect, a 404, a robots.txt-disallowed
/// page, a page the scope denies, a file with a hostile media type, and a page on a second host.
fn site(web: &FixtureWeb) -> String {
    let other = web.url(1, "/other.html");
    web.route(
        0,
        "/robots.txt",
        Reply::typed("text/plain", "User-agent: *\nDisallow: /private/\n"),
    );
    web.route(
        0,
        "/start.html",
        Reply::html(page(
            "Start",
            "",
            &[
                "/a.html",
                "/b.html",
                "/old.html",
                "/missing.html",
                "/private/secret.html",
                "/denied/x.html",
                "/weird.bin",
                &other,
            ],
        )),
    );
    web.route(0, "/a.html", Reply::html(page("A", "", &["/b.html"])));
    web.route(0, "/b.html", Reply::html(page("B", "", &[])));
    web.route(0, "/old.html", Reply::redirect(301, "/new.html"));
    web.route(0, "/new.html", Reply::html(page("New", "", &[])));
    web.route(0, "/missing.html", Reply::status(404));
    web.route(
        0,
        "/weird.bin",
        Reply::typed("application/x-<i>evil</i>", b"not really".to_vec()),
    );
    web.route(1, "/other.html", Reply::html(page("Other", "", &[])));
    web.url(0, "/start.html")
}

/// Log lines as the test reads them on its own: (status, size, url, hops, mime, notes).
fn read_log(data: &std::path::Path, crawl: &str) -> Vec<Vec<String>> {
    let dir = data.join(crawl).join("logs");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .collect();
    names.sort_by_key(|n| (n == "crawl.log", n.clone()));
    names
        .iter()
        .flat_map(|n| {
            std::fs::read_to_string(dir.join(n))
                .unwrap()
                .lines()
                .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn host_of(url: &str) -> String {
    let u = url::Url::parse(url).unwrap();
    match u.port() {
        Some(p) => format!("{}:{p}", u.host_str().unwrap()),
        None => u.host_str().unwrap().to_string(),
    }
}

/// The text of the table cell `data-col="COL"` in the row `data-ATTR="KEY"`.
fn cell(html: &str, attr: &str, key: &str, col: &str) -> String {
    let row_start = html
        .find(&format!("<tr data-{attr}=\"{key}\""))
        .unwrap_or_else(|| panic!("no row {key} in:\n{html}"));
    let row = &html[row_start..];
    let row = &row[..row.find("</tr>").unwrap()];
    let at = row
        .find(&format!("data-col=\"{col}\""))
        .unwrap_or_else(|| panic!("no {col} in {row}"));
    let rest = &row[at..];
    let start = rest.find('>').unwrap() + 1;
    rest[start..start + rest[start..].find('<').unwrap()].to_string()
}

/// Every `href` of a page that starts with `prefix`, decoded of `&amp;`.
fn links(html: &str, prefix: &str) -> Vec<String> {
    html.match_indices(&format!("href=\"{prefix}"))
        .map(|(i, _)| {
            let s = &html[i + 6..];
            s[..s.find('"').unwrap()]
                .replace("&#38;", "&")
                .replace("&amp;", "&")
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_log_and_url_stories_tell_what_the_crawl_did() {
    let web = FixtureWeb::start(2);
    let seed = site(&web);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let id = srv
        .create(&json!({
            "name": "rep",
            "seeds": [seed],
            "network": { "allow_private": true },
            "scope": { "sitemaps": false, "deny": ["/denied/"] },
            "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
            "limits": { "timeout_ms": 3000, "max_retries": 0, "retry_delay_ms": 10 }
        }))
        .await;
    srv.action(&id, "start").await;
    srv.wait_for(&id, 60, "the crawl to end", |c| c["state"] == "finished")
        .await;

    // What the log says, read here on its own.
    let lines = read_log(dir.path(), &id);
    assert!(lines.iter().all(|l| l.len() == 12), "{lines:?}");
    let mut by_host: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    let mut by_status: BTreeMap<String, u64> = BTreeMap::new();
    let mut html_responses = 0;
    for l in &lines {
        let status: i32 = l[1].parse().unwrap();
        let h = by_host.entry(host_of(&l[3])).or_default();
        *by_status.entry(l[1].clone()).or_default() += 1;
        if status > 0 {
            h.0 += 1;
            h.1 += l[2].parse::<u64>().unwrap();
            if l[6] == "text/html" {
                html_responses += 1;
            }
        } else if [-7, -4000, -5000, -9998].contains(&status) {
            h.2 += 1;
        }
    }
    assert_eq!(by_status["-9998"], 1, "{lines:?}");
    // The scope denies /denied/, and the second host (another address) is off scope.
    assert_eq!(by_status["-5000"], 2, "{lines:?}");
    assert_eq!(by_status["404"], 1);
    assert_eq!(by_status["301"], 1);
    let h0 = host_of(&seed);
    let h1 = host_of(&web.url(1, "/"));

    // The API's reports equal the log, and the index's captures per host the search's count.
    let (status, rep) = srv.get_json(&format!("/api/v1/crawls/{id}/reports")).await;
    assert_eq!(status, 200, "{rep}");
    assert_eq!(rep["log_lines"], lines.len() as u64);
    for (host, (responses, bytes, refused)) in &by_host {
        let row = rep["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["host"] == host.as_str())
            .unwrap_or_else(|| panic!("{host} in {rep}"));
        assert_eq!(row["log"]["responses"], *responses, "{row}");
        assert_eq!(row["log"]["bytes"], *bytes, "{row}");
        assert_eq!(row["log"]["refused"], *refused, "{row}");
        let (_, found) = srv
            .get_json(&format!(
                "/api/v1/crawls/{id}/search?host={}&kind=page&per_page=1",
                urlencoding(host)
            ))
            .await;
        let captures = row["index"]["captures"].as_u64().unwrap_or(0);
        assert_eq!(Some(captures), found["total"].as_u64(), "{row} vs {found}");
    }
    let code = |k: &str| -> Value {
        rep["status_codes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == k)
            .cloned()
            .unwrap_or_else(|| panic!("{k} in {rep}"))
    };
    assert_eq!(code("-9998")["meaning"], "refused: robots.txt");
    assert_eq!(code("200")["lines"], by_status["200"]);
    let mime = |k: &str| -> Value {
        rep["mime_types"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == k)
            .cloned()
            .unwrap_or_else(|| panic!("{k} in {rep}"))
    };
    assert_eq!(mime("text/html")["lines"], html_responses);

    // The pages, logged in, after the crawl: the hosts page has per-host figures.
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let hosts = b.get(&format!("/crawls/{id}/hosts")).await;
    assert_eq!(hosts.status, 200, "{}", hosts.body);
    assert!(hosts.body.contains("id=\"hosts-closed\""), "{}", hosts.body);
    for (host, (responses, _, refused)) in &by_host {
        assert_eq!(
            cell(&hosts.body, "host", host, "responses"),
            responses.to_string()
        );
        assert_eq!(
            cell(&hosts.body, "host", host, "refused"),
            refused.to_string()
        );
    }
    assert!(hosts
        .body
        .contains(&format!("/crawls/{id}/search?host={}", urlencoding(&h0))));
    assert!(hosts
        .body
        .contains(&format!("/crawls/{id}/export?host={}", urlencoding(&h1))));

    // The MIME-type and status-code reports, their links into search, and escaping.
    let reports = b.get(&format!("/crawls/{id}/reports")).await;
    assert_eq!(reports.status, 200, "{}", reports.body);
    assert_eq!(
        cell(&reports.body, "key", "text/html", "lines"),
        html_responses.to_string()
    );
    assert_eq!(cell(&reports.body, "key", "404", "lines"), "1");
    assert!(!reports.body.contains("<i>evil"), "{}", reports.body);
    assert!(reports.body.contains("application/x-&#60;i&#62;evil"));
    let search_404 = links(
        &reports.body,
        &format!("/crawls/{id}/search?q=status%3A404"),
    );
    assert_eq!(search_404.len(), 1, "{}", reports.body);
    let found = b.get(&search_404[0]).await;
    assert_eq!(found.status, 200, "{}", found.body);
    assert!(found.body.contains("/missing.html"), "{}", found.body);
    let (_, html_search) = srv
        .get_json(&format!(
            "/api/v1/crawls/{id}/search?q={}&per_page=1",
            urlencoding("mime:\"text/html\"")
        ))
        .await;
    assert!(html_search["total"].as_u64().unwrap() > 0, "{html_search}");

    // The log viewer: filters, and every line exactly once through the pages.
    let log = |q: &str| format!("/crawls/{id}/log?{q}");
    let p = b.get(&log("status=-9998")).await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert_eq!(p.body.matches("<tr data-status=").count(), 1, "{}", p.body);
    assert!(p.body.contains("/private/secret.html"));
    let p = b.get(&log("status=refused&reason=denied")).await;
    assert_eq!(
        p.body.matches("<tr data-status=\"-5000\"").count(),
        1,
        "{}",
        p.body
    );
    assert!(p.body.contains("/denied/x.html"));
    let p = b.get(&log(&format!("host={}", urlencoding(&h1)))).await;
    assert_eq!(
        p.body.matches("<tr data-status=").count() as u64,
        lines.iter().filter(|l| host_of(&l[3]) == h1).count() as u64,
        "{}",
        p.body
    );
    let p = b.get(&log("hop=R")).await;
    assert_eq!(p.body.matches("<tr data-status=").count(), 1, "{}", p.body);
    assert!(p.body.contains("/new.html"));
    let p = b.get(&log("url=missing&status=4xx")).await;
    assert_eq!(
        p.body.matches("<tr data-status=\"404\"").count(),
        1,
        "{}",
        p.body
    );
    assert!(p.body.contains("application/x-&#60;i&#62;evil") || !p.body.contains("<i>evil"));
    let bad = b.get(&log("status=lots")).await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let mut seen = 0;
    let mut next = Some(log("limit=3"));
    while let Some(path) = next {
        let p = b.get(&path).await;
        assert_eq!(p.status, 200, "{path}: {}", p.body);
        let n = p.body.matches("<tr data-status=").count();
        assert!(n <= 3);
        seen += n;
        next = links(&p.body, &format!("/crawls/{id}/log?"))
            .into_iter()
            .find(|l| l.contains("before="))
            .filter(|_| p.body.contains("id=\"log-older\""));
    }
    assert_eq!(seen, lines.len());
    let (_, api_log) = srv
        .get_json(&format!("/api/v1/crawls/{id}/log?status=404"))
        .await;
    assert_eq!(api_log["lines"].as_array().unwrap().len(), 1, "{api_log}");
    assert_eq!(api_log["lines"][0]["entry"]["status"], 404);

    // The seeds report leads to the seed's story.
    let seeds = b.get(&format!("/crawls/{id}/seeds")).await;
    let seed_story = links(&seeds.body, &format!("/crawls/{id}/url?url="));
    assert_eq!(seed_story.len(), 1, "{}", seeds.body);
    let s = b.get(&seed_story[0]).await;
    assert!(
        s.body.contains("a seed of the crawl (source seed)"),
        "{}",
        s.body
    );

    // URL stories.
    let story = |u: &str| format!("/crawls/{id}/url?url={}", urlencoding(u));
    let a = b.get(&story(&web.url(0, "/a.html"))).await;
    assert_eq!(a.status, 200, "{}", a.body);
    for what in ["found", "fetched", "archived"] {
        assert!(
            a.body.contains(&format!("data-what=\"{what}\"")),
            "{what}: {}",
            a.body
        );
    }
    assert!(a.body.contains("through a link"), "{}", a.body);
    let at = |what: &str| a.body.find(&format!("data-what=\"{what}\"")).unwrap();
    assert!(
        at("found") < at("fetched") && at("fetched") < at("archived"),
        "{}",
        a.body
    );
    assert!(a.body.contains(&format!("on {seed}")), "{}", a.body);
    assert!(a.body.contains("HTTP 200, text/html"), "{}", a.body);
    let secret = b.get(&story(&web.url(0, "/private/secret.html"))).await;
    assert!(
        secret.body.contains("data-what=\"refused\""),
        "{}",
        secret.body
    );
    assert!(
        secret.body.contains("refused: robots.txt (-9998)"),
        "{}",
        secret.body
    );
    assert!(!secret.body.contains("data-what=\"fetched\""));
    let denied = b.get(&story(&web.url(0, "/denied/x.html"))).await;
    assert!(
        denied.body.contains("refused: out of scope (-5000)"),
        "{}",
        denied.body
    );
    let old = b.get(&story(&web.url(0, "/old.html"))).await;
    assert!(
        old.body.contains("data-what=\"redirected\""),
        "{}",
        old.body
    );
    let new_url = web.url(0, "/new.html");
    assert!(
        old.body.contains(&format!("status 301 to {new_url}")),
        "{}",
        old.body
    );
    let new = b.get(&story(&new_url)).await;
    assert!(new.body.contains("through a redirect"), "{}", new.body);
    assert!(
        new.body
            .contains(&format!("on {}", web.url(0, "/old.html"))),
        "{}",
        new.body
    );
    let never = b.get(&story("http://never.example/")).await;
    assert_eq!(never.status, 200);
    assert!(
        never.body.contains("knows nothing of this URL"),
        "{}",
        never.body
    );
    let bad = b.get(&format!("/crawls/{id}/url?url=not%20a%20url")).await;
    assert_eq!(bad.status, 400);
    // The crawl's tabs lead to the reports and the log.
    assert!(a.body.contains(&format!("href=\"/crawls/{id}/reports\"")));
    assert!(a.body.contains(&format!("href=\"/crawls/{id}/log\"")));
}

fn urlencoding(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_the_crawl_runs_hosts_are_live_and_queued_urls_tell_their_place() {
    let web = FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 6);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let id = srv
        .create(&json!({
            "name": "slow",
            "seeds": [seed],
            "network": { "allow_private": true },
            "scope": { "sitemaps": false },
            "politeness": { "min_delay_ms": 5000, "delay_factor": 0.0 },
            "limits": { "timeout_ms": 3000, "max_retries": 0 }
        }))
        .await;
    srv.action(&id, "start").await;
    srv.wait_for(&id, 30, "the seed", |c| {
        c["stats"]["pages_fetched"].as_u64() >= Some(1)
    })
    .await;
    let (_, front) = srv
        .get_json(&format!("/api/v1/crawls/{id}/frontier?limit=10"))
        .await;
    let urls: Vec<String> = front["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap().to_string())
        .collect();
    assert!(urls.len() >= 3, "{front}");
    let last = urls.last().unwrap().clone();
    let blocked = urls[urls.len() - 2].clone();
    let pattern = format!("{}$", regex::escape(&blocked));
    let (status, _) = srv
        .post_json(
            &format!("/api/v1/crawls/{id}/block"),
            &json!({ "pattern": pattern }),
        )
        .await;
    assert_eq!(status, 200);

    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let h0 = host_of(&seed);
    let hosts = b.get(&format!("/crawls/{id}/hosts")).await;
    assert!(
        !hosts.body.contains("id=\"hosts-closed\""),
        "{}",
        hosts.body
    );
    let logged = read_log(dir.path(), &id)
        .iter()
        .filter(|l| l[1].parse::<i32>().unwrap() > 0)
        .count();
    let shown: usize = cell(&hosts.body, "host", &h0, "responses").parse().unwrap();
    // The page reads the log as flushed at the crawl's last commit: never more than it holds.
    assert!(shown >= 1 && shown <= logged.max(1), "{shown} of {logged}");
    assert!(
        hosts
            .body
            .contains(&format!("/crawls/{id}/frontier?host={}", urlencoding(&h0))),
        "the live queue link: {}",
        hosts.body
    );

    let story = |u: &str| format!("/crawls/{id}/url?url={}", urlencoding(u));
    let q = b.get(&story(&last)).await;
    assert_eq!(q.status, 200, "{}", q.body);
    assert!(q.body.contains("data-what=\"queued\""), "{}", q.body);
    assert!(q.body.contains("priority "), "{}", q.body);
    assert!(
        q.body.contains(&format!("on {seed} through a link")),
        "{}",
        q.body
    );
    let blk = b.get(&story(&blocked)).await;
    assert!(blk.body.contains("data-what=\"blocked\""), "{}", blk.body);
    assert!(!blk.body.contains("data-what=\"queued\""), "{}", blk.body);
    srv.action(&id, "stop").await;
    srv.wait_for(&id, 30, "the stop", |c| c["state"] == "finished")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relevance_per_host_is_the_index_s_and_a_link_s_story_has_its_score() {
    let web = FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 8);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let id = srv
        .create(&json!({
            "name": "topical",
            "seeds": [seed],
            "network": { "allow_private": true },
            "topic": { "keywords": ["many", "links", "text"] },
            "scope": { "sitemaps": false },
            "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
            "limits": { "timeout_ms": 3000, "max_retries": 0 }
        }))
        .await;
    srv.action(&id, "start").await;
    srv.wait_for(&id, 60, "the crawl to end", |c| c["state"] == "finished")
        .await;
    let h0 = host_of(&seed);
    let (_, rep) = srv.get_json(&format!("/api/v1/crawls/{id}/reports")).await;
    let row = rep["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == h0.as_str())
        .unwrap_or_else(|| panic!("{rep}"))
        .clone();
    let (_, found) = srv
        .get_json(&format!(
            "/api/v1/crawls/{id}/search?host={}&kind=page&per_page=1000",
            urlencoding(&h0)
        ))
        .await;
    let rel: Vec<f64> = found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["relevance"].as_f64())
        .collect();
    assert!(!rel.is_empty(), "pages were analysed: {found}");
    let threshold = rep["threshold"].as_f64().unwrap();
    assert_eq!(row["index"]["analysed"], rel.len() as u64, "{row}");
    let mean = rel.iter().sum::<f64>() / rel.len() as f64;
    let got = row["index"]["mean_relevance"].as_f64().unwrap();
    assert!((got - mean).abs() < 1e-6, "{got} vs {mean}");
    let relevant = rel.iter().filter(|r| **r >= threshold - 1e-7).count() as u64;
    let counted = row["index"]["relevant"].as_u64().unwrap();
    assert_eq!(counted, relevant, "at {threshold}");

    // The story of a link of the seed carries the score its analysis gave it.
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let link = web.url(0, "/many/3.html");
    let s = b
        .get(&format!("/crawls/{id}/url?url={}", urlencoding(&link)))
        .await;
    assert!(s.body.contains("data-what=\"scored\""), "{}", s.body);
    assert!(
        s.body
            .contains("gave it (found there through a link) a score of"),
        "{}",
        s.body
    );
}
