//! End-to-end: crawl the fixture web, index it from the WARC files, export a selection, and
//! check the export holds exactly the selected captures (revisits with their originals, page
//! requisites on request), passes `warcio check`, has CDXJ lines pointing at the right
//! records, and replays in pywb from our CDXJ.

use crate::support;

use magpie::archive::read_record_at;
use magpie::crawl::reindex::{self, TextLimits};
use magpie::export::{self, cli::cdxj_path, ExportRequest};
use magpie::index::{self, Index, SearchQuery};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use support::{client, harness, pywb, FixtureWeb};

const DUP: &str = "<!DOCTYPE html><html lang=\"en\"><head><title>Twin</title></head>\
    <body><p>Identical twin pages share one payload.</p></body></html>";

struct Crawled {
    web: FixtureWeb,
    data: tempfile::TempDir,
}

fn crawl() -> Crawled {
    let web = FixtureWeb::start(1);
    let seeds = support::twin_site(&web, 0, DUP);
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec("exp", &seeds, json!({}));
    harness::run(spec, data.path());
    let index = Index::open(&index::index_dir(data.path(), "exp")).unwrap();
    reindex::rebuild(
        &index,
        &index::warc_dir(data.path(), "exp"),
        &TextLimits::default(),
    )
    .unwrap();
    Crawled { web, data }
}

fn export_to(c: &Crawled, query: SearchQuery, with_embeds: bool) -> (PathBuf, Vec<harness::Rec>) {
    let out = c.data.path().join("out").join("selected.warc.gz");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let req = ExportRequest {
        query,
        with_embeds,
        crawl: "exp".into(),
    };
    export::cli::export_to_file(c.data.path(), &req, &out).unwrap();
    let recs = records_of(&out);
    (out, recs)
}

/// Records of one file, read with the independent `warc` crate.
fn records_of(file: &Path) -> Vec<harness::Rec> {
    let dir = tempfile::tempdir().unwrap();
    let crawl_dir = dir.path().join("x").join("warc");
    std::fs::create_dir_all(&crawl_dir).unwrap();
    std::fs::copy(file, crawl_dir.join("a.warc.gz")).unwrap();
    harness::records(dir.path(), "x")
}

fn uris(recs: &[harness::Rec], kind: &str) -> BTreeSet<String> {
    recs.iter()
        .filter(|r| r.kind == kind)
        .map(|r| r.uri.clone())
        .collect()
}

#[test]
fn export_holds_exactly_the_selection_and_passes_warcio() {
    let c = crawl();
    let u = |p: &str| c.web.url(0, p);
    let (out, recs) = export_to(
        &c,
        SearchQuery::text("title:\"page a\" OR title:\"page b\""),
        false,
    );
    assert_eq!(recs[0].kind, "warcinfo");
    let info = String::from_utf8_lossy(&recs[0].body).into_owned();
    assert!(info.contains("source-crawl: exp"), "{info}");
    assert!(
        info.contains("selection-query: title:\"page a\" OR title:\"page b\""),
        "{info}"
    );
    let want: BTreeSet<String> = [u("/a.html"), u("/b.html")].into();
    assert_eq!(uris(&recs, "response"), want);
    assert_eq!(uris(&recs, "request"), want);
    // Each page's crawl metadata and the helper's reading of it (no application claimed).
    let metadata: BTreeSet<String> = want
        .iter()
        .flat_map(|u| [u.clone(), format!("urn:magpie:aah:{u}")])
        .collect();
    assert_eq!(uris(&recs, "metadata"), metadata);
    assert!(uris(&recs, "revisit").is_empty());
    assert_eq!(recs.iter().filter(|r| r.kind == "warcinfo").count(), 2);
    assert_eq!(recs.len(), 2 + 4 * 2);
    harness::warcio_check(std::slice::from_ref(&out));
    let defects = magpie::archive::check_file(&out).unwrap();
    assert!(defects.is_empty(), "{defects:?}");

    // Every CDXJ line points at its record.
    let cdxj = std::fs::read_to_string(cdxj_path(&out)).unwrap();
    let lines: Vec<&str> = cdxj.lines().collect();
    assert_eq!(lines.len(), 2);
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "sorted");
    for line in lines {
        let json_at = line.find('{').unwrap();
        let v: Value = serde_json::from_str(&line[json_at..]).unwrap();
        let offset: u64 = v["offset"].as_str().unwrap().parse().unwrap();
        let (head, block) = read_record_at(&out, offset).unwrap();
        assert_eq!(head.field("WARC-Target-URI"), v["url"].as_str());
        assert_eq!(v["filename"], "selected.warc.gz");
        assert_eq!(v["status"], "200");
        assert!(block.starts_with(b"HTTP/1."));
        let key = line.split(' ').next().unwrap();
        assert!(key.starts_with("1,0,0,127:"), "SURT of 127.0.0.1: {key}");
    }
}

