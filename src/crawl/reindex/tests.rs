//! Unit tests of rebuilding from WARC files: rebuilt documents equal the live ones, catch-up
//! after a crash adds exactly the missing ones, damage is reported, and replay reads the
//! right bytes (revisits served with their original's body).

use super::*;
use crate::archive::Checkpoint;
use crate::crawl::test_crawl::{sorted, stored_docs, Page, SimCrawl, BASE};
use crate::index::{CaptureKind, IndexerConfig, SearchQuery};

fn live_index(sim: &SimCrawl, cp: Checkpoint) -> Index {
    let index = Index::temporary().expect("index");
    let indexer = index.indexer(IndexerConfig::default()).expect("indexer");
    for d in &sim.live {
        indexer.capture(d.clone()).expect("queue");
    }
    indexer.close(Some(cp)).expect("close");
    index
}

#[test]
fn rebuild_gives_the_documents_the_simulated_crawl_built() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut sim = SimCrawl::new(dir.path(), 1 << 30);
    sim.site();
    let cp = sim.checkpoint();
    sim.close();
    let live = live_index(&sim, cp.clone());
    assert_eq!(
        stored_docs(&live),
        sorted(sim.live.clone()),
        "stored as given"
    );

    let rebuilt = Index::temporary().expect("index");
    let report = rebuild(&rebuilt, dir.path(), &sim.opts).expect("rebuild");
    assert_eq!(report.captures, 10);
    assert_eq!(report.revisits, 1);
    assert_eq!((report.skipped, report.errors.len()), (0, 0));
    assert_eq!(stored_docs(&rebuilt), sorted(sim.live.clone()));
    assert_eq!(rebuilt.position().expect("position"), Some(cp));

    let by_path = |p: &str| {
        sim.live
            .iter()
            .find(|d| d.url == format!("{BASE}{p}"))
            .expect("captured")
    };
    let home = by_path("/");
    assert_eq!(home.title.as_deref(), Some("Startseite"));
    assert_eq!(home.lang.as_deref(), Some("de"));
    assert!(
        home.text.contains("Wanderfalke"),
        "gzip body decoded: {:?}",
        home.text
    );
    assert_eq!(by_path("/copy.html").kind, CaptureKind::Revisit);
    assert!(by_path("/copy.html").text.is_empty());
    assert!(
        by_path("/missing").title.is_none(),
        "non-2xx bodies are not parsed"
    );
    assert!(
        by_path("/sitemap.xml").text.is_empty(),
        "sitemaps are not pages"
    );
    assert_eq!(by_path("/untyped").title.as_deref(), Some("No type"));
    assert!(by_path("/robots.txt").related.is_some());

    // The same searches on both.
    for q in ["falcons", "wanderfalke", "", "status:404", "title:page"] {
        let a = live.search(&SearchQuery::text(q)).expect("search");
        let b = rebuilt.search(&SearchQuery::text(q)).expect("search");
        assert_eq!(a, b, "query {q:?}");
    }
}

#[test]
fn records_split_across_rotated_files_are_joined() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Every append but the first of a file rotates: request and metadata land in the file
    // after their response.
    let mut sim = SimCrawl::new(dir.path(), 600);
    sim.site();
    sim.close();
    let split = sim
        .live
        .iter()
        .filter(|d| {
            d.related
                .as_ref()
                .is_some_and(|r| r.file != d.location.file)
        })
        .count();
    assert!(split > 3, "the test needs split captures ({split})");
    let rebuilt = Index::temporary().expect("index");
    let report = rebuild(&rebuilt, dir.path(), &sim.opts).expect("rebuild");
    assert!(report.files > 10, "{report:?}");
    assert_eq!(stored_docs(&rebuilt), sorted(sim.live.clone()));
}

#[test]
fn catch_up_indexes_exactly_what_a_crash_lost() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut sim = SimCrawl::new(dir.path(), 1 << 30);
    for n in 0..3 {
        sim.archive(Page::html(
            &format!("/p{n}"),
            "L",
            &format!("<p>page number {n}</p>"),
        ));
    }
    let cp = sim.checkpoint();
    let index_dir = tempfile::tempdir().expect("tempdir");
    {
        let index = Index::open(index_dir.path()).expect("open");
        let indexer = index.indexer(IndexerConfig::default()).expect("indexer");
        for d in &sim.live {
            indexer.capture(d.clone()).expect("queue");
        }
        indexer.commit(cp.clone()).expect("durable");
        indexer.close(None).expect("close");
    }
    // Two more pages reach the WARC file but not the index, then the crawl stops; it resumes
    // into a new file.
    for n in 3..5 {
        sim.archive(Page::html(
            &format!("/p{n}"),
            "L",
            &format!("<p>page number {n}</p>"),
        ));
    }
    sim.close();
    sim.resume();
    for n in 5..7 {
        sim.archive(Page::html(
            &format!("/p{n}"),
            "L",
            &format!("<p>page number {n}</p>"),
        ));
    }
    sim.close();

    let index = Index::open(index_dir.path()).expect("reopen");
    assert_eq!(index.num_docs(), 3);
    let report = catch_up(&index, dir.path(), &sim.opts).expect("catch up");
    assert_eq!(report.captures, 4, "{report:?}");
    assert_eq!(report.files, 2);
    assert_eq!(stored_docs(&index), sorted(sim.live.clone()), "each once");
    let again = catch_up(&index, dir.path(), &sim.opts).expect("catch up");
    assert_eq!(again.captures, 0, "nothing new");
    assert_eq!(index.num_docs(), 7);

    // An empty index catches up with everything.
    let empty = Index::temporary().expect("index");
    assert_eq!(
        catch_up(&empty, dir.path(), &sim.opts)
            .expect("catch up")
            .captures,
        7
    );
}

