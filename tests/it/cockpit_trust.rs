//! What the cockpit says a crawl did is true: each way a crawl ends (completed, limit reached,
//! stopped by the operator, no seed reachable) is told apart with its reason in the crawl list,
//! the dashboard, the API and `magpie crawl --json`; Stop asks first; the lifecycle buttons
//! follow the crawl's state.

use crate::cockpit_support;
use crate::support;
use crate::web_support;

use cockpit_support::Browser;
use serde_json::{json, Value};
use web_support::TestServer;

fn spec(name: &str, seed: &str, extra: Value) -> Value {
    let mut s = json!({
        "name": name,
        "seeds": [seed],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000, "max_retries": 0, "retry_delay_ms": 10 }
    });
    for (k, v) in extra.as_object().unwrap() {
        for (k2, v2) in v.as_object().unwrap() {
            s[k][k2] = v2.clone();
        }
    }
    s
}

async fn finished(srv: &TestServer, id: &str) -> Value {
    srv.action(id, "start").await;
    srv.wait_for(id, 60, "the crawl to end", |c| c["state"] == "finished")
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_way_a_crawl_ends_is_told_apart() {
    let web = support::FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 6);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;

    // Every seed refused: the fixture web is on loopback and private addresses are off.
    srv.create(&spec(
        "refused",
        &seed,
        json!({ "network": { "allow_private": false } }),
    ))
    .await;
    let c = finished(&srv, "refused").await;
    assert_eq!(c["outcome"]["kind"], "no-seed-reachable", "{c}");
    let why = c["outcome"]["reason"].as_str().unwrap();
    assert!(
        why.contains("refused or failed as private-address") && why.contains("allow_private"),
        "{why}"
    );

    srv.create(&spec(
        "limited",
        &seed,
        json!({ "limits": { "max_pages": 3 } }),
    ))
    .await;
    let c = finished(&srv, "limited").await;
    assert_eq!(c["outcome"]["kind"], "limit-reached", "{c}");
    assert!(c["outcome"]["reason"]
        .as_str()
        .unwrap()
        .contains("of 3 allowed"));

    srv.create(&spec("whole", &seed, json!({}))).await;
    let c = finished(&srv, "whole").await;
    assert_eq!(c["outcome"]["kind"], "completed", "{c}");
    assert_eq!(c["outcome"]["label"], "completed");

    // Stopped from the cockpit: a slow crawl (5 s between fetches), Stop asks first.
    srv.create(&spec(
        "slow",
        &seed,
        json!({ "politeness": { "min_delay_ms": 5000 } }),
    ))
    .await;
    srv.action("slow", "start").await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let dash = b.get("/crawls/slow").await;
    let key = dash.csrf();
    // The buttons of every state are there; those that do not apply are hidden.
    assert!(
        dash.body.contains(r#"data-states="paused" hidden>"#),
        "Resume is hidden while running:\n{}",
        dash.body
    );
    assert!(dash.body.contains(r#"data-states="running">"#));
    let asked = b
        .post(
            "/crawls/slow/action",
            &[("action", "stop"), ("csrf", &key), ("next", "/crawls/slow")],
        )
        .await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    assert!(asked.body.contains("id=\"confirm-stop\""), "{}", asked.body);
    assert!(asked.body.contains("name=\"confirm\" value=\"yes\""));
    assert!(asked.body.contains("URLs still queued"));
    assert_eq!(
        srv.crawl("slow").await["state"],
        "running",
        "not stopped yet"
    );
    let done = b
        .post(
            "/crawls/slow/action",
            &[
                ("action", "stop"),
                ("confirm", "yes"),
                ("csrf", &key),
                ("next", "/crawls/slow"),
            ],
        )
        .await;
    assert_eq!(done.status, 303, "{}", done.body);
    let c = srv
        .wait_for("slow", 30, "the stop", |c| c["state"] == "finished")
        .await;
    let o = &c["outcome"];
    assert_eq!(o["kind"], "stopped", "{c}");
    assert_eq!(o["by"], "cockpit");
    let at = o["at"].as_str().expect("when it was stopped");
    assert!(at.ends_with('Z') && at.len() == 20, "{at}");
    assert!(o["reason"].as_str().unwrap().contains("operator"));

    // The crawl list and the dashboard show the outcomes with their reasons.
    let list = b.get("/").await;
    for (id, label) in [
        ("refused", "no seed reachable"),
        ("limited", "limit reached"),
        ("whole", "completed"),
        ("slow", "stopped"),
    ] {
        let row = list
            .body
            .split(&format!("data-crawl=\"{id}\""))
            .nth(1)
            .unwrap_or_else(|| panic!("no row for {id}"));
        let row = row.split("</tr>").next().unwrap();
        assert!(
            row.contains(&format!(">{label}</span>")),
            "{id}: {label}: {row}"
        );
    }
    assert!(list.body.contains("Allow private addresses"));
    let dash = b.get("/crawls/slow").await;
    assert!(dash.body.contains("data-outcome=\"stopped\""));
    assert!(dash.body.contains(&format!("at {at}")), "{}", dash.body);
    assert!(dash.body.contains(r#"data-states="finished failed">"#));

    // After a restart the outcome is the same (who stopped it is kept in status.json).
    srv.stop().await;
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let c = srv.crawl("slow").await;
    assert_eq!(
        (&c["outcome"]["kind"], &c["outcome"]["at"]),
        (&json!("stopped"), &json!(at))
    );
    // Started again through the API (which resumes it): the stop is forgotten.
    srv.action("slow", "start").await;
    let c = srv.crawl("slow").await;
    assert_eq!(c["outcome"]["kind"], "running");
    srv.action("slow", "stop").await;
    let c = srv
        .wait_for("slow", 30, "the stop", |c| c["state"] == "finished")
        .await;
    assert_eq!(c["outcome"]["by"], "api", "{c}");
    srv.stop().await;
}

#[test]
fn magpie_crawl_json_names_the_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let spec_path = dir.path().join("spec.json");
    // A private seed with private addresses off: nothing can be fetched.
    std::fs::write(
        &spec_path,
        json!({
            "name": "cli",
            "seeds": ["http://127.0.0.1:9/"],
            "scope": { "sitemaps": false }
        })
        .to_string(),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(["crawl", "--json", "--data"])
        .arg(dir.path().join("data"))
        .arg(&spec_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["stop_reason"], "finished");
    assert_eq!(summary["outcome"]["kind"], "no-seed-reachable", "{summary}");
    assert!(summary["outcome"]["reason"]
        .as_str()
        .unwrap()
        .contains("private-address"));
}

/// The rows of the intake report table: (asked, before → after, result) by URL.
fn changes(html: &str) -> Vec<(String, String, String, String)> {
    let table = html
        .split("id=\"intake-items\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no item report in:\n{html}"));
    let table = table.split("</table>").next().unwrap();
    let cell = regex::Regex::new(r"<td[^>]*>([^<]*)</td>").unwrap();
    table
        .split("<tr")
        .skip(2)
        .map(|row| {
            let c: Vec<String> = cell
                .captures_iter(row)
                .map(|m| m[1].replace("&#8594;", "→").replace("&#62;", ">"))
                .collect();
            (c[1].clone(), c[2].clone(), c[3].clone(), c[4].clone())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steering_says_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = web_support::idle_spec("s1");
    let seed = spec["seeds"][0].as_str().unwrap().to_string();
    srv.create(&spec).await;
    let (url_b, url_c, url_d) = (format!("{seed}b"), format!("{seed}c"), format!("{seed}d"));
    let (status, _) = srv
        .post_json(
            "/api/v1/urls",
            &json!([{"crawl_id": "s1", "url": url_b, "score": 0.3, "source": "ranker"}]),
        )
        .await;
    assert_eq!(status, 200);
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let page = b.get("/crawls/s1/frontier").await;
    assert!(
        page.body.contains("Send score (avg)"),
        "named for what it does"
    );
    assert!(page.body.contains("id=\"score-help\""));
    let key = page.csrf();

    // From the frontier inspector: 0.9 sent to a URL at 0.3 makes it 0.6 under avg, and the
    // page says so.
    let p = b
        .post(
            "/crawls/s1/frontier",
            &[
                ("csrf", &key),
                ("op", "priority"),
                ("url", &url_b),
                ("score", "0.9"),
            ],
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    let rows = changes(&p.body);
    assert_eq!(
        rows,
        [(
            url_b.clone(),
            "score 0.900".into(),
            "0.300 → 0.600".into(),
            "rescored".into()
        )]
    );
    assert!(p.body.contains("update function <code>avg</code>"));

    // The intake form: several lines, each reported; a bad item is rejected alone.
    let lines = format!("# from the form\n{url_c} 0.8\n{url_b} 0.1 ranker-2\nftp://x.example/ 0.5\n{url_d} blacklist\n");
    let p = b
        .post(
            "/crawls/s1/intake",
            &[("csrf", &key), ("lines", &lines), ("source", "")],
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    let rows = changes(&p.body);
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert_eq!(rows[0].2, "not queued → 0.800");
    assert_eq!(rows[0].3, "queued");
    // The mean of 0.3, 0.9 and 0.1.
    assert_eq!(rows[1].2, "0.600 → 0.433");
    assert!(rows[2].3.starts_with("rejected: bad URL"), "{rows:?}");
    assert_eq!(rows[3].2, "not queued → blacklisted");
    assert!(p.body.contains("<td>ranker-2</td>"), "counted by source");
    assert!(p.body.contains("<td>cockpit</td>"), "the default source");
    let (_, f) = srv.get_json("/api/v1/crawls/s1/frontier").await;
    let c_row = f["urls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["url"] == url_c.as_str())
        .expect("queued from the form");
    assert_eq!(c_row["source"], "cockpit");

    // A line that cannot be read: nothing applied, the error names the line, the text stays.
    let typed = format!("{seed}e 0.5\n{seed}f lots\n");
    let p = b
        .post(
            "/crawls/s1/intake",
            &[("csrf", &key), ("lines", &typed), ("source", "mine")],
        )
        .await;
    assert_eq!(p.status, 400);
    assert!(p.body.contains("id=\"intake-error\""));
    assert!(
        p.body.contains("line 2: &#34;lots&#34; is not a score"),
        "{}",
        p.body
    );
    assert!(
        p.body.contains(&format!("{seed}f lots")),
        "what was typed is kept"
    );
    assert!(p.body.contains("value=\"mine\""));
    let (_, f) = srv.get_json("/api/v1/crawls/s1/frontier").await;
    assert!(
        !f.to_string().contains(&format!("{seed}e")),
        "nothing applied"
    );

    // Blocked patterns are listed (page and API) and can be removed.
    let p = b.get("/crawls/s1/frontier").await;
    assert!(p.body.contains("id=\"no-patterns\""));
    let p = b
        .post(
            "/crawls/s1/frontier",
            &[("csrf", &key), ("op", "block"), ("pattern", "/calendar/")],
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p.body.contains("data-unblock=\"/calendar/\""), "{}", p.body);
    let (_, f) = srv.get_json("/api/v1/crawls/s1/frontier").await;
    assert_eq!(f["blocked"], json!(["/calendar/"]));
    let cal = format!("{seed}calendar/1");
    let (_, r) = srv
        .post_json(
            "/api/v1/urls",
            &json!({"crawl_id": "s1", "url": cal, "score": 0.5}),
        )
        .await;
    assert_eq!(r["rejected"][0]["reason"], "blocked by a pattern");
    let p = b
        .post(
            "/crawls/s1/frontier",
            &[("csrf", &key), ("op", "unblock"), ("pattern", "/nothing/")],
        )
        .await;
    assert_eq!(p.status, 400);
    assert!(
        p.body.contains("is not among the blocked patterns"),
        "{}",
        p.body
    );
    let p = b
        .post(
            "/crawls/s1/frontier",
            &[("csrf", &key), ("op", "unblock"), ("pattern", "/calendar/")],
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p.body.contains("id=\"unblock-report\""));
    assert!(p.body.contains("id=\"no-patterns\""));
    let (_, r) = srv
        .post_json(
            "/api/v1/urls",
            &json!({"crawl_id": "s1", "url": cal, "score": 0.5}),
        )
        .await;
    assert_eq!(
        r["inserted"], 1,
        "queued again once the pattern is gone: {r}"
    );
    // The removal is kept with the crawl's state.
    srv.stop().await;
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let (_, f) = srv.get_json("/api/v1/crawls/s1/frontier").await;
    assert_eq!(f["blocked"], json!([]), "{f}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_stay_on_the_page_with_what_was_typed() {
    let web = support::FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 3);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&spec("e1", &seed, json!({}))).await;
    finished(&srv, "e1").await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let key = b.get("/crawls/e1/export").await.csrf();

    // A bad search parameter: the search page, its form as typed, the error on it.
    let p = b
        .get("/crawls/e1/search?q=turbine&min_score=lots&host=a.example")
        .await;
    assert_eq!(p.status, 400);
    assert!(p.body.contains("id=\"search-error\""), "{}", p.body);
    assert!(p.body.contains("min_score"), "names the field");
    for kept in ["value=\"turbine\"", "value=\"lots\"", "value=\"a.example\""] {
        assert!(p.body.contains(kept), "{kept} kept");
    }
    assert!(
        p.body.contains("aria-label=\"Crawl e1\""),
        "with the crawl's tabs"
    );

    // A duplicate export name: the export page, the form as typed, the error on it.
    let export = |name: &'static str, q: &'static str| {
        [
            ("csrf", key.clone()),
            ("name", name.to_string()),
            ("q", q.to_string()),
            ("with_embeds", "true".to_string()),
            ("format", "warc".to_string()),
        ]
    };
    let first = export("mine", "");
    let first: Vec<(&str, &str)> = first.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let p = b.post("/crawls/e1/export", &first).await;
    assert_eq!(p.status, 200, "{}", p.body);
    let again = export("mine", "many");
    let again: Vec<(&str, &str)> = again.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let p = b.post("/crawls/e1/export", &again).await;
    assert_eq!(p.status, 409, "{}", p.body);
    assert!(p.body.contains("id=\"export-error\""), "{}", p.body);
    assert!(p.body.contains("value=\"mine\""), "the name kept");
    assert!(p.body.contains("value=\"many\""), "the query kept");
    assert!(p.body.contains("id=\"export-form\""));
    // A bad minimum score, in the preview and in the write.
    let p = b
        .get("/crawls/e1/export?q=x&min_score=high&preview=1")
        .await;
    assert_eq!(p.status, 400);
    assert!(p.body.contains("id=\"export-error\"") && p.body.contains("min_score"));
    assert!(p.body.contains("value=\"high\""));

    // A pattern that does not compile: the frontier inspector, the pattern kept.
    srv.create(&web_support::idle_spec("e2")).await;
    let p = b
        .post(
            "/crawls/e2/frontier",
            &[("csrf", &key), ("op", "block"), ("pattern", "(calendar")],
        )
        .await;
    assert_eq!(p.status, 400);
    assert!(p.body.contains("id=\"steer-error\""), "{}", p.body);
    assert!(p.body.contains("value=\"(calendar\""), "the pattern kept");
    assert!(
        p.body.contains("<h2>Host queues</h2>"),
        "the inspector itself"
    );
    let p = b
        .post(
            "/crawls/e2/frontier",
            &[
                ("csrf", &key),
                ("op", "priority"),
                ("url", "http://127.0.0.1:9/x"),
                ("score", "7"),
            ],
        )
        .await;
    assert_eq!(p.status, 400);
    assert!(p.body.contains("id=\"steer-error\""));
    assert!(
        p.body.contains("&#34;7&#34; (for http://127.0.0.1:9/x)"),
        "{}",
        p.body
    );
    // A crawl that does not exist is still the error page.
    let p = b.get("/crawls/nope/search?q=x").await;
    assert_eq!(p.status, 404);
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_frontier_says_it_is_paused_and_explains_itself() {
    let web = support::FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 20);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&spec(
        "p1",
        &seed,
        json!({ "politeness": { "min_delay_ms": 60000, "max_delay_ms": 60000, "respect_robots": false } }),
    ))
    .await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    // Not started: said so, not a politeness pause.
    let p = b.get("/crawls/p1/frontier").await;
    assert!(
        p.body.contains("has <strong>not started</strong>"),
        "{}",
        p.body
    );
    srv.action("p1", "start").await;
    srv.wait_for("p1", 20, "the seed page", |c| {
        c["stats"]["urls_queued"].as_u64() > Some(5)
    })
    .await;
    let (status, _) = srv.action("p1", "pause").await;
    assert_eq!(status, 200);
    let p = b.get("/crawls/p1/frontier").await;
    assert!(p.body.contains("id=\"paused-note\""), "{}", p.body);
    let hosts = p.body.split("id=\"hosts\"").nth(1).unwrap();
    let hosts = hosts.split("</table>").next().unwrap();
    assert!(
        hosts.contains("<td class=\"num\">paused</td>")
            && hosts.contains("the crawl is paused by the operator"),
        "{hosts}"
    );
    let urls = p.body.split("id=\"urls\"").nth(1).unwrap();
    assert!(
        urls.contains("<td class=\"why\">the crawl is paused</td>"),
        "{urls}"
    );
    // The order explained, and the hop codes.
    assert!(p.body.contains("id=\"order-help\""));
    assert!(p.body.contains("id=\"hop-legend\""));
    assert!(
        urls.contains("<abbr title=\"L: a link\">L</abbr>"),
        "each hop path spelled out: {urls}"
    );
    // Resumed: the hosts wait for their politeness again (60 s after the seed page).
    srv.action("p1", "resume").await;
    let p = b.get("/crawls/p1/frontier").await;
    assert!(!p.body.contains("id=\"paused-note\""));
    let urls = p.body.split("id=\"urls\"").nth(1).unwrap();
    assert!(
        urls.contains("next of its host, which waits: adaptive politeness pause")
            || urls.contains("URL(s) of its host go first"),
        "{urls}"
    );
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeds_are_checked_before_the_crawl_and_reported_after() {
    let web = support::FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 2);
    web.route(0, "/old", support::Reply::redirect(301, "/many.html"));
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;

    // The API creates the crawl and says which seeds cannot be fetched.
    let mut s = spec(
        "api",
        &seed,
        json!({ "network": { "allow_private": false } }),
    );
    s["seeds"] = json!([seed, "http://localhost/"]);
    let (status, body) = srv.post_json("/api/v1/crawls", &s).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["seeds"].as_array().unwrap().len(), 2);
    let problems = body["seeds"][0]["problems"].as_array().unwrap();
    assert!(
        problems[0]
            .as_str()
            .unwrap()
            .contains("network.allow_private"),
        "{body}"
    );
    assert_eq!(body["warnings"].as_array().unwrap().len(), 2);
    let (_, ok) = srv
        .post_json("/api/v1/crawls", &spec("fine", &seed, json!({})))
        .await;
    assert_eq!(ok["warnings"], json!([]), "{ok}");

    // The form asks before creating such a crawl; the same seeds sent again create it.
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let key = b.get("/crawls/new").await.csrf();
    let form = |checked: Option<&str>| {
        let mut f = vec![
            ("csrf", key.clone()),
            ("op", "create".to_string()),
            ("name", "asked".to_string()),
            ("seeds", seed.clone()),
            ("start", "on".to_string()),
            ("frontier.update", "avg".to_string()),
        ];
        if let Some(c) = checked {
            f.push(("seeds_checked", c.to_string()));
        }
        f
    };
    let first = form(None);
    let first: Vec<(&str, &str)> = first.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let p = b.post("/crawls/new", &first).await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p.body.contains("id=\"seed-warnings\""), "{}", p.body);
    assert!(p.body.contains("Allow private addresses"));
    assert!(p.body.contains("id=\"create-anyway\""));
    let (status, _) = srv.get_json("/api/v1/crawls/asked").await;
    assert_eq!(status, 404, "not created yet");
    let again = form(Some(&seed));
    let again: Vec<(&str, &str)> = again.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let p = b.post("/crawls/new", &again).await;
    assert_eq!(p.status, 303, "{}", p.body);
    let c = srv
        .wait_for("asked", 30, "the refused crawl to end", |c| {
            c["state"] == "finished"
        })
        .await;
    assert_eq!(c["outcome"]["kind"], "no-seed-reachable");

    // The seeds report: a seed that redirects, followed to its target.
    let mut s = spec("moved", &web.url(0, "/old"), json!({}));
    s["seeds"] = json!([web.url(0, "/old"), web.url(0, "/gone")]);
    srv.create(&s).await;
    finished(&srv, "moved").await;
    let p = b.get("/crawls/moved/seeds").await;
    assert_eq!(p.status, 200, "{}", p.body);
    let old = p
        .body
        .split(&format!("data-seed=\"{}\"", web.url(0, "/old")))
        .nth(1)
        .unwrap();
    let old = old.split("</tr>").next().unwrap();
    assert!(
        old.contains(&format!(">301 {}</a> → <a", web.url(0, "/old")))
            && old.contains(&format!(">200 {seed}</a>")),
        "{old}"
    );
    assert!(old.contains("no problem known"));
    let gone = p
        .body
        .split(&format!("data-seed=\"{}\"", web.url(0, "/gone")))
        .nth(1)
        .unwrap();
    assert!(gone.split("</tr>").next().unwrap().contains(">404 "));
    let p = b.get("/crawls/asked/seeds").await;
    assert!(p.body.contains("network.allow_private"), "{}", p.body);
    assert!(p.body.contains("not archived"), "{}", p.body);
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_threshold_reads_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut spec = web_support::idle_spec("t1");
    spec["topic"] = json!({ "keywords": ["turbine"] });
    srv.create(&spec).await;
    let mut b = Browser::login(&srv.base, web_support::TOKEN).await;
    let dash = b.get("/crawls/t1").await;
    assert!(
        dash.body.contains("id=\"chart-threshold\">threshold 0.2<"),
        "{}",
        dash.body
    );
    assert!(dash.body.contains("points=\"\""), "no line from the origin");
    assert!(!dash.body.contains("0.20000000298023224"));
    let copy = b.get("/crawls/new?from=t1").await;
    assert!(!copy.body.contains("0.20000000298023224"));
    assert!(copy.body.contains("value=\"0.2\""), "{}", copy.body);
    let file = b.get("/crawls/t1/spec.json").await;
    assert!(file.body.contains("\"threshold\": 0.2"), "{}", file.body);
    srv.stop().await;
}
