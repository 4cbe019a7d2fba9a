//! End-to-end: crawl an ordinary small site and check exactly what was archived, the records'
//! order and fields, politeness timing, and the archive with an independent reader and warcio.

use crate::support;

use serde_json::json;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;
use support::{basic_site, harness, BasicSite, FixtureWeb, Reply};

#[test]
fn archives_exactly_the_polite_in_scope_urls() {
    let web = FixtureWeb::start(2);
    let site = basic_site(&web, 0);
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "basic",
        std::slice::from_ref(&site.seed),
        json!({"politeness": {"min_delay_ms": 100, "max_delay_ms": 1000}}),
    );
    let summary = harness::run(spec, data.path());

    let recs = harness::records(data.path(), "basic");
    let got: BTreeSet<String> = harness::captured(&recs).into_iter().collect();
    let want = basic_want(&web, &site);
    assert_eq!(got, want, "archived URLs");
    assert_eq!(
        harness::captured(&recs).len(),
        want.len(),
        "each URL archived once"
    );
    assert!(
        web.hits_to(0, "/private/secret.html").is_empty(),
        "robots.txt obeyed"
    );
    assert!(
        web.hits_to(0, "/nofollow-target.html").is_empty(),
        "nofollow obeyed"
    );
    assert!(web.hits_for(1).is_empty(), "the other host is out of scope");

    assert_eq!(summary.stop_reason, "finished");
    assert_eq!(summary.pages_fetched, want.len() as u64 - 1);
    assert_eq!(summary.robots_fetches, 1);
    assert_eq!(summary.robots_blocked, 1);
    assert_eq!(summary.urls_queued, 0);
    assert_eq!(
        summary.responses_by_status["4xx"], 2,
        "missing.html and sitemap.xml"
    );
    assert_eq!(summary.responses_by_status["3xx"], 1);
    assert!(summary.urls_out_of_scope >= 1);

    let files = harness::warc_files(data.path(), "basic");
    harness::warcio_check(&files);
}

/// Every URL of the basic site a polite crawl archives.
fn basic_want(web: &FixtureWeb, site: &BasicSite) -> BTreeSet<String> {
    let mut want: BTreeSet<String> = site.pages.iter().chain(&site.embeds).cloned().collect();
    want.extend([
        site.robots.clone(),
        site.not_found.clone(),
        site.redirect.clone(),
        web.url(0, "/sitemap.xml"),
    ]);
    want
}

/// Without helper, index or topic, pages are read by the token stream instead of a tree: the
/// same URLs are archived, nofollow and robots.txt obeyed.
#[test]
fn an_archive_only_crawl_finds_the_same_urls_without_a_tree() {
    let web = FixtureWeb::start(2);
    let site = basic_site(&web, 0);
    let data = tempfile::tempdir().unwrap();
    let extra = json!({"aah": {"enabled": false}, "index": {"enabled": false}});
    let spec = harness::spec("plain", std::slice::from_ref(&site.seed), extra);
    harness::run(spec, data.path());
    let recs = harness::records(data.path(), "plain");
    let got: BTreeSet<String> = harness::captured(&recs).into_iter().collect();
    assert_eq!(got, basic_want(&web, &site), "archived URLs");
    assert!(web.hits_to(0, "/private/secret.html").is_empty());
    assert!(web.hits_to(0, "/nofollow-target.html").is_empty());
}

#[test]
fn records_come_in_order_with_the_fields_replay_tools_need() {
    let web = FixtureWeb::start(1);
    let site = basic_site(&web, 0);
    let data = tempfile::tempdir().unwrap();
    harness::run(
        harness::spec("order", std::slice::from_ref(&site.seed), json!({})),
        data.path(),
    );
    let recs = harness::records(data.path(), "order");
    assert_eq!(recs[0].kind, "warcinfo", "warcinfo first");
    let info_id = recs[0].field("WARC-Record-ID").unwrap().to_string();
    assert!(recs[0].field("WARC-Target-URI").is_none());
    let body = String::from_utf8_lossy(&recs[0].body);
    assert!(body.contains("isPartOf: order") && body.contains("software: magpie/"));

    let mut i = 1;
    while i < recs.len() {
        let resp = &recs[i];
        assert_eq!(resp.kind, "response", "record {i}");
        let id = resp.field("WARC-Record-ID").unwrap();
        assert!(id.starts_with("<urn:uuid:") && id.ends_with('>'));
        assert_eq!(
            resp.field("Content-Type"),
            Some("application/http; msgtype=response")
        );
        assert_eq!(resp.field("WARC-IP-Address"), Some("127.0.0.1"));
        assert_eq!(resp.field("WARC-Warcinfo-ID"), Some(info_id.as_str()));
        assert!(resp
            .field("WARC-Payload-Digest")
            .unwrap()
            .starts_with("sha1:"));
        assert!(resp
            .field("WARC-Block-Digest")
            .unwrap()
            .starts_with("sha1:"));
        assert!(
            resp.field("WARC-Date").unwrap().contains('.'),
            "WARC/1.1 sub-second dates"
        );
        assert!(resp.body.starts_with(b"HTTP/1."));

        let req = &recs[i + 1];
        assert_eq!(req.kind, "request");
        assert_eq!(req.field("WARC-Concurrent-To"), Some(id));
        assert_eq!(req.field("WARC-Date"), resp.field("WARC-Date"));
        assert_eq!(req.uri, resp.uri);
        assert!(req.body.starts_with(b"GET "));

        let meta = &recs[i + 2];
        assert_eq!(meta.kind, "metadata");
        assert_eq!(meta.field("WARC-Concurrent-To"), Some(id));
        assert_eq!(meta.field("Content-Type"), Some("application/warc-fields"));
        assert!(String::from_utf8_lossy(&meta.body).contains("hopsFromSeed: "));
        i += 3;
        // Then the page's JSON notes (its analysis, the helper's reading), each with it.
        while recs.get(i).is_some_and(|r| r.kind == "metadata") {
            assert_eq!(recs[i].field("WARC-Concurrent-To"), Some(id), "record {i}");
            i += 1;
        }
    }
    // The helper read the seed's structure, claiming no application (the site names none).
    let reading = recs
        .iter()
        .find(|r| r.kind == "metadata" && r.uri == format!("urn:magpie:aah:{}", site.seed))
        .expect("the helper's reading of the seed");
    let reading: serde_json::Value = serde_json::from_slice(&reading.body).unwrap();
    assert!(reading["application"].is_null(), "{reading}");
    assert!(reading["level"]["kind"].is_string(), "{reading}");
    let home_meta = recs
        .iter()
        .find(|r| r.kind == "metadata" && r.uri == site.seed)
        .expect("metadata of the seed");
    let text = String::from_utf8_lossy(&home_meta.body);
    assert!(
        text.contains(&format!("outlink: {} L a/@href", web.url(0, "/a.html"))),
        "{text}"
    );
    assert!(
        text.contains(&format!("outlink: {} E ", web.url(0, "/style.css"))),
        "{text}"
    );
    let css_meta = recs
        .iter()
        .find(|r| r.kind == "metadata" && r.uri.ends_with("/style.css"))
        .expect("metadata of the stylesheet");
    let text = String::from_utf8_lossy(&css_meta.body);
    assert!(
        text.contains("hopsFromSeed: E") && text.contains(&format!("via: {}", site.seed)),
        "{text}"
    );
}

