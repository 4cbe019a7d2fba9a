//! End-to-end: crawl the fixture web, build the capture index from the WARC files, and check
//! that search finds exactly what was archived with the right facet counts, that a rebuild
//! gives the same results, that lookups replay the served bytes (revisits through their
//! originals), and that the commands behave.

use crate::support;

use magpie::crawl::reindex::{self, TextLimits};
use magpie::index::{self, CaptureKind, Facets, Index, SearchQuery};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use support::{basic_site, client, harness, FixtureWeb, Reply};

const DUP: &str = "<!DOCTYPE html><html lang=\"en\"><head><title>Twin</title></head>\
    <body><p>Identical twin pages share one payload.</p></body></html>";

/// A basic site, a page on a second host, and two pages with identical bodies (the second becomes a revisit).
fn crawl(data: &Path) -> (FixtureWeb, Vec<harness::Rec>) {
    let web = FixtureWeb::start(2);
    let a = basic_site(&web, 0);
    web.route(
        0,
        "/dups.html",
        Reply::html(support::page("Dups", "", &["/dup-a.html", "/dup-b.html"])),
    );
    web.route(0, "/dup-a.html", Reply::html(DUP));
    web.route(0, "/dup-b.html", Reply::html(DUP));
    let spec = harness::spec(
        "idx",
        &[
            a.seed.clone(),
            web.url(0, "/dups.html"),
            web.base(1) + "/elsewhere.html",
        ],
        json!({}),
    );
    harness::run(spec, data);
    let recs = harness::records(data, "idx");
    (web, recs)
}

fn status_of(r: &harness::Rec) -> u16 {
    String::from_utf8_lossy(&r.body)
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn all(index: &Index, q: &str) -> magpie::index::SearchResults {
    index
        .search(&SearchQuery {
            per_page: 1000,
            ..SearchQuery::text(q)
        })
        .expect("search")
}

#[test]
fn search_finds_what_was_crawled_and_counts_facets() {
    let data = tempfile::tempdir().unwrap();
    let (web, recs) = crawl(data.path());
    let warcs = index::warc_dir(data.path(), "idx");
    let index = Index::open(&index::index_dir(data.path(), "idx")).unwrap();
    let report = reindex::rebuild(&index, &warcs, &TextLimits::default()).unwrap();

    let captures: Vec<&harness::Rec> = recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
        .collect();
    assert_eq!(report.captures, captures.len() as u64);
    assert_eq!(report.revisits, 1, "dup-b is a revisit of dup-a");

    // Everything archived is found, once.
    let r = all(&index, "");
    assert_eq!(r.total, captures.len() as u64);
    let mut got: Vec<String> = r.hits.iter().map(|h| h.url.clone()).collect();
    let mut want: Vec<String> = captures.iter().map(|r| r.uri.clone()).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);

    // Facets count every capture by host and status class.
    let mut by_host: HashMap<String, u64> = HashMap::new();
    let mut by_class: HashMap<String, u64> = HashMap::new();
    for c in &captures {
        let host = url::Url::parse(&c.uri).unwrap();
        *by_host
            .entry(format!(
                "{}:{}",
                host.host_str().unwrap(),
                host.port().unwrap()
            ))
            .or_default() += 1;
        *by_class
            .entry(format!("{}xx", status_of(c) / 100))
            .or_default() += 1;
    }
    for (host, n) in &by_host {
        assert_eq!(Facets::count(&r.facets.hosts, host), *n, "host {host}");
    }
    assert_eq!(r.facets.hosts.len(), by_host.len());
    for (class, n) in &by_class {
        assert_eq!(
            Facets::count(&r.facets.status_classes, class),
            *n,
            "{class}"
        );
    }
    let html_ok = captures
        .iter()
        .filter(|c| c.kind == "response" && status_of(c) == 200)
        .filter(|c| String::from_utf8_lossy(&c.body).contains("lang=\"en\""))
        .count() as u64;
    assert_eq!(Facets::count(&r.facets.langs, "en"), html_ok);

    // Words find their pages; filters narrow.
    let r = all(&index, "title:\"page a\"");
    let urls: Vec<&str> = r.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(urls, [web.url(0, "/a.html")]);
    let r = index
        .search(&SearchQuery {
            host: Some(web.addr(1).to_string()),
            ..SearchQuery::text("elsewhere")
        })
        .unwrap();
    assert_eq!(r.total, 1);
    assert_eq!(r.hits[0].url, web.url(1, "/elsewhere.html"));
    assert!(
        r.hits[0].snippet.contains("<mark>Elsewhere</mark>"),
        "{}",
        r.hits[0].snippet
    );
    let twins = all(&index, "identical twin");
    assert_eq!(twins.total, 1, "the revisit carries no text of its own");

    // A bad query is an error, not a panic.
    assert!(matches!(
        index.search(&SearchQuery::text("title:(")),
        Err(index::IndexError::BadQuery { .. })
    ));

    // A second rebuild, elsewhere, gives the same results.
    let other = tempfile::tempdir().unwrap();
    let again = Index::open(other.path()).unwrap();
    reindex::rebuild(&again, &warcs, &TextLimits::default()).unwrap();
    for q in ["", "page", "title:basic", "status:404", "twin OR elsewhere"] {
        assert_eq!(all(&index, q), all(&again, q), "query {q:?}");
    }
}

