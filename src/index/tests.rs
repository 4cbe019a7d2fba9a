//! Unit tests of the index: documents, search, filters, facets, paging, lookup, the
//! background indexer and the stored position.

use super::*;
use crate::archive::RecordLocation;
use chrono::{TimeZone, Utc};

fn at(h: u32) -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 2, h, 0, 0)
        .single()
        .expect("valid time")
}

pub(super) fn doc(
    n: u64,
    url: &str,
    title: &str,
    text: &str,
    status: u16,
    lang: Option<&str>,
) -> CaptureDoc {
    let (host, domain) = doc::host_and_domain(url);
    CaptureDoc {
        url: url.into(),
        host,
        domain,
        time: at(n as u32 % 24),
        status,
        mime: "text/html".into(),
        lang: lang.map(str::to_string),
        title: Some(title.into()).filter(|t: &String| !t.is_empty()),
        text: text.into(),
        relevance: None,
        score: None,
        app: None,
        level: None,
        digest: format!("sha1:D{n}"),
        kind: CaptureKind::Capture,
        record_id: format!("<urn:uuid:{n}>"),
        hops: "L".into(),
        revisit_of: None,
        location: Location {
            file: "a.warc.gz".into(),
            offset: n * 1000,
            length: 900,
        },
        related: None,
    }
}

fn fixture() -> Index {
    let index = Index::temporary().expect("index");
    let mut w = index.writer().expect("writer");
    let docs = [
        doc(
            1,
            "http://a.example.org/",
            "Falcon of the north",
            "The peregrine falcon hunts <fast> & high.",
            200,
            Some("en"),
        ),
        doc(
            2,
            "http://a.example.org/b",
            "Owls",
            "Owls hunt at night; a falcon rarely does.",
            200,
            Some("en"),
        ),
        doc(
            3,
            "http://b.example.net/x",
            "Faucons",
            "Le faucon pèlerin chasse en piqué.",
            200,
            Some("fr"),
        ),
        doc(4, "http://b.example.net/gone", "", "", 404, None),
        doc(
            5,
            "http://www.a.example.org/c",
            "Ravens",
            "Ravens are clever birds.",
            301,
            Some("en"),
        ),
    ];
    for (i, mut d) in docs.into_iter().enumerate() {
        if i == 0 {
            d.score = Some(0.9);
            d.relevance = Some(0.2);
            d.app = Some("wordpress".into());
        }
        if i == 1 {
            d.score = Some(0.4);
            d.relevance = Some(0.8);
            d.app = Some("wordpress".into());
        }
        w.add_capture(&d).expect("add");
    }
    w.add_object(&ObjectDoc {
        url: "http://a.example.org/b#comment-1".into(),
        object_type: "comment".into(),
        title: None,
        text: "What a falcon!".into(),
        author: Some("kim".into()),
        time: at(7),
        lang: Some("en".into()),
        app: Some("wordpress".into()),
        relevance: None,
        score: Some(0.5),
        parent_record_id: "<urn:uuid:2>".into(),
        parent_location: Location::default(),
        parent_related: None,
    })
    .expect("add object");
    w.commit(None).expect("commit");
    index
}

fn urls(r: &SearchResults) -> Vec<&str> {
    r.hits.iter().map(|h| h.url.as_str()).collect()
}

#[test]
fn text_search_ranks_title_matches_and_highlights_escaped_snippets() {
    let index = fixture();
    let r = index.search(&SearchQuery::text("falcon")).expect("search");
    assert_eq!(r.total, 3, "{:?}", urls(&r));
    assert_eq!(
        r.hits[0].url, "http://a.example.org/",
        "title match ranks first"
    );
    let s = &r.hits[0].snippet;
    assert!(s.contains("<mark>falcon</mark>"), "{s}");
    assert!(s.contains("&lt;fast&gt; &amp; high"), "escaped: {s}");
    assert!(!s.contains("<fast>"));
    // Accents fold: "pelerin" finds "pèlerin".
    let r = index.search(&SearchQuery::text("pelerin")).expect("search");
    assert_eq!(urls(&r), ["http://b.example.net/x"]);
    // Conjunction by default.
    let r = index
        .search(&SearchQuery::text("owls falcon"))
        .expect("search");
    assert_eq!(urls(&r), ["http://a.example.org/b"]);
    let r = index
        .search(&SearchQuery::text("\"peregrine falcon\""))
        .expect("search");
    assert_eq!(urls(&r), ["http://a.example.org/"]);
}

