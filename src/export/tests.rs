//! Unit tests of export: exactly the selected records, copied byte for byte, revisits with
//! their originals, page requisites on request, and CDXJ lines that point at the records.

use super::*;
use crate::archive::{read_record_at, RecordHead};
use crate::crawl::test_crawl::{SimCrawl, BASE};
use crate::index::{Index, SearchQuery};
use std::io::BufReader;

struct Exported {
    bytes: Vec<u8>,
    report: ExportReport,
    heads: Vec<RecordHead>,
}

fn site() -> (tempfile::TempDir, SimCrawl, Index) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut sim = SimCrawl::new(dir.path(), 1 << 30);
    sim.site();
    sim.close();
    let index = Index::temporary().expect("index");
    crate::crawl::reindex::rebuild(&index, dir.path(), &sim.opts).expect("rebuild");
    (dir, sim, index)
}

fn run(index: &Index, dir: &Path, q: SearchQuery, with_embeds: bool) -> Exported {
    let req = ExportRequest {
        query: q,
        with_embeds,
        crawl: "sim".into(),
    };
    let mut bytes = Vec::new();
    let report = export(index, dir, &req, "out.warc.gz", &mut bytes).expect("export");
    assert_eq!(report.bytes, bytes.len() as u64);
    let heads: Vec<RecordHead> = WarcReader::new(BufReader::new(&bytes[..]))
        .expect("reader")
        .map(|h| h.expect("record"))
        .collect();
    assert_eq!(heads.len(), report.records);
    Exported {
        bytes,
        report,
        heads,
    }
}

fn targets(e: &Exported, kind: &str) -> Vec<String> {
    let mut v: Vec<String> = e
        .heads
        .iter()
        .filter(|h| h.record_type() == kind)
        .map(|h| {
            h.field("WARC-Target-URI")
                .unwrap_or_default()
                .replace(BASE, "")
        })
        .collect();
    v.sort();
    v
}

#[test]
fn exports_exactly_the_selection_byte_for_byte() {
    let (dir, sim, index) = site();
    let e = run(&index, dir.path(), SearchQuery::text("wanderfalke"), false);
    assert_eq!(e.report.selected, 1);
    assert_eq!(e.heads[0].record_type(), "warcinfo");
    assert_eq!(e.heads[0].field("WARC-Filename"), Some("out.warc.gz"));
    let (info, block) = {
        let out = tempfile::tempdir().expect("tempdir");
        let path = out.path().join("x");
        std::fs::write(&path, &e.bytes).expect("write");
        read_record_at(&path, 0).expect("warcinfo")
    };
    assert_eq!(info.record_type(), "warcinfo");
    let text = String::from_utf8_lossy(&block);
    assert!(
        text.contains("source-crawl: sim") && text.contains("selection-query: wanderfalke"),
        "{text}"
    );
    assert_eq!(
        e.heads[1].record_type(),
        "warcinfo",
        "the source file's warcinfo"
    );
    assert_eq!(targets(&e, "response"), ["/"]);
    assert_eq!(targets(&e, "request"), ["/"]);
    assert_eq!(targets(&e, "metadata"), ["/"]);
    assert_eq!(e.heads.len(), 5);

    // Each copied member is the source member, unchanged.
    let home = sim
        .live
        .iter()
        .find(|d| d.url == format!("{BASE}/"))
        .expect("home");
    let src = std::fs::read(dir.path().join(&home.location.file)).expect("source");
    let member = |off: u64, len: u64| &src[off as usize..(off + len) as usize];
    let resp = &e.heads[2];
    assert_eq!(
        &e.bytes[resp.offset as usize..(resp.offset + resp.compressed_len) as usize],
        member(home.location.offset, home.location.length)
    );
    let rel = home.related.as_ref().expect("related");
    let req = &e.heads[3];
    assert_eq!(
        &e.bytes[req.offset as usize..(req.offset + rel.length) as usize],
        member(rel.offset, rel.length)
    );
}

