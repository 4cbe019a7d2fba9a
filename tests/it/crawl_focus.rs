//! End-to-end: the online stages inside a real crawl of the loopback fixture web. A topical
//! crawl fetches on-topic links before off-topic ones, records every outlink's score
//! components in the page's metadata, blacklists spam links, learns the seed into the topic and
//! reports relevance and the harvest ratio; the application-aware helper recognises a
//! WordPress post, skips its feed and reply links, and its web objects reach the index.

use crate::support;

use magpie::index::{self, DocKind, Index, SearchQuery};
use serde_json::{json, Value};
use support::{harness, FixtureWeb, Reply};

fn html(title: &str, body: &str) -> Reply {
    Reply::html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>{title}</title></head><body>{body}</body></html>"
    ))
}

/// The metadata record of `kind` (media type prefix) that refers to the response of `url`.
fn metadata<'a>(recs: &'a [harness::Rec], url: &str, media: &str) -> Option<&'a harness::Rec> {
    let response = harness::one(recs, "response", url);
    let id = response.field("WARC-Record-ID")?.to_string();
    recs.iter().find(|r| {
        r.kind == "metadata"
            && r.field("WARC-Concurrent-To") == Some(id.as_str())
            && r.field("Content-Type")
                .is_some_and(|t| t.starts_with(media))
    })
}