#[test]
fn facets_count_every_match() {
    let index = fixture();
    let r = index
        .search(&SearchQuery {
            per_page: 1,
            ..SearchQuery::default()
        })
        .expect("search");
    assert_eq!(r.total, 6);
    assert_eq!(r.hits.len(), 1);
    let f = &r.facets;
    assert_eq!(Facets::count(&f.hosts, "a.example.org"), 3, "{:?}", f.hosts);
    assert_eq!(Facets::count(&f.hosts, "b.example.net"), 2);
    assert_eq!(Facets::count(&f.hosts, "www.a.example.org"), 1);
    assert_eq!(f.hosts[0].value, "a.example.org", "most frequent first");
    assert_eq!(Facets::count(&f.langs, "en"), 4);
    assert_eq!(Facets::count(&f.langs, "fr"), 1);
    assert_eq!(Facets::count(&f.apps, "wordpress"), 3);
    assert_eq!(Facets::count(&f.status_classes, "2xx"), 3);
    assert_eq!(Facets::count(&f.status_classes, "3xx"), 1);
    assert_eq!(Facets::count(&f.status_classes, "4xx"), 1);
    assert_eq!(f.status_classes.len(), 3, "objects have no status");
}

#[test]
fn filters_narrow_and_sorts_order() {
    let index = fixture();
    let q = |f: fn(&mut SearchQuery)| {
        let mut q = SearchQuery::default();
        f(&mut q);
        index.search(&q).expect("search")
    };
    assert_eq!(q(|q| q.host = Some("b.example.net".into())).total, 2);
    assert_eq!(q(|q| q.domain = Some("example.org".into())).total, 4);
    assert_eq!(q(|q| q.lang = Some("fr".into())).total, 1);
    assert_eq!(q(|q| q.app = Some("wordpress".into())).total, 3);
    assert_eq!(q(|q| q.kind = Some(DocKind::Page)).total, 5);
    let objects = q(|q| q.kind = Some(DocKind::Object));
    assert_eq!(objects.total, 1);
    let o = objects.hits[0].object.as_ref().expect("object info");
    assert_eq!(
        (o.object_type.as_str(), o.author.as_deref()),
        ("comment", Some("kim"))
    );
    assert_eq!(q(|q| q.min_score = Some(0.5)).total, 2);
    let r = q(|q| {
        q.from = Some(at(2));
        q.to = Some(at(4));
    });
    assert_eq!(urls(&r).len(), 2, "from inclusive, to exclusive");
    let r = q(|q| q.sort = SortBy::Time);
    let times: Vec<_> = r.hits.iter().map(|h| h.time).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    let r = q(|q| q.sort = SortBy::Score);
    assert_eq!(r.hits[0].score, Some(0.9));
    assert_eq!(r.hits[1].score, Some(0.5));
    assert_eq!(r.hits.last().and_then(|h| h.score), None, "unscored last");
    let r = q(|q| q.sort = SortBy::Relevance);
    assert_eq!(r.hits[0].relevance, Some(0.8));
    // Filters do not change the text ranking.
    let mut fq = SearchQuery::text("falcon");
    fq.host = Some("a.example.org".into());
    let filtered = index.search(&fq).expect("search");
    let plain = index.search(&SearchQuery::text("falcon")).expect("search");
    assert_eq!(filtered.hits[0].rank, plain.hits[0].rank);
}