#[test]
fn fetches_from_one_host_respect_the_delay_and_hosts_run_in_parallel() {
    let web = FixtureWeb::start(3);
    let mut seeds = Vec::new();
    for host in 0..3 {
        let pages: Vec<String> = (0..6).map(|i| format!("/p{i}.html")).collect();
        let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
        web.route(host, "/", Reply::html(support::page("home", "", &refs)));
        for p in &pages {
            web.route(host, p, Reply::html(support::page(p, "", &[])));
        }
        web.route(
            host,
            "/robots.txt",
            Reply::typed("text/plain", "User-agent: *\nAllow: /\n"),
        );
        seeds.push(web.url(host, "/"));
    }
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "polite",
        &seeds,
        json!({"politeness": {"min_delay_ms": 150, "max_delay_ms": 1000}, "scope": {"allow": ["^http://127\\.0\\.0\\.[123]:"], "sitemaps": false}}),
    );
    let summary = harness::run(spec, data.path());
    assert_eq!(summary.pages_fetched, 21);
    for host in 0..3 {
        let hits = web.hits_for(host);
        assert_eq!(hits.len(), 8, "robots + home + 6 pages on host {host}");
        for pair in hits.windows(2) {
            let gap = pair[1].at.duration_since(pair[0].at);
            assert!(
                gap >= Duration::from_millis(150),
                "host {host}: gap {gap:?} between {} and {}",
                pair[0].target,
                pair[1].target
            );
        }
    }
    // Hosts are crawled side by side: every host starts before any other host is done.
    let first_last: Vec<_> = (0..3)
        .map(|h| {
            let hits = web.hits_for(h);
            (hits[0].at, hits[hits.len() - 1].at)
        })
        .collect();
    for (a, (first_a, _)) in first_last.iter().enumerate() {
        for (b, (_, last_b)) in first_last.iter().enumerate() {
            assert!(
                a == b || first_a < last_b,
                "host {a} waited for host {b} to finish"
            );
        }
    }
    let by_ip: HashMap<String, usize> = harness::records(data.path(), "polite")
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
        .fold(HashMap::new(), |mut m, r| {
            *m.entry(r.field("WARC-IP-Address").unwrap_or("").to_string())
                .or_insert(0) += 1;
            m
        });
    assert_eq!(by_ip.len(), 3, "{by_ip:?}");
    assert!(by_ip.values().all(|&n| n == 8), "{by_ip:?}");
}

#[test]
fn hosts_on_one_ip_address_share_politeness() {
    let web = FixtureWeb::start(1);
    let pages: Vec<String> = (0..4).map(|i| format!("/s{i}.html")).collect();
    let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
    web.route(0, "/", Reply::html(support::page("home", "", &refs)));
    for p in &pages {
        web.route(0, p, Reply::html(support::page(p, "", &[])));
    }
    // Two host names, one address: `localhost` and `127.0.0.1`.
    let port = web.addr(0).port();
    let seeds = vec![
        format!("http://localhost:{port}/"),
        format!("http://127.0.0.1:{port}/"),
    ];
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "shared-ip",
        &seeds,
        json!({"politeness": {"min_delay_ms": 120, "max_delay_ms": 1000, "max_parallel_per_host": 2, "max_parallel_per_ip": 1}, "scope": {"sitemaps": false}}),
    );
    let summary = harness::run(spec, data.path());
    assert_eq!(summary.pages_fetched, 10, "5 pages under each host name");
    let hits = web.hits();
    let by_name = |name: &str| {
        hits.iter()
            .filter(|h| h.header("host").is_some_and(|v| v.starts_with(name)))
            .count()
    };
    assert_eq!((by_name("localhost"), by_name("127.0.0.1")), (6, 6));
    // Until a host's address is known (its robots.txt fetch), it has a slot of its own; from then
    // on both names share one slot: one fetch at a time, 120 ms apart.
    for pair in hits[2..].windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(
            gap >= Duration::from_millis(120),
            "gap {gap:?} before {:?}",
            pair[1].target
        );
    }
}