#[test]
fn revisits_come_with_originals_and_embeds_on_request() {
    let c = crawl();
    let u = |p: &str| c.web.url(0, p);
    let (out, recs) = export_to(
        &c,
        SearchQuery::text(format!("url:\"{}\"", u("/dup-b.html"))),
        false,
    );
    assert_eq!(uris(&recs, "revisit"), [u("/dup-b.html")].into());
    assert_eq!(
        uris(&recs, "response"),
        [u("/dup-a.html")].into(),
        "the original"
    );
    let revisit = recs.iter().find(|r| r.kind == "revisit").unwrap();
    let original = recs.iter().find(|r| r.kind == "response").unwrap();
    assert_eq!(
        revisit.field("WARC-Refers-To"),
        original.field("WARC-Record-ID")
    );
    harness::warcio_check(std::slice::from_ref(&out));

    let (out, recs) = export_to(&c, SearchQuery::text("title:\"basic home\""), true);
    let want: BTreeSet<String> = [
        u("/"),
        u("/style.css"),
        u("/img/logo.png"),
        u("/img/bg.png"),
    ]
    .into();
    assert_eq!(
        uris(&recs, "response"),
        want,
        "the page, its style, its images"
    );
    let mut metadata = want.clone();
    metadata.insert(format!("urn:magpie:aah:{}", u("/")));
    assert_eq!(uris(&recs, "metadata"), metadata);
    harness::warcio_check(std::slice::from_ref(&out));
}

#[test]
fn an_exported_page_replays_in_pywb_from_our_cdxj() {
    if !pywb::available() {
        return;
    }
    let c = crawl();
    let u = |p: &str| c.web.url(0, p);
    let q = format!("title:\"basic home\" OR url:\"{}\"", u("/dup-b.html"));
    let (out, recs) = export_to(&c, SearchQuery::text(q), true);
    assert_eq!(uris(&recs, "revisit"), [u("/dup-b.html")].into());
    let root = tempfile::tempdir().unwrap();
    let coll = pywb::init_collection(root.path(), "coll");
    std::fs::copy(&out, coll.join("archive").join("selected.warc.gz")).unwrap();
    std::fs::copy(cdxj_path(&out), coll.join("indexes").join("index.cdxj")).unwrap();
    let wayback = pywb::Wayback::start(root.path());
    let get = |path: &str| wayback.get(path);

    let cdxj = std::fs::read_to_string(cdxj_path(&out)).unwrap();
    let stamp = |url: &str| -> String {
        cdxj.lines()
            .find(|l| l.contains(&format!("\"url\": \"{url}\"")))
            .and_then(|l| l.split(' ').nth(1))
            .unwrap_or_else(|| panic!("{url} in the CDXJ:\n{cdxj}"))
            .to_string()
    };
    // The page, byte for byte as served (identity mode), and one of its images.
    let home = u("/");
    let (status, body) = get(&format!("/coll/{}id_/{home}", stamp(&home)));
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(body, client::get(&c.web, 0, "/").body);
    let logo = u("/img/logo.png");
    let (status, body) = get(&format!("/coll/{}id_/{logo}", stamp(&logo)));
    assert_eq!(status, 200);
    assert_eq!(body, client::get(&c.web, 0, "/img/logo.png").body);
    // The revisit replays its original's payload.
    let b = u("/dup-b.html");
    let (status, body) = get(&format!("/coll/{}id_/{b}", stamp(&b)));
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(body, DUP.as_bytes());
}