#[test]
fn paging_walks_all_results_once() {
    let index = fixture();
    let mut seen = Vec::new();
    for page in 1..=3 {
        let r = index
            .search(&SearchQuery {
                page,
                per_page: 2,
                sort: SortBy::Time,
                ..SearchQuery::default()
            })
            .expect("search");
        assert_eq!(r.total, 6);
        seen.extend(r.hits.into_iter().map(|h| h.url));
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 6);
    let r = index
        .search(&SearchQuery {
            page: 9,
            ..SearchQuery::default()
        })
        .expect("search");
    assert!(r.hits.is_empty());
}

#[test]
fn bad_queries_and_parameters_are_errors() {
    let index = fixture();
    for bad in ["title:(", "nosuchfield:x", "\"unclosed", "status:abc"] {
        match index.search(&SearchQuery::text(bad)) {
            Err(IndexError::BadQuery { query, .. }) => assert_eq!(query, bad),
            other => panic!("{bad}: {other:?}"),
        }
    }
    for (page, per_page) in [
        (0, 10),
        (1, 0),
        (1, MAX_PER_PAGE + 1),
        (usize::MAX, 20),
        (101, 1000),
    ] {
        let q = SearchQuery {
            page,
            per_page,
            ..SearchQuery::default()
        };
        assert!(matches!(
            index.search(&q),
            Err(IndexError::BadParameter { .. })
        ));
    }
    let q = SearchQuery {
        min_score: Some(f32::NAN),
        ..SearchQuery::default()
    };
    assert!(matches!(
        index.search(&q),
        Err(IndexError::BadParameter { .. })
    ));
    assert!("pages".parse::<DocKind>().is_err());
    assert!("newest".parse::<SortBy>().is_err());
    assert_eq!("time".parse::<SortBy>().ok(), Some(SortBy::Time));
}

#[test]
fn field_queries_reach_raw_and_numeric_fields() {
    let index = fixture();
    let r = index
        .search(&SearchQuery::text("status:404"))
        .expect("search");
    assert_eq!(urls(&r), ["http://b.example.net/gone"]);
    let r = index
        .search(&SearchQuery::text("host:b.example.net AND faucon"))
        .expect("search");
    assert_eq!(urls(&r), ["http://b.example.net/x"]);
}

#[test]
fn lookup_by_surt_record_id_and_revisit_original() {
    let index = Index::temporary().expect("index");
    let mut w = index.writer().expect("writer");
    let orig = doc(1, "http://example.org/p", "P", "text", 200, None);
    let mut later = doc(2, "https://www.example.org/p", "P", "text", 200, None);
    later.time = at(5);
    let revisit = |n, url, original| {
        let d = doc(n, url, "", "", 200, None);
        let location = d.location.clone();
        d.finish(location, None, None, Some(original))
    };
    let rev = revisit(
        3,
        "http://example.org/q",
        RevisitOf {
            record_id: orig.record_id.clone(),
            url: orig.url.clone(),
            date: crate::archive::warc_date(orig.time),
        },
    );
    let mut rev_by_digest = revisit(
        4,
        "http://example.org/r",
        RevisitOf {
            record_id: "<urn:uuid:unknown>".into(),
            url: "http://elsewhere.example/".into(),
            date: "2026-01-01T00:00:00Z".into(),
        },
    );
    rev_by_digest.digest = orig.digest.clone();
    for d in [&orig, &later, &rev, &rev_by_digest] {
        w.add_capture(d).expect("add");
    }
    w.commit(None).expect("commit");

    let caps = index.captures_of("http://example.org/p").expect("lookup");
    assert_eq!(caps.len(), 2, "http and https://www share a SURT key");
    assert!(caps[0].time < caps[1].time, "oldest first");
    assert!(index
        .captures_of("http://example.org/none")
        .expect("lookup")
        .is_empty());
    let c = index
        .capture_by_record_id("<urn:uuid:2>")
        .expect("lookup")
        .expect("found");
    assert_eq!(c.url, "https://www.example.org/p");
    let revisit = index
        .captures_of("http://example.org/q")
        .expect("lookup")
        .remove(0);
    assert_eq!(revisit.kind, CaptureKind::Revisit);
    let o = index
        .original_of(&revisit)
        .expect("resolve")
        .expect("found");
    assert_eq!(o.record_id, orig.record_id);
    let r2 = index
        .captures_of("http://example.org/r")
        .expect("lookup")
        .remove(0);
    let o2 = index
        .original_of(&r2)
        .expect("resolve")
        .expect("found by digest");
    assert_eq!(o2.record_id, orig.record_id);
}