#[test]
fn topical_crawl_fetches_on_topic_links_first_and_explains_every_score() {
    let web = FixtureWeb::start(2);
    let seed = web.url(0, "/");
    // The seed links to three off-topic pages first, then to two on-topic ones, and to a spam
    // domain (the second host).
    web.route(
        0,
        "/",
        html(
            "Solar power news",
            &format!(
                "<p>News about solar power and wind farms, renewable energy for everyone.</p>\
                 <p>Unrelated: <a href=\"/cooking.html\">cooking pasta at home</a></p>\
                 <p>Unrelated: <a href=\"/football.html\">football results tonight</a></p>\
                 <p>Unrelated: <a href=\"/gardening.html\">gardening roses</a></p>\
                 <p>Read about <a href=\"/solar.html\">solar power panels</a> on roofs.</p>\
                 <p>Also <a href=\"/wind.html\">wind farm energy</a> offshore.</p>\
                 <p><a href=\"{}\">solar power deals</a></p>",
                web.url(1, "/spam.html")
            ),
        ),
    );
    for (path, title, text) in [
        (
            "/cooking.html",
            "Pasta",
            "Boil water, add salt, cook the pasta al dente.",
        ),
        (
            "/football.html",
            "Football",
            "The match ended two to one after extra time.",
        ),
        (
            "/gardening.html",
            "Roses",
            "Prune roses in early spring for better blooms.",
        ),
        (
            "/solar.html",
            "Solar panels",
            "Solar power panels turn sunlight into energy.",
        ),
        (
            "/wind.html",
            "Wind farms",
            "A wind farm makes renewable energy from wind.",
        ),
    ] {
        web.route(0, path, html(title, &format!("<p>{text}</p>")));
    }
    web.route(1, "/spam.html", html("Spam", "<p>solar power</p>"));
    // A reference page nothing links to: fetched because the topic names it.
    web.route(
        0,
        "/reference.html",
        html(
            "Photovoltaics",
            "<p>Photovoltaic modules and inverters.</p>",
        ),
    );

    let data = tempfile::tempdir().unwrap();
    let spam_host = web.url(1, "/").trim_end_matches('/').replace("http://", "");
    let spam_domain = spam_host.split(':').next().unwrap().to_string();
    let spec = harness::spec(
        "focus",
        std::slice::from_ref(&seed),
        json!({
            "limits": { "max_concurrency": 1 },
            "topic": {
                "keywords": ["solar power", "wind farm", "renewable energy"],
                "reference_urls": [web.url(0, "/reference.html")]
            },
            "scoring": { "spam_domains": [spam_domain], "threshold": 0.15 }
        }),
    );
    let summary = harness::run(spec, data.path());
    let recs = harness::records(data.path(), "focus");

    // Best-first: both on-topic pages come before every off-topic page, although the seed
    // links to the off-topic ones first.
    let order = harness::captured(&recs);
    let pos = |p: &str| {
        let u = web.url(0, p);
        order
            .iter()
            .position(|x| *x == u)
            .unwrap_or_else(|| panic!("{u} fetched"))
    };
    let last_on_topic = pos("/solar.html").max(pos("/wind.html"));
    let first_off_topic = pos("/cooking.html")
        .min(pos("/football.html"))
        .min(pos("/gardening.html"));
    assert!(last_on_topic < first_off_topic, "fetch order: {order:?}");

    // Spam is never fetched.
    assert!(web.hits_for(1).iter().all(|h| h.target != "/spam.html"));

    // The seed's analysis record: relevance, and every outlink's five components.
    let rec = metadata(&recs, &seed, "application/vnd.magpie.analysis+json").expect("record");
    let v: Value = serde_json::from_slice(&rec.body).unwrap();
    assert!(v["relevance"].as_f64().unwrap() > 0.15, "{v}");
    let outlinks = v["outlinks"].as_array().unwrap();
    let link = |path: &str| {
        let u = web.url(0, path);
        outlinks
            .iter()
            .find(|o| o["url"] == u.as_str())
            .unwrap_or_else(|| panic!("{u} in {v}"))
    };
    for c in ["document", "paragraph", "anchor", "url", "parent", "total"] {
        let x = link("/solar.html")["score"][c].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&x), "{c} = {x}");
    }
    assert!(
        link("/solar.html")["score"]["total"].as_f64()
            > link("/cooking.html")["score"]["total"].as_f64(),
        "{v}"
    );
    let spam = outlinks
        .iter()
        .find(|o| o["url"].as_str().unwrap().ends_with("/spam.html"))
        .unwrap();
    assert_eq!(spam["blacklist"], true);
    assert_eq!(spam["score"]["total"], 0.0);

    // The warc-fields record says what an index rebuild needs.
    let fields = metadata(&recs, &web.url(0, "/solar.html"), "application/warc-fields").unwrap();
    let text = String::from_utf8_lossy(&fields.body);
    assert!(text.contains("magpie-relevance: ") && text.contains("magpie-priority: "));

    // Live statistics and the stored topic.
    assert_eq!(summary.pages_analysed, 7, "{summary:?}");
    assert!(summary.pages_relevant >= 3 && summary.pages_relevant < 7);
    assert!(summary.harvest_ratio > 0.4 && summary.harvest_ratio < 1.0);
    let topic: Value =
        serde_json::from_slice(&std::fs::read(data.path().join("focus/topic.json")).unwrap())
            .unwrap();
    assert_eq!(
        topic["reference_count"], 2,
        "seed and reference page learned: {topic}"
    );
    assert!(topic["references"]
        .as_object()
        .unwrap()
        .keys()
        .any(|t| t.starts_with("photovolta")));

    // The index knows each page's relevance.
    let idx = Index::open(&index::index_dir(data.path(), "focus")).unwrap();
    let mut q = SearchQuery::text("");
    q.kind = Some(DocKind::Page);
    q.per_page = 50;
    let hits = idx.search(&q).unwrap();
    let relevance = |p: &str| {
        let u = web.url(0, p);
        hits.hits
            .iter()
            .find(|h| h.url == u)
            .and_then(|h| h.relevance)
            .unwrap()
    };
    assert!(relevance("/solar.html") > 0.15 && relevance("/cooking.html") < 0.15);
    harness::warcio_check(&harness::warc_files(data.path(), "focus"));
}

