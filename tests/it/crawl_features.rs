//! End-to-end: crawl features an operator relies on — sitemaps, deduplication with revisit
//! records, the private-address guard, off-scope embeds, deny/depth/per-host limits, and WARC
//! file rotation — each checked against exactly what was fetched and archived.

use crate::support;

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use support::{client, harness, page, FixtureWeb, Reply};

fn spec(name: &str, seeds: &[String], extra: Value) -> magpie::spec::Spec {
    harness::spec(name, seeds, extra)
}

fn urls(web: &FixtureWeb, host: usize, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|p| web.url(host, p)).collect()
}

fn archived(recs: &[harness::Rec]) -> BTreeSet<String> {
    let all = harness::captured(recs);
    let set: BTreeSet<String> = all.iter().cloned().collect();
    assert_eq!(set.len(), all.len(), "a URL was archived twice: {all:?}");
    set
}

fn targets(web: &FixtureWeb, host: usize) -> Vec<String> {
    web.hits_for(host).into_iter().map(|h| h.target).collect()
}

/// Every URL enters the frontier the same way: blocked patterns kept in a crawl's state (as
/// `POST /api/v1/crawls/{id}/block` leaves them) keep out its seeds and the sitemaps robots.txt
/// names, as they keep out outlinks and scored URLs.
#[test]
fn stored_blocked_patterns_keep_seeds_and_sitemaps_out() {
    let web = FixtureWeb::start(1);
    let site = support::sitemaps(&web, 0);
    let data = tempfile::tempdir().unwrap();
    let layout = magpie::crawl::layout::Layout::new(data.path(), "blocked");
    std::fs::create_dir_all(layout.state()).unwrap();
    let store = magpie::store::Store::open(&layout.state()).unwrap();
    let mut ws = magpie::store::WriteSet::default();
    let patterns = serde_json::to_vec(&["sitemap_index", r"/sm/1\.html"]).unwrap();
    ws.put(
        magpie::store::Key::Meta(magpie::store::Meta::Blocked).bytes(),
        patterns,
    );
    store.commit(ws).unwrap();
    drop(store);
    let seeds = [web.url(0, "/"), site.pages[0].clone()];
    harness::run(spec("blocked", &seeds, json!({})), data.path());
    assert_eq!(targets(&web, 0), vec!["/robots.txt", "/"]);
    let recs = harness::records(data.path(), "blocked");
    assert_eq!(archived(&recs), urls(&web, 0, &["/robots.txt", "/"]));
}

#[test]
fn sitemaps_named_in_robots_txt_bring_in_unlinked_pages() {
    let web = FixtureWeb::start(1);
    let site = support::sitemaps(&web, 0);
    let seed = web.url(0, "/");
    let data = tempfile::tempdir().unwrap();
    let summary = harness::run(
        spec("sitemaps", std::slice::from_ref(&seed), json!({})),
        data.path(),
    );

    let recs = harness::records(data.path(), "sitemaps");
    let mut want: BTreeSet<String> = site.pages.iter().cloned().collect();
    want.extend([seed.clone(), site.robots.clone(), site.index.clone()]);
    want.extend([site.urlset.clone(), site.gz_urlset.clone()]);
    assert_eq!(archived(&recs), want);
    let meta = harness::one(&recs, "metadata", &site.pages[4]);
    let text = String::from_utf8_lossy(&meta.body);
    assert!(
        text.contains("hopsFromSeed: MML\r\n")
            && text.contains(&format!("via: {}", site.gz_urlset)),
        "{text}"
    );
    assert_eq!(
        web.hits_to(0, "/sitemap.xml").len(),
        0,
        "robots.txt named one"
    );
    assert_eq!(summary.pages_fetched, 10);
    assert_eq!(summary.stop_reason, "finished");
    harness::warcio_check(&harness::warc_files(data.path(), "sitemaps"));

    let web = FixtureWeb::start(1);
    let site = support::sitemaps(&web, 0);
    let data = tempfile::tempdir().unwrap();
    let off = json!({"scope": {"sitemaps": false}});
    let summary = harness::run(spec("no-sitemaps", &[web.url(0, "/")], off), data.path());
    assert_eq!(targets(&web, 0), vec!["/robots.txt", "/"]);
    let recs = harness::records(data.path(), "no-sitemaps");
    assert_eq!(archived(&recs), urls(&web, 0, &["/robots.txt", "/"]));
    assert!(site
        .pages
        .iter()
        .all(|p| !harness::captured(&recs).contains(p)));
    assert_eq!(summary.pages_fetched, 1);
}