#[test]
fn lookups_replay_the_served_bytes_and_resolve_revisits() {
    let data = tempfile::tempdir().unwrap();
    let (web, _recs) = crawl(data.path());
    let warcs = index::warc_dir(data.path(), "idx");
    let index = Index::open(&index::index_dir(data.path(), "idx")).unwrap();
    reindex::rebuild(&index, &warcs, &TextLimits::default()).unwrap();

    let home = web.url(0, "/");
    let caps = index.captures_of(&home).unwrap();
    assert_eq!(caps.len(), 1);
    let replay = index.capture_at(&warcs, &home, None, 1 << 20).unwrap();
    let served = client::get(&web, 0, "/");
    assert_eq!(replay.http[replay.header_len..], served.body[..]);
    assert!(replay.http.starts_with(b"HTTP/1."));

    let b = web.url(0, "/dup-b.html");
    let rb = index.capture_at(&warcs, &b, None, 1 << 20).unwrap();
    assert_eq!(rb.capture.kind, CaptureKind::Revisit);
    let original = rb.original.expect("resolved");
    assert_eq!(original.url, web.url(0, "/dup-a.html"));
    assert_eq!(&rb.http[rb.header_len..], DUP.as_bytes());
}

#[test]
fn commands_rebuild_search_and_refuse_bad_queries() {
    let data = tempfile::tempdir().unwrap();
    let (_web, recs) = crawl(data.path());
    let d = data.path().to_str().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_magpie"))
            .args(args)
            .output()
            .expect("run magpie")
    };
    // The crawl indexed as it ran: every capture is searchable without a rebuild, and a
    // rebuild from the WARC files finds the same documents.
    let captures = recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
        .count();
    let everything = |run: &dyn Fn(&[&str]) -> std::process::Output| {
        let o = run(&[
            "search",
            "idx",
            "",
            "--data",
            d,
            "--json",
            "--per-page",
            "100",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let mut urls: Vec<String> = v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| format!("{} {} {}", h["url"], h["kind"], h["title"]))
            .collect();
        urls.sort();
        (v["total"].clone(), urls)
    };
    let live = everything(&run);
    assert_eq!(live.0, captures, "the live index holds every capture");

    let o = run(&["index", "rebuild", "idx", "--data", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        everything(&run),
        live,
        "a rebuild finds what the crawl indexed"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("indexed {captures} captures")));

    // The rebuild reads the text limits stored with the index, not the spec (which may have
    // changed or gone); without either it refuses, naming the spec, rather than index with
    // defaults the crawl did not use.
    let spec = Path::new(d).join("idx").join("spec.json");
    let aside = Path::new(d).join("spec.json.aside");
    std::fs::rename(&spec, &aside).unwrap();
    let o = run(&["index", "rebuild", "idx", "--data", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(everything(&run), live, "rebuilt with the stored limits");
    let stored = index::index_dir(Path::new(d), "idx").join("text-limits.json");
    std::fs::remove_file(&stored).unwrap();
    let o = run(&["index", "rebuild", "idx", "--data", d]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("spec.json") && !err.contains("panicked"),
        "{err}"
    );
    std::fs::rename(&aside, &spec).unwrap();
    let o = run(&["index", "rebuild", "idx", "--data", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stored.is_file(), "the rebuild stores the limits it used");

    let o = run(&[
        "search",
        "idx",
        "",
        "--data",
        d,
        "--json",
        "--per-page",
        "3",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["total"], captures);
    assert_eq!(v["hits"].as_array().unwrap().len(), 3);
    assert!(v["facets"]["hosts"].as_array().unwrap().len() == 2);

    let o = run(&["search", "idx", "page", "--data", d]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && text.contains("matches") && text.contains("hosts:"),
        "{text}"
    );

    let o = run(&["search", "idx", "title:(", "--data", d]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("bad query") && !err.contains("panicked"),
        "{err}"
    );
    let o = run(&["search", "idx", "x", "--data", d, "--kind", "pages"]);
    assert!(!o.status.success());

    // Exporting never changes the crawl's own WARC files (compared byte for byte at the end).
    let warc_dir = index::warc_dir(data.path(), "idx");
    let snapshot = || {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&warc_dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (p.to_string_lossy().into_owned(), std::fs::read(&p).unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let before = snapshot();
    let urls_of = |cdxj: &str| -> Vec<String> {
        let text = std::fs::read_to_string(format!("{cdxj}.cdxj")).unwrap();
        text.lines()
            .map(|l| {
                let json = &l[l.find('{').unwrap()..];
                let v: Value = serde_json::from_str(json).unwrap();
                v["url"].as_str().unwrap().to_string()
            })
            .collect()
    };
    let export = |name: &str, extra: &[&str]| -> String {
        let out = data.path().join(name).to_string_lossy().into_owned();
        let mut args = vec!["export", "idx", "--data", d, "--out", &out];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    // --host keeps one host's captures, all of them.
    let host1 = _web.base(1);
    let on_host1 = recs
        .iter()
        .filter(|r| (r.kind == "response" || r.kind == "revisit") && r.uri.starts_with(&host1))
        .count();
    let host_key = host1.trim_start_matches("http://").to_string();
    let urls = urls_of(&export("host.warc.gz", &["--host", &host_key]));
    assert_eq!(urls.len(), on_host1, "{urls:?}");
    assert!(urls.iter().all(|u| u.starts_with(&host1)), "{urls:?}");
    // --with-embeds adds the page requisites the selected page was fetched with.
    let home = export("home.warc.gz", &["--query", "title:home"]);
    let bare = urls_of(&home);
    assert_eq!(bare.len(), 1, "{bare:?}");
    let with = urls_of(&export(
        "home-embeds.warc.gz",
        &["--query", "title:home", "--with-embeds"],
    ));
    for embed in ["/style.css", "/img/logo.png"] {
        assert!(!bare.iter().any(|u| u.ends_with(embed)), "{bare:?}");
        assert!(with.iter().any(|u| u.ends_with(embed)), "{embed}: {with:?}");
    }
    // A selection of nothing is an export of nothing: its warcinfo, and an empty index.
    let none = export("none.warc.gz", &["--min-score", "2"]);
    assert!(urls_of(&none).is_empty());

    // Export from the command line, then index the export: the same CDXJ as written beside it.
    let out = data.path().join("twin.warc.gz");
    let o_str = out.to_str().unwrap();
    let o = run(&[
        "export", "idx", "--data", d, "--out", o_str, "--query", "twin",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 selected"));
    let o = run(&["cdxj", o_str]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let beside = std::fs::read_to_string(format!("{o_str}.cdxj")).unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), beside);
    assert_eq!(beside.lines().count(), 1);
    assert!(snapshot() == before, "the crawl's WARC files are unchanged");
}

#[test]
fn a_crawl_without_the_index_only_archives_and_can_be_indexed_later() {
    let web = FixtureWeb::start(1);
    let a = basic_site(&web, 0);
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec("plain", &[a.seed], json!({ "index": { "enabled": false } }));
    harness::run(spec, data.path());
    let dir = index::index_dir(data.path(), "plain");
    assert!(!dir.exists(), "no index written");
    let recs = harness::records(data.path(), "plain");
    let idx = Index::open(&dir).unwrap();
    let report = reindex::rebuild(
        &idx,
        &index::warc_dir(data.path(), "plain"),
        &TextLimits::default(),
    )
    .unwrap();
    let captures = recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
        .count();
    assert_eq!(report.captures as usize, captures);
}

/// The live crawl and a rebuild from its WARC files build each capture document the same way:
/// a real crawl with a topic (relevance and score), the helper (application and level of a
/// WordPress post), a revisit, a chunked answer and a redirect, then every stored field of
/// every document compared with those of a rebuild into a second index.
#[test]
fn a_rebuild_stores_exactly_the_documents_the_live_crawl_indexed() {
    let web = FixtureWeb::start(2);
    let mut seeds = support::twin_site(&web, 0, DUP);
    seeds.push(support::chunked_page(&web, 0));
    seeds.push(support::redirect_loop(&web, 0));
    let post = std::fs::read_to_string("tests/fixtures/kb/wordpress/post.html")
        .unwrap()
        .replace("https://blog.example.org", &web.base(1));
    web.route(1, "/2024/05/14/hello-world/", Reply::html(post));
    seeds.push(web.url(1, "/2024/05/14/hello-world/"));
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "same",
        &seeds,
        json!({ "topic": { "keywords": ["hello world", "twin pages"] },
                "scope": { "max_depth": 1 }, "limits": { "max_pages": 60 } }),
    );
    harness::run(spec, data.path());

    let dir = index::index_dir(data.path(), "same");
    let live = Index::open(&dir).unwrap().capture_docs().unwrap();
    let limits = TextLimits::load(&dir)
        .unwrap()
        .expect("limits stored with the index");
    let again = tempfile::tempdir().unwrap();
    let rebuilt = Index::open(again.path()).unwrap();
    reindex::rebuild(&rebuilt, &index::warc_dir(data.path(), "same"), &limits).unwrap();
    let rebuilt = rebuilt.capture_docs().unwrap();

    let recs = harness::records(data.path(), "same");
    assert_eq!(
        live.len(),
        harness::captured(&recs).len(),
        "one per capture"
    );
    let kinds: Vec<CaptureKind> = live.iter().map(|d| d.kind).collect();
    assert!(kinds.contains(&CaptureKind::Revisit), "{kinds:?}");
    assert!(live.iter().any(|d| d.app.as_deref() == Some("wordpress")));
    assert!(live.iter().any(|d| d.relevance.is_some()));
    assert_eq!(live.len(), rebuilt.len());
    for (l, r) in live.iter().zip(&rebuilt) {
        assert_eq!(l, r, "{}", l.url);
    }
}
