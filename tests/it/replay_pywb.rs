//! End-to-end: a crawl with a topic and the application-aware helper on, loaded into pywb the
//! standard way (`wb-manager add`, pywb's own indexer), replays every archived 2xx HTML page
//! byte for byte in identity mode; so does an export of it. magpie's JSON metadata records
//! (analysis, helper) must never be picked for replay in place of the page they describe.

use crate::support;

use magpie::export::{self, ExportRequest};
use magpie::index::SearchQuery;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{basic_site, harness, pywb, FixtureWeb, Reply};

/// A post page that the helper recognises as WordPress (generator, wp-content).
const POST: &str = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
    <meta name=\"generator\" content=\"WordPress 6.7\">\
    <link rel=\"stylesheet\" href=\"/wp-content/themes/x/style.css\">\
    <title>Solar panels on the roof</title></head>\
    <body class=\"post-template-default single single-post\"><article>\
    <h1 class=\"entry-title\">Solar panels on the roof</h1>\
    <div class=\"entry-content\"><p>Solar panels and batteries: a basic page about solar power\
    at home.</p></div></article><p><a href=\"/a.html\">Basic page a</a></p></body></html>";

struct Crawled {
    _web: FixtureWeb,
    data: tempfile::TempDir,
}

fn crawl() -> Crawled {
    let web = FixtureWeb::start(1);
    let site = basic_site(&web, 0);
    web.route(0, "/post.html", Reply::html(POST));
    web.route(
        0,
        "/wp-content/themes/x/style.css",
        Reply::typed("text/css", "body{color:#333}"),
    );
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "replay",
        &[site.seed, web.url(0, "/post.html")],
        json!({ "topic": { "keywords": ["basic page", "solar"] } }),
    );
    harness::run(spec, data.path());
    Crawled { _web: web, data }
}

/// Every 2xx `text/html` response of the files: (URL, timestamp, payload).
fn html_pages(files: &[PathBuf]) -> Vec<(String, String, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("x").join("warc");
    std::fs::create_dir_all(&warc).unwrap();
    for (i, f) in files.iter().enumerate() {
        std::fs::copy(f, warc.join(format!("{i:03}.warc.gz"))).unwrap();
    }
    harness::records(dir.path(), "x")
        .into_iter()
        .filter(|r| r.kind == "response")
        .filter(|r| r.http_status().is_some_and(|s| (200..300).contains(&s)))
        .filter(|r| {
            r.http_header("content-type")
                .is_some_and(|t| t.contains("text/html"))
        })
        .map(|r| {
            let ts = pywb::timestamp14(r.field("WARC-Date").unwrap());
            (r.uri.clone(), ts, r.http_body().to_vec())
        })
        .collect()
}

/// Loads the files into a fresh pywb collection with `wb-manager add` and checks that every
/// archived 2xx HTML page replays byte for byte.
fn replays_every_page(files: &[PathBuf]) -> usize {
    let pages = html_pages(files);
    assert!(!pages.is_empty());
    let root = tempfile::tempdir().unwrap();
    pywb::collection(root.path(), "c", files);
    let wayback = pywb::Wayback::start(root.path());
    for (url, ts, payload) in &pages {
        let (status, body) = wayback.replay_id("c", ts, url);
        assert_eq!(status, 200, "{url}: {}", String::from_utf8_lossy(&body));
        assert!(
            body == *payload,
            "{url} replays something else than the page:\n{}",
            String::from_utf8_lossy(&body)
        );
    }
    pages.len()
}

/// The JSON metadata records of the files: (Target-URI, Concurrent-To).
fn json_notes(files: &[PathBuf]) -> Vec<(String, String)> {
    let data = files[0]
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap();
    let crawl = files[0]
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    harness::records(data, &crawl)
        .into_iter()
        .filter(|r| r.kind == "metadata")
        .filter(|r| {
            r.field("Content-Type")
                .is_some_and(|t| t.contains("vnd.magpie"))
        })
        .map(|r| {
            (
                r.uri.clone(),
                r.field("WARC-Concurrent-To")
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect()
}

/// pywb's `cdx-indexer` (CDX and CDXJ): no line for a magpie JSON record under a page's URL.
fn cdx_indexer_keeps_notes_off_page_urls(files: &[PathBuf]) {
    for args in [&[][..], &["-j"][..]] {
        let out = Command::new("cdx-indexer")
            .args(args)
            .args(files)
            .output()
            .expect("cdx-indexer runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let notes: Vec<&str> = text.lines().filter(|l| l.contains("vnd.magpie")).collect();
        assert!(!notes.is_empty(), "pywb indexes the JSON records:\n{text}");
        for line in notes {
            assert!(
                !line.contains(" http://") && !line.contains("\"url\": \"http"),
                "a JSON record indexed under a page URL: {line}"
            );
        }
    }
}

fn warc_files(data: &Path) -> Vec<PathBuf> {
    harness::warc_files(data, "replay")
}

#[test]
fn json_records_live_under_urn_target_uris_tied_to_their_response() {
    let c = crawl();
    let files = warc_files(c.data.path());
    let notes = json_notes(&files);
    assert!(
        notes
            .iter()
            .any(|(u, _)| u.starts_with("urn:magpie:analysis:http")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|(u, _)| u.starts_with("urn:magpie:aah:http")),
        "the helper recognised the post: {notes:?}"
    );
    let recs = harness::records(c.data.path(), "replay");
    for (uri, concurrent) in &notes {
        let page = uri.splitn(4, ':').nth(3).unwrap();
        let response = harness::one(&recs, "response", page);
        assert_eq!(response.field("WARC-Record-ID"), Some(concurrent.as_str()));
    }
}

#[test]
fn pywb_replays_every_page_of_the_crawl_and_of_an_export() {
    if !pywb::available() {
        return;
    }
    let c = crawl();
    let files = warc_files(c.data.path());
    cdx_indexer_keeps_notes_off_page_urls(&files);
    let pages = replays_every_page(&files);
    assert!(pages >= 4, "the home, a, b and the post: {pages}");

    let out = c.data.path().join("out").join("all.warc.gz");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let req = ExportRequest {
        query: SearchQuery::text(""),
        with_embeds: true,
        crawl: "replay".into(),
    };
    export::cli::export_to_file(c.data.path(), &req, &out).unwrap();
    cdx_indexer_keeps_notes_off_page_urls(std::slice::from_ref(&out));
    assert_eq!(replays_every_page(std::slice::from_ref(&out)), pages);
}