/// `/` linking to `/a.html` and `/b.html`, which serve the same body.
fn twins(web: &FixtureWeb) -> String {
    let same = page("Same payload", "", &[]);
    web.route(0, "/a.html", Reply::html(same.clone()));
    web.route(0, "/b.html", Reply::html(same));
    web.route(
        0,
        "/",
        Reply::html(page("Twins", "", &["/a.html", "/b.html"])),
    );
    web.url(0, "/")
}

#[test]
fn a_repeated_payload_becomes_a_revisit_of_its_first_capture() {
    let web = FixtureWeb::start(1);
    let seed = twins(&web);
    let data = tempfile::tempdir().unwrap();
    let no_sitemaps = json!({"scope": {"sitemaps": false}});
    let summary = harness::run(spec("dedup", &[seed], no_sitemaps.clone()), data.path());

    let (a, b) = (web.hits_to(0, "/a.html"), web.hits_to(0, "/b.html"));
    assert_eq!((a.len(), b.len()), (1, 1));
    let (first, second) = if a[0].at < b[0].at {
        ("/a.html", "/b.html")
    } else {
        ("/b.html", "/a.html")
    };
    let recs = harness::records(data.path(), "dedup");
    let orig = harness::one(&recs, "response", &web.url(0, first));
    let rev = harness::one(&recs, "revisit", &web.url(0, second));
    assert!(harness::find(&recs, "response", &web.url(0, second)).is_empty());
    assert_eq!(
        rev.field("WARC-Profile"),
        Some("http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
    );
    assert_eq!(
        rev.field("WARC-Refers-To-Target-URI"),
        Some(web.url(0, first).as_str())
    );
    assert_eq!(rev.field("WARC-Refers-To-Date"), orig.field("WARC-Date"));
    assert_eq!(rev.field("WARC-Refers-To"), orig.field("WARC-Record-ID"));
    assert!(orig.field("WARC-Payload-Digest").is_some());
    assert_eq!(
        rev.field("WARC-Payload-Digest"),
        orig.field("WARC-Payload-Digest")
    );
    let served = client::get(&web, 0, second);
    let head_len = served.raw.len() - served.body.len();
    assert_eq!(
        rev.body,
        &served.raw[..head_len],
        "the block is the HTTP head only"
    );
    assert_eq!(rev.http_status(), Some(200));
    let rev_id = rev.field("WARC-Record-ID");
    let req = harness::one(&recs, "request", &web.url(0, second));
    assert_eq!(req.field("WARC-Concurrent-To"), rev_id);
    assert_eq!(summary.revisits, 1);
    assert_eq!(summary.pages_fetched, 3);
    harness::warcio_check(&harness::warc_files(data.path(), "dedup"));

    let web = FixtureWeb::start(1);
    let seed = twins(&web);
    let data = tempfile::tempdir().unwrap();
    let mut off = no_sitemaps;
    off["warc"] = json!({"dedup": false});
    let summary = harness::run(spec("no-dedup", &[seed], off), data.path());
    let recs = harness::records(data.path(), "no-dedup");
    assert!(recs.iter().all(|r| r.kind != "revisit"));
    let a = harness::one(&recs, "response", &web.url(0, "/a.html"));
    let b = harness::one(&recs, "response", &web.url(0, "/b.html"));
    assert_eq!(a.body, b.body);
    assert_eq!(summary.revisits, 0);
    harness::warcio_check(&harness::warc_files(data.path(), "no-dedup"));
}

#[test]
fn private_addresses_are_refused_unless_allowed() {
    let web = FixtureWeb::start(1);
    web.route(0, "/", Reply::html(page("Intranet", "", &[])));
    let limits = json!({"max_retries": 1, "retry_delay_ms": 20});
    for (name, robots) in [("private", true), ("private-no-robots", false)] {
        let data = tempfile::tempdir().unwrap();
        let extra = json!({
            "network": {"allow_private": false},
            "politeness": {"respect_robots": robots},
            "limits": limits,
        });
        let summary = harness::run(spec(name, &[web.url(0, "/")], extra), data.path());
        assert!(
            web.hits().is_empty(),
            "{name}: a request reached the fixture"
        );
        assert!(harness::captured(&harness::records(data.path(), name)).is_empty());
        assert_eq!(summary.pages_fetched, 0);
        assert_eq!(summary.stop_reason, "finished");
        // A policy refusal is final: robots.txt is not asked for again, and the host's URLs
        // are refused at once (robots.txt and the page with robots, the page alone without).
        let n = if robots { 2 } else { 1 };
        let want: BTreeMap<String, u64> = [("private-address".to_string(), n)].into();
        assert_eq!(summary.errors_by_kind, want, "{name}");
        assert_eq!(summary.retries, 0);
    }
}

/// Host 0's `/` shows an image of host 1 and links to a page of host 1.
fn embedding_site(web: &FixtureWeb) -> String {
    assert_ne!(
        web.addr(0).ip(),
        web.addr(1).ip(),
        "needs 127.0.0.2 for a second registered domain"
    );
    let img = web.url(1, "/img.png");
    let html = page("Home", "", &[&web.url(1, "/page.html")])
        .replace("<p>", &format!("<p><img src=\"{img}\" alt=\"x\"> "));
    web.route(0, "/", Reply::html(html));
    web.route(
        1,
        "/img.png",
        Reply::typed("image/png", magpie::sample_site::tiny_png([9, 9, 9])),
    );
    web.route(1, "/page.html", Reply::html(page("Elsewhere", "", &[])));
    web.url(0, "/")
}

/// A page head as WordPress and MediaWiki write it: requisites, a translation, and discovery
/// links (shortlink, RSD, wlwmanifest, OpenSearch, REST root, oEmbed, feeds).
fn head_links_site(web: &FixtureWeb) -> String {
    let head = r#"<link rel="stylesheet" href="/style.css"><link rel="icon" href="/favicon.ico">
<link rel="alternate" hreflang="de" href="/de/"><link rel="shortlink" href="/?p=7">
<link rel="EditURI" type="application/rsd+xml" href="/xmlrpc.php?rsd">
<link rel="wlwmanifest" href="/wlwmanifest.xml"><link rel="search" type="application/opensearchdescription+xml" href="/opensearch.xml">
<link rel="https://api.w.org/" href="/wp-json/"><link rel="alternate" type="application/json+oembed" href="/oembed?url=x">
<link rel="alternate" type="application/rss+xml" href="/feed/"></head>"#;
    let html = page("Home", "", &[]).replacen("</head>", head, 1);
    web.route(0, "/", Reply::html(html));
    web.route(0, "/de/", Reply::html(page("Startseite", "", &[])));
    web.route(
        0,
        "/style.css",
        Reply::typed("text/css", "p { color: red }"),
    );
    web.route(0, "/favicon.ico", Reply::typed("image/x-icon", "ico"));
    for p in [
        "/?p=7",
        "/xmlrpc.php?rsd",
        "/wlwmanifest.xml",
        "/opensearch.xml",
        "/wp-json/",
        "/oembed?url=x",
        "/feed/",
    ] {
        web.route(0, p, Reply::typed("application/xml", "<x/>"));
    }
    web.url(0, "/")
}

#[test]
fn discovery_links_in_page_heads_are_skipped_unless_asked_for() {
    let web = FixtureWeb::start(1);
    let seed = head_links_site(&web);
    let data = tempfile::tempdir().unwrap();
    let no_sitemaps = json!({"scope": {"sitemaps": false}});
    let summary = harness::run(
        spec("heads", std::slice::from_ref(&seed), no_sitemaps),
        data.path(),
    );
    let mut fetched = targets(&web, 0);
    fetched.sort();
    assert_eq!(
        fetched,
        ["/", "/de/", "/favicon.ico", "/robots.txt", "/style.css"]
    );
    // The knowledge base's own skip rules (feeds, APIs) may claim some first.
    let by = &summary.out_of_scope_by_reason;
    let skipped =
        by.get("discovery").copied().unwrap_or(0) + by.get("app-skip").copied().unwrap_or(0);
    assert_eq!(skipped, 7, "{by:?}");
    assert!(by.get("discovery").copied().unwrap_or(0) >= 3, "{by:?}");

    let web = FixtureWeb::start(1);
    let seed = head_links_site(&web);
    let data = tempfile::tempdir().unwrap();
    let on = json!({"scope": {"sitemaps": false, "discovery_links": true}});
    harness::run(spec("heads-on", &[seed], on), data.path());
    // All but the three the knowledge base skips as feeds and APIs.
    let mut fetched = targets(&web, 0);
    fetched.sort();
    assert_eq!(
        fetched,
        [
            "/",
            "/?p=7",
            "/de/",
            "/favicon.ico",
            "/oembed?url=x",
            "/opensearch.xml",
            "/robots.txt",
            "/style.css",
            "/wlwmanifest.xml"
        ]
    );
}

#[test]
fn off_scope_embeds_are_fetched_one_hop_unless_turned_off() {
    let no_sitemaps = json!({"scope": {"sitemaps": false}});
    let web = FixtureWeb::start(2);
    let seed = embedding_site(&web);
    let data = tempfile::tempdir().unwrap();
    let summary = harness::run(
        spec("embeds", std::slice::from_ref(&seed), no_sitemaps),
        data.path(),
    );
    assert_eq!(targets(&web, 1), vec!["/robots.txt", "/img.png"]);
    let recs = harness::records(data.path(), "embeds");
    let mut want = urls(&web, 0, &["/robots.txt", "/"]);
    want.extend(urls(&web, 1, &["/robots.txt", "/img.png"]));
    assert_eq!(archived(&recs), want);
    let meta = harness::one(&recs, "metadata", &web.url(1, "/img.png"));
    assert!(String::from_utf8_lossy(&meta.body).contains("hopsFromSeed: E\r\n"));
    assert_eq!(summary.out_of_scope_by_reason.get("out-of-scope"), Some(&1));

    let web = FixtureWeb::start(2);
    let seed = embedding_site(&web);
    let data = tempfile::tempdir().unwrap();
    let off = json!({"scope": {"sitemaps": false, "embeds": false}});
    let summary = harness::run(spec("no-embeds", &[seed], off), data.path());
    assert!(web.hits_for(1).is_empty());
    let recs = harness::records(data.path(), "no-embeds");
    assert_eq!(archived(&recs), urls(&web, 0, &["/robots.txt", "/"]));
    assert_eq!(summary.out_of_scope_by_reason.get("out-of-scope"), Some(&2));
}

#[test]
fn deny_rules_depth_and_the_per_host_budget_are_respected() {
    let web = FixtureWeb::start(1);
    let chain = |n: usize| format!("/d{n}.html");
    web.route(
        0,
        "/",
        Reply::html(page("Top", "", &["/d1.html", "/private/x.html"])),
    );
    for n in 1..=3 {
        let next = chain(n + 1);
        web.route(
            0,
            &chain(n),
            Reply::html(page(&chain(n), "", &[&next, "/private/y.html"])),
        );
    }
    web.route_prefix(0, "/private/", |_| Reply::html(page("Private", "", &[])));
    let data = tempfile::tempdir().unwrap();
    let extra = json!({"scope": {"sitemaps": false, "deny": ["/private/"], "max_depth": 2}});
    let summary = harness::run(spec("deny-depth", &[web.url(0, "/")], extra), data.path());
    assert_eq!(
        targets(&web, 0),
        vec!["/robots.txt", "/", "/d1.html", "/d2.html"]
    );
    assert_eq!(summary.out_of_scope_by_reason.get("denied"), Some(&3));
    assert_eq!(summary.out_of_scope_by_reason.get("too-deep"), Some(&1));
    assert_eq!(summary.stop_reason, "finished");

    let web = FixtureWeb::start(2);
    let mut seeds = Vec::new();
    for (host, n) in [(0, 10), (1, 2)] {
        let pages: Vec<String> = (0..n).map(|i| format!("/p{i}.html")).collect();
        let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
        web.route(host, "/", Reply::html(page("Many", "", &refs)));
        web.route_prefix(host, "/p", |t| Reply::html(page(t, "", &[])));
        seeds.push(web.url(host, "/"));
    }
    let data = tempfile::tempdir().unwrap();
    let extra = json!({
        "scope": {"sitemaps": false, "allow": ["^http://127\\.0\\.0\\.[12]:"]},
        "limits": {"max_pages_per_host": 4}
    });
    let summary = harness::run(spec("per-host", &seeds, extra), data.path());
    let pages = |host| {
        targets(&web, host)
            .iter()
            .filter(|t| *t != "/robots.txt")
            .count()
    };
    assert_eq!(pages(0), 4, "budget of the big host");
    assert_eq!(pages(1), 3, "the small host is not affected");
    assert_eq!(summary.pages_fetched, 7);
    assert_eq!(summary.stop_reason, "finished");
    assert_eq!(
        summary.urls_queued,
        11 - 4,
        "the big host's rest stays queued"
    );
}

#[test]
fn tiny_warc_files_rotate_and_each_names_its_own_warcinfo() {
    let web = FixtureWeb::start(1);
    let site = support::basic_site(&web, 0);
    let data = tempfile::tempdir().unwrap();
    let extra = json!({"warc": {"max_file_bytes": 2048}});
    let summary = harness::run(
        spec("rotate", std::slice::from_ref(&site.seed), extra),
        data.path(),
    );

    let files = harness::warc_files(data.path(), "rotate");
    assert!(files.len() >= 4, "only {} files", files.len());
    assert_eq!(summary.warc_files.len(), files.len());
    let recs = harness::records(data.path(), "rotate");
    for file in &files {
        let in_file: Vec<&harness::Rec> = recs.iter().filter(|r| &r.file == file).collect();
        assert_eq!(in_file[0].kind, "warcinfo", "{}", file.display());
        assert_eq!(in_file.iter().filter(|r| r.kind == "warcinfo").count(), 1);
        let info_id = in_file[0].field("WARC-Record-ID").expect("warcinfo id");
        for r in &in_file[1..] {
            assert_eq!(
                r.field("WARC-Warcinfo-ID"),
                Some(info_id),
                "{} {} in {}",
                r.kind,
                r.uri,
                file.display()
            );
        }
    }
    let mut want: BTreeSet<String> = site.pages.iter().chain(&site.embeds).cloned().collect();
    let sitemap = web.url(0, "/sitemap.xml");
    // With one host, the "offsite" page is on the same host.
    want.extend([
        site.robots,
        site.not_found,
        site.redirect,
        sitemap,
        site.offsite,
    ]);
    assert_eq!(archived(&recs), want, "nothing lost to rotation");
    for r in recs.iter().filter(|r| r.kind == "response") {
        let id = r.field("WARC-Record-ID");
        for kind in ["request", "metadata"] {
            let twin = recs
                .iter()
                .find(|o| o.kind == kind && o.field("WARC-Concurrent-To") == id)
                .unwrap_or_else(|| panic!("no {kind} for {}", r.uri));
            assert_eq!(twin.file, r.file, "{kind} of {} in another file", r.uri);
        }
    }
    harness::warcio_check(&files);
}

/// `limits.max_pages` counts pages: responses archived in full with a 2xx status. Redirects,
/// error statuses and revisits of a payload already archived do not spend it.
#[test]
fn the_page_budget_counts_archived_pages_only() {
    let web = FixtureWeb::start(1);
    // The seed links to 8 redirects, 8 missing pages, 8 copies of one page and 20 distinct
    // pages; the redirects lead to more distinct pages.
    let mut links: Vec<String> = Vec::new();
    for i in 0..8 {
        links.push(format!("/moved/{i}"));
        links.push(format!("/gone/{i}"));
        links.push(format!("/copy/{i}"));
    }
    for i in 0..20 {
        links.push(format!("/p/{i}"));
    }
    let refs: Vec<&str> = links.iter().map(String::as_str).collect();
    web.route(0, "/", Reply::html(page("Seed", "", &refs)));
    web.route_prefix(0, "/moved/", |t| {
        let i = t.trim_start_matches("/moved/");
        Reply::redirect(301, &format!("/target/{i}"))
    });
    web.route_prefix(0, "/gone/", |_| Reply::not_found());
    web.route_prefix(0, "/copy/", |_| Reply::html(page("The same page", "", &[])));
    web.route_prefix(0, "/p/", |t| {
        Reply::html(page(&format!("Page {t}"), "", &[]))
    });
    web.route_prefix(0, "/target/", |t| {
        Reply::html(page(&format!("Target {t}"), "", &[]))
    });
    let data = tempfile::tempdir().unwrap();
    let budget = 15;
    let summary = harness::run(
        spec(
            "budget",
            &[web.url(0, "/")],
            json!({"limits": {"max_pages": budget, "max_concurrency": 1},
                   "frontier": {"best_n": 0}}),
        ),
        data.path(),
    );
    assert_eq!(summary.stop_reason, "max-pages");
    assert_eq!(summary.pages_archived, budget);
    let recs = harness::records(data.path(), "budget");
    let full_2xx = recs
        .iter()
        .filter(|r| r.field("WARC-Type") == Some("response"))
        .filter(|r| r.http_status().is_some_and(|s| (200..300).contains(&s)))
        .count() as u64;
    assert_eq!(full_2xx, budget, "the budget is spent on 2xx responses");
    let revisits = recs
        .iter()
        .filter(|r| r.field("WARC-Type") == Some("revisit"))
        .count() as u64;
    let s3 = summary.responses_by_status["3xx"];
    let s4 = summary.responses_by_status["4xx"];
    assert_eq!(summary.revisits, revisits);
    assert!(
        s3 + s4 + revisits > 0,
        "redirects, errors or copies were fetched besides the budget: {summary:?}"
    );
    // Every fetch is counted once by its status (a revisit too: identical 404 pages become
    // revisits of the first; robots.txt is counted there as well), and beyond the budget.
    assert_eq!(
        summary.pages_fetched + summary.robots_fetches,
        summary.responses_by_status.values().sum::<u64>()
    );
    assert!(summary.pages_fetched > budget, "{summary:?}");
}