#[test]
fn damage_is_reported_and_the_rest_indexed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut sim = SimCrawl::new(dir.path(), 1 << 30);
    sim.site();
    sim.close();
    let file = std::fs::read_dir(dir.path())
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .next()
        .expect("a file");
    let len = std::fs::metadata(&file).expect("meta").len();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .expect("open");
    f.set_len(len - 100).expect("truncate");
    let index = Index::temporary().expect("index");
    let report = rebuild(&index, dir.path(), &sim.opts).expect("rebuild");
    assert_eq!(report.errors.len(), 1, "{report:?}");
    assert!(report.errors[0].contains("offset"), "{:?}", report.errors);
    assert!(report.captures >= 8, "{report:?}");
}

#[test]
fn replay_reads_the_record_and_resolves_revisits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut sim = SimCrawl::new(dir.path(), 1 << 30);
    sim.site();
    let again = sim.archive(Page::html(
        "/a.html",
        "L",
        "<title>A again</title><p>changed</p>",
    ));
    sim.close();
    let index = Index::temporary().expect("index");
    rebuild(&index, dir.path(), &sim.opts).expect("rebuild");

    let url = format!("{BASE}/a.html");
    let latest = index
        .capture_at(dir.path(), &url, None, 1 << 20)
        .expect("replay");
    assert_eq!(latest.capture.record_id, again.record_id);
    assert!(latest.http.ends_with(b"<p>changed</p>"));
    let first = sim.live.iter().find(|d| d.url == url).expect("first");
    let old = index
        .capture_at(dir.path(), &url, Some(first.time), 1 << 20)
        .expect("replay");
    assert_eq!(old.capture.record_id, first.record_id, "nearest in time");
    assert!(old.http.starts_with(b"HTTP/1.0 200 X\r\n"));
    assert_eq!(&old.http[old.header_len..old.header_len + 6], b"<html>");

    let copy = index
        .capture_at(dir.path(), &format!("{BASE}/copy.html"), None, 1 << 20)
        .expect("replay revisit");
    assert_eq!(copy.capture.kind, CaptureKind::Revisit);
    assert_eq!(
        copy.original.as_ref().map(|o| o.record_id.as_str()),
        Some(first.record_id.as_str())
    );
    assert_eq!(
        copy.http[copy.header_len..],
        old.http[old.header_len..],
        "original's body"
    );
    assert!(!copy.cut);

    let cut = index
        .capture_at(dir.path(), &url, None, 10)
        .expect("replay");
    assert!(cut.cut && cut.http.len() == 10);

    assert!(matches!(
        index.capture_at(dir.path(), &format!("{BASE}/never"), None, 100),
        Err(IndexError::NotFound { .. })
    ));

    // An index pointing at the wrong record says so.
    let mut wrong = first.clone();
    wrong.location.offset = again.location.offset;
    let stale = Index::temporary().expect("index");
    let mut w = stale.writer().expect("writer");
    w.add_capture(&wrong).expect("add");
    w.commit(None).expect("commit");
    assert!(matches!(
        stale.capture_at(dir.path(), &url, None, 100),
        Err(IndexError::Stale { .. })
    ));
}

/// A metadata record about a capture that cannot be read (a relevance that is no number, a
/// helper's reading that is no JSON) is an error naming the file, the offset and the capture;
/// the capture is indexed without what the record says.
#[test]
fn a_damaged_metadata_record_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = |kind: &str, extra: &str, content_type: &str, block: &str| {
        format!(
            "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{}>\r\n\
             WARC-Date: 2026-12-01T00:00:00Z\r\nWARC-Target-URI: http://site.example/a\r\n\
             {extra}Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
            match kind {
                "response" => "11111111-1111-1111-1111-111111111111".to_string(),
                _ => format!("{:08x}-2222-2222-2222-222222222222", block.len()),
            },
            block.len()
        )
    };
    let body = "<html><head><title>A page</title></head><body><p>Words</p></body></html>";
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let about = "WARC-Concurrent-To: <urn:uuid:11111111-1111-1111-1111-111111111111>\r\n";
    let warc = [
        record("response", "", "application/http; msgtype=response", &http),
        record(
            "metadata",
            about,
            "application/warc-fields",
            "magpie-relevance: high\r\n",
        ),
        record(
            "metadata",
            about,
            crate::model::AAH_MEDIA_TYPE,
            "{\"objects\": [",
        ),
    ]
    .concat();
    std::fs::write(dir.path().join("damaged.warc"), warc).expect("write");
    let index = Index::temporary().expect("index");
    let report = rebuild(&index, dir.path(), &Default::default()).expect("rebuild");
    assert_eq!(report.captures, 1, "{report:?}");
    assert_eq!(report.errors.len(), 2, "{report:?}");
    for e in &report.errors {
        assert!(
            e.contains("damaged.warc at offset")
                && e.contains("<urn:uuid:11111111-1111-1111-1111-111111111111>"),
            "{e}"
        );
    }
    assert!(report.errors[0].contains("magpie-relevance \"high\" is not a number"));
    assert!(report.errors[1].contains("no JSON"));
}
