//! End-to-end: a crawl of the fixture web with a topic (so magpie's JSON analysis records are
//! archived beside the request and metadata records) is exported, and every count the export
//! reports (the CLI's, the preview's, the API's, which share one code path) equals the number
//! of records the written file holds, read back with the independent `warc` crate.

mod support;

use magpie::export::{self, ExportRequest};
use magpie::index::{self, Index, RebuildOptions, SearchQuery};
use serde_json::json;
use std::path::Path;
use support::{basic_site, harness, page, FixtureWeb, Reply};

const DUP: &str = "<!DOCTYPE html><html lang=\"en\"><head><title>Twin</title></head>\
    <body><p>Identical twin pages about solar power.</p></body></html>";

struct Crawled {
    web: FixtureWeb,
    data: tempfile::TempDir,
}

fn crawl() -> Crawled {
    let web = FixtureWeb::start(1);
    let site = basic_site(&web, 0);
    web.route(
        0,
        "/dups.html",
        Reply::html(page("Dups", "", &["/dup-a.html", "/dup-b.html"])),
    );
    web.route(0, "/dup-a.html", Reply::html(DUP));
    web.route(0, "/dup-b.html", Reply::html(DUP));
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "wz",
        &[site.seed, web.url(0, "/dups.html")],
        json!({ "topic": { "keywords": ["solar power", "page text"] } }),
    );
    harness::run(spec, data.path());
    let index = Index::open(&index::index_dir(data.path(), "wz")).unwrap();
    index
        .rebuild(
            &index::warc_dir(data.path(), "wz"),
            &RebuildOptions::default(),
        )
        .unwrap();
    Crawled { web, data }
}

/// Records of one WARC file, read with the `warc` crate.
fn records_of(file: &Path) -> Vec<harness::Rec> {
    let dir = tempfile::tempdir().unwrap();
    let crawl_dir = dir.path().join("x").join("warc");
    std::fs::create_dir_all(&crawl_dir).unwrap();
    std::fs::copy(file, crawl_dir.join("a.warc.gz")).unwrap();
    harness::records(dir.path(), "x")
}

#[test]
fn every_reported_record_count_is_the_number_of_records_written() {
    let c = crawl();
    let analysis = harness::records(c.data.path(), "wz")
        .iter()
        .filter(|r| {
            r.field("Content-Type") == Some("application/vnd.magpie.analysis+json")
                && r.kind == "metadata"
        })
        .count();
    assert!(analysis > 0, "the crawl wrote analysis records");
    let data = c.data.path();
    let index = Index::open(&index::index_dir(data, "wz")).unwrap();
    let warcs = index::warc_dir(data, "wz");
    for (q, embeds) in [
        (SearchQuery::default(), false),
        (SearchQuery::text("title:\"basic home\""), true),
        (
            SearchQuery::text(format!("url:\"{}\"", c.web.url(0, "/dup-b.html"))),
            false,
        ),
    ] {
        let req = ExportRequest {
            query: q.clone(),
            with_embeds: embeds,
            crawl: "wz".into(),
        };
        let out = data.join("out.warc.gz");
        let report = export::cli::export_to_file(data, &req, &out).unwrap();
        let recs = records_of(&out);
        let json_records = recs
            .iter()
            .filter(|r| {
                r.field("Content-Type")
                    .is_some_and(|t| t.starts_with("application/vnd.magpie."))
            })
            .count();
        assert!(json_records > 0, "{q:?}: JSON records exported");
        assert_eq!(report.records, recs.len(), "{q:?}: the export's count");
        let preview = export::preview(&index, &warcs, &req, "out.warc.gz").unwrap();
        assert_eq!(preview.records, recs.len(), "{q:?}: the preview's count");
        std::fs::remove_file(&out).unwrap();
    }
}