#[test]
fn wordpress_post_is_recognised_its_feeds_skipped_and_its_objects_indexed() {
    let web = FixtureWeb::start(1);
    let base = web.base(0);
    let post = std::fs::read_to_string("tests/fixtures/kb/wordpress/post.html")
        .unwrap()
        .replace("https://blog.example.org", &base);
    let path = "/2024/05/14/hello-world/";
    web.route(0, path, Reply::html(post));
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "wp",
        &[web.url(0, path)],
        json!({ "scope": { "max_depth": 1 }, "limits": { "max_pages": 40 } }),
    );
    let summary = harness::run(spec, data.path());
    let recs = harness::records(data.path(), "wp");

    let rec = metadata(&recs, &web.url(0, path), "application/vnd.magpie.aah+json").unwrap();
    let v: Value = serde_json::from_slice(&rec.body).unwrap();
    assert_eq!(v["application"]["name"], "wordpress", "{v}");
    assert_eq!(v["level"]["name"], "post");
    assert_eq!(v["objects"].as_array().unwrap().len(), 3);

    // Feed, API and reply links are skipped, and never fetched.
    let targets: Vec<String> = web.hits().iter().map(|h| h.target.clone()).collect();
    for skipped in ["/feed/", "/wp-json/", "/comments/feed/"] {
        assert!(
            !targets.iter().any(|t| t == skipped),
            "{skipped} fetched: {targets:?}"
        );
    }
    assert!(
        !targets.iter().any(|t| t.contains("replytocom")),
        "{targets:?}"
    );
    assert!(
        summary
            .out_of_scope_by_reason
            .get("app-skip")
            .copied()
            .unwrap_or(0)
            >= 4
    );
    assert_eq!(summary.applications.get("wordpress"), Some(&1));

    // The post and its comments are searchable objects, linked to their capture.
    let idx = Index::open(&index::index_dir(data.path(), "wp")).unwrap();
    let mut q = SearchQuery::text("Thanks for stopping by");
    q.kind = Some(DocKind::Object);
    let hits = idx.search(&q).unwrap();
    assert_eq!(hits.total, 1, "{hits:?}");
    let mut q = SearchQuery::text("");
    q.app = Some("wordpress".into());
    q.kind = Some(DocKind::Page);
    assert_eq!(idx.search(&q).unwrap().total, 1);
}

/// A link the helper boosts moves up a queue it already sits in, through the same update path
/// as scores, even in a crawl without a topic.
#[test]
fn a_helper_boost_moves_a_queued_url_up_its_host_queue() {
    let web = FixtureWeb::start(1);
    let page = |body: &str| Reply::html(format!("<!DOCTYPE html><html><body>{body}</body></html>"));
    web.route(
        0,
        "/",
        page(
            "<p><a href=\"/hub/\">hub</a> <a href=\"/x1\">one</a> <a href=\"/x2\">two</a> \
             <a href=\"/x3\">three</a> <a href=\"/target\">target</a></p>",
        ),
    );
    // A WordPress blog home: its post links are boosted by the knowledge base.
    web.route(
        0,
        "/hub/",
        Reply::html(
            "<!DOCTYPE html><html><head><meta name=\"generator\" content=\"WordPress 6.5\">\
             </head><body class=\"home blog\"><article><h2 class=\"entry-title\">\
             <a href=\"/target\">The post</a></h2></article></body></html>",
        ),
    );
    for p in ["/x1", "/x2", "/x3", "/target"] {
        web.route(0, p, page("<p>leaf</p>"));
    }
    let data = tempfile::tempdir().unwrap();
    // One fetch at a time, 300 ms apart: longer than the frontier's commit interval, so each
    // choice sees every score staged before it.
    let spec = harness::spec(
        "boost",
        &[web.url(0, "/")],
        json!({ "politeness": { "min_delay_ms": 300, "max_delay_ms": 300 },
                "scope": { "sitemaps": false } }),
    );
    harness::run(spec, data.path());
    let order: Vec<String> = web
        .hits()
        .iter()
        .map(|h| h.target.clone())
        .filter(|t| t != "/robots.txt")
        .collect();
    assert_eq!(
        order,
        ["/", "/hub/", "/target", "/x1", "/x2", "/x3"],
        "the boosted post is fetched before the links queued ahead of it"
    );
}