#[test]
fn objects_select_their_capture() {
    let index = fixture();
    let caps = index
        .select_captures(&SearchQuery {
            kind: Some(DocKind::Object),
            ..SearchQuery::default()
        })
        .expect("select");
    assert_eq!(caps.len(), 1);
    assert_eq!(caps[0].record_id, "<urn:uuid:2>");
    let all = index
        .select_captures(&SearchQuery::default())
        .expect("select");
    assert_eq!(
        all.len(),
        5,
        "each capture once, objects folded into theirs"
    );
    let offsets: Vec<u64> = all.iter().map(|c| c.location.offset).collect();
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "WARC order");
}

#[test]
fn documents_from_exchanges() {
    let info = crate::model::ExchangeInfo {
        url: "http://Sub.Example.co.uk:8080/a".into(),
        ip: "127.0.0.1".parse().expect("ip"),
        started: at(3),
        duration_ms: 1,
        status: 200,
        headers: vec![("Content-Type".into(), "Text/HTML; charset=x".into())],
        header_len: 10,
        truncated: None,
        block_digest: "sha1:B".into(),
        payload_digest: "sha1:P".into(),
    };
    let page = crate::model::ParsedPage {
        title: Some("T".into()),
        declared_lang: Some("pt-BR".into()),
        blocks: vec!["one".into(), "two".into()],
        ..Default::default()
    };
    let d = CaptureDoc::from_exchange(&info, Some(&page), "<urn:uuid:x>", "LE");
    assert_eq!(d.host, "sub.example.co.uk:8080");
    assert_eq!(d.domain, "example.co.uk");
    assert_eq!(d.mime, "text/html");
    assert_eq!(d.lang.as_deref(), Some("pt"));
    assert_eq!(d.text, "one\ntwo");
    assert_eq!((d.digest.as_str(), d.hops.as_str()), ("sha1:P", "LE"));
    let loc = RecordLocation {
        file: "f".into(),
        offset: 1,
        length: 2,
    };
    let rel = RecordLocation {
        file: "f".into(),
        offset: 3,
        length: 4,
    };
    let d = d
        .clone()
        .finish((&loc).into(), Some((&rel).into()), Some(0.5), None);
    assert_eq!(d.related.as_ref().map(|r| r.offset), Some(3));
    assert_eq!(
        (d.kind, d.score, d.text.as_str()),
        (CaptureKind::Capture, Some(0.5), "one\ntwo")
    );
    let r = d.finish(
        (&loc).into(),
        None,
        None,
        Some(RevisitOf {
            record_id: "<o>".into(),
            url: "u".into(),
            date: "d".into(),
        }),
    );
    assert_eq!(
        (r.kind, r.text.as_str(), r.title.as_deref()),
        (CaptureKind::Revisit, "", None)
    );
    assert_eq!(primary_language("  "), None);
    assert_eq!(primary_language("EN_gb").as_deref(), Some("en"));
    let big = vec![
        "x".repeat(MAX_TEXT_BYTES / 2),
        "y".repeat(MAX_TEXT_BYTES / 2),
        "z".into(),
    ];
    assert!(join_blocks(&big).len() <= MAX_TEXT_BYTES);
    assert!(join_blocks(&["é".repeat(MAX_TEXT_BYTES)]).len() <= MAX_TEXT_BYTES);
}

#[test]
fn handles_cross_threads() {
    fn shared<T: Send + Sync>() {}
    fn owned<T: Send>() {}
    shared::<Index>();
    shared::<SearchResults>();
    owned::<Indexer>();
    owned::<CaptureDoc>();
    owned::<Writer>();
}