#[test]
fn revisits_bring_their_originals_and_embeds_their_requisites() {
    let (dir, _sim, index) = site();
    let copy = SearchQuery {
        q: "url:\"http://site.example/copy.html\"".into(),
        ..SearchQuery::default()
    };
    let e = run(&index, dir.path(), copy, false);
    assert_eq!((e.report.selected, e.report.originals), (1, 1));
    assert_eq!(targets(&e, "revisit"), ["/copy.html"]);
    assert_eq!(targets(&e, "response"), ["/a.html"]);
    let revisit = e
        .heads
        .iter()
        .find(|h| h.record_type() == "revisit")
        .expect("revisit");
    let original = e
        .heads
        .iter()
        .find(|h| h.record_type() == "response")
        .expect("original");
    assert!(original.offset < revisit.offset, "original first");
    assert_eq!(revisit.field("WARC-Refers-To"), Some(original.record_id()));

    let home = SearchQuery::text("wanderfalke");
    let e = run(&index, dir.path(), home, true);
    assert_eq!(e.report.embeds, 3);
    assert_eq!(
        targets(&e, "response"),
        ["/", "/bg.png", "/logo.png", "/style.css"]
    );
    assert_eq!(targets(&e, "metadata").len(), 4);
}

#[test]
fn cdxj_lines_point_at_the_exported_records() {
    let (dir, _sim, index) = site();
    let e = run(&index, dir.path(), SearchQuery::default(), false);
    assert_eq!(e.report.selected, 10);
    assert_eq!(e.report.cdxj.len(), 10);
    let out = tempfile::tempdir().expect("tempdir");
    let path = out.path().join("out.warc.gz");
    std::fs::write(&path, &e.bytes).expect("write");
    for c in &e.report.cdxj {
        let (head, _) = read_record_at(&path, c.offset).expect("record at offset");
        assert_eq!(head.field("WARC-Target-URI"), Some(c.url.as_str()));
        assert_eq!(head.compressed_len, c.length);
    }
    // The export's CDXJ is what indexing the exported file gives.
    let mut from_file = Vec::new();
    write_sorted(&index_file(&path).expect("index"), &mut from_file).expect("write");
    let mut from_export = Vec::new();
    write_sorted(&e.report.cdxj, &mut from_export).expect("write");
    assert_eq!(
        String::from_utf8_lossy(&from_export),
        String::from_utf8_lossy(&from_file)
    );
    assert!(crate::archive::check_file(&path).expect("check").is_empty());
}

#[test]
fn bad_selection_queries_fail_before_writing() {
    let (dir, _sim, index) = site();
    let req = ExportRequest {
        query: SearchQuery::text("title:("),
        ..ExportRequest::default()
    };
    let mut out = Vec::new();
    let r = export(&index, dir.path(), &req, "x", &mut out);
    assert!(
        matches!(r, Err(ExportError::Index(IndexError::BadQuery { .. }))),
        "{r:?}"
    );
    assert!(out.is_empty());
}

#[test]
fn long_http_heads_still_give_full_cdxj_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut sim = SimCrawl::new(dir.path(), 1 << 30);
    let pad = "p".repeat(9000);
    sim.archive(crate::crawl::test_crawl::Page {
        headers: &[("X-Pad", &pad), ("Content-Type", "text/html")],
        ..crate::crawl::test_crawl::Page::html("/padded", "", "<title>Padded</title>")
    });
    sim.close();
    let index = Index::temporary().expect("index");
    crate::crawl::reindex::rebuild(&index, dir.path(), &sim.opts).expect("rebuild");
    let e = run(&index, dir.path(), SearchQuery::default(), false);
    assert_eq!(e.report.cdxj.len(), 1);
    let c = &e.report.cdxj[0];
    assert_eq!(
        (c.mime.as_str(), c.status.as_deref()),
        ("text/html", Some("200"))
    );
}