/// On a site whose pages declare English and read as English, detection confirms the
/// declaration on the first pages and later pages are taken at their word, with spot checks; a
/// page declaring French is detected, and the analysis record says how each language was found.
#[test]
fn a_sites_confirmed_language_is_trusted_and_every_record_says_how_it_was_found() {
    const EN: &str = "The wind farm off the coast now supplies enough electricity for the whole \
                      town, and the council plans a second one next to the harbour.";
    const FR: &str = "Le parc éolien au large de la côte fournit désormais assez d'électricité \
                      pour toute la ville, et la mairie prévoit un second parc près du port.";
    // Each processor thread (one per core) confirms the site on its own.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let n = 24 + 12 * cores;
    let web = FixtureWeb::start(1);
    let links: String = (0..n)
        .map(|i| format!("<li><a href=\"/p{i}\">wind farm {i}</a></li>"))
        .collect();
    web.route(
        0,
        "/",
        // Prose first, so the language sample (the first 2 KiB) is not the link list.
        html(
            "Wind farms",
            &format!("<p>{}</p><ul>{links}</ul>", [EN; 14].join(" ")),
        ),
    );
    for i in 0..n {
        web.route(
            0,
            &format!("/p{i}"),
            html("Wind farm", &format!("<p>{EN} {i}</p>")),
        );
    }
    web.route(
        0,
        "/fr",
        Reply::html(format!(
            "<!DOCTYPE html><html lang=\"fr\"><body><p>{FR}</p></body></html>"
        )),
    );
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "lang",
        &[web.url(0, "/"), web.url(0, "/fr")],
        json!({ "topic": { "keywords": ["wind farm"] }, "scope": { "sitemaps": false },
                "limits": { "max_pages": n + 10 } }),
    );
    let summary = harness::run(spec, data.path());
    assert_eq!(summary.pages_analysed as usize, n + 2, "{summary:?}");
    let recs = harness::records(data.path(), "lang");
    let analysis = |path: &str| -> Value {
        let rec = metadata(
            &recs,
            &web.url(0, path),
            "application/vnd.magpie.analysis+json",
        );
        serde_json::from_slice(&rec.expect("analysis record").body).unwrap()
    };
    let fr = analysis("/fr");
    assert_eq!(
        (&fr["lang"], &fr["lang_source"]),
        (&json!("fr"), &json!("detected"))
    );
    let mut by_source = std::collections::HashMap::<String, usize>::new();
    for path in std::iter::once("/".to_string()).chain((0..n).map(|i| format!("/p{i}"))) {
        let v = analysis(&path);
        assert_eq!(v["lang"], "en", "{path}: {v}");
        let source = v["lang_source"].as_str().unwrap().to_string();
        match source.as_str() {
            "detected" => assert!(v["lang_confidence"].as_f64().unwrap() > 0.5, "{v}"),
            "confirmed" => assert_eq!(v["lang_confidence"], 0.0, "{v}"),
            other => panic!("{path}: lang_source {other}"),
        }
        *by_source.entry(source).or_default() += 1;
    }
    // Each thread detects 3 pages, then spot-checks 1 in 16 (at most one more per thread
    // for the rounding).
    let detected = by_source.get("detected").copied().unwrap_or(0);
    let most = 3 * cores + (n + 1) / 16 + cores;
    assert!((3..=most).contains(&detected), "{by_source:?}");
    assert_eq!(
        detected + by_source.get("confirmed").copied().unwrap_or(0),
        n + 1
    );
}

/// The topic published for the server (`topic.json`) is persisted state: a crawl that cannot
/// write it stops with an error naming the file, never a warning it goes on past.
#[test]
fn a_topic_that_cannot_be_published_fails_the_crawl_naming_the_file() {
    let web = FixtureWeb::start(1);
    web.route(0, "/", html("Solar", "<p>Solar power panels.</p>"));
    let data = tempfile::tempdir().unwrap();
    // A folder where the file goes: the rename onto it fails.
    let topic = data.path().join("blocked/topic.json");
    std::fs::create_dir_all(topic.join("inside")).unwrap();
    let spec = harness::spec(
        "blocked",
        &[web.url(0, "/")],
        json!({ "topic": { "keywords": ["solar power"] } }),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (_control, rx) = tokio::sync::mpsc::unbounded_channel();
    let opts = magpie::crawl::CrawlOptions {
        data: data.path().to_path_buf(),
        fresh: false,
        hostname: "testhost".into(),
    };
    let stats = std::sync::Arc::new(magpie::crawl::stats::Stats::default());
    let err = rt
        .block_on(magpie::crawl::run(spec, opts, stats, rx, false))
        .expect_err("the crawl cannot publish its topic");
    let msg = err.to_string();
    assert!(
        msg.starts_with("cannot publish the topic to ") && msg.contains("blocked/topic.json"),
        "{msg}"
    );
}
