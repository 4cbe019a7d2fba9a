//! The log reader against logs written by `crawl_log.rs`.

use super::*;
use crate::crawl::crawl_log::{CrawlLog, Line, Refused};

fn write_log(dir: &Path, n: usize) {
    let mut log = CrawlLog::open(dir).unwrap();
    for i in 0..n {
        let url = format!("http://h{}.example/p{i}", i % 3);
        log.write(&Line {
            status: if i % 5 == 0 { 404 } else { 200 },
            size: Some(100 + i as u64),
            url: &url,
            hops: if i == 0 { "" } else { "L" },
            mime: Some("text/html"),
            source: "crawl",
            ..Line::default()
        });
        if i == n / 2 {
            log.rotate(0).unwrap();
        }
    }
    log.refused(
        1,
        Refused::Robots,
        Line {
            url: "http://h0.example/private",
            hops: "L",
            source: "crawl",
            annotations: vec!["robots".into()],
            ..Line::default()
        },
    );
    log.flush().unwrap();
}

#[test]
fn pages_go_back_through_every_file_with_filters() {
    let dir = tempfile::tempdir().unwrap();
    write_log(dir.path(), 40);
    let files = log_files(dir.path()).unwrap();
    assert_eq!(
        files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
        ["crawl.00000.log", "crawl.log"]
    );
    // Every line, 7 at a time, newest first, exactly once.
    let mut seen = Vec::new();
    let mut from = None;
    loop {
        let p = page_back(&files, from.as_ref(), &Filter::default(), 7, 1 << 30).unwrap();
        assert!(p.lines.len() <= 7);
        seen.extend(p.lines.iter().map(|l| l.entry.url.clone()));
        match p.older {
            Some(c) => from = Some(Cursor::parse(&c.to_string()).unwrap()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 41, "{seen:?}");
    assert_eq!(seen[0], "http://h0.example/private");
    assert_eq!(seen[1], "http://h0.example/p39");
    assert_eq!(seen[40], "http://h0.example/p0");
    // Filters: status class, host, hop, reason.
    let f = Filter {
        status: Some(StatusFilter::parse("4xx").unwrap()),
        host: Some("h0.example".into()),
        ..Filter::default()
    };
    let p = page_back(&files, None, &f, 100, 1 << 30).unwrap();
    let urls: Vec<_> = p.lines.iter().map(|l| l.entry.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "http://h0.example/p30",
            "http://h0.example/p15",
            "http://h0.example/p0"
        ]
    );
    let f = Filter {
        hop: Some("seed".into()),
        ..Filter::default()
    };
    assert_eq!(
        page_back(&files, None, &f, 100, 1 << 30)
            .unwrap()
            .lines
            .len(),
        1
    );
    let f = Filter {
        reason: Some("robots".into()),
        status: Some(StatusFilter::parse("refused").unwrap()),
        ..Filter::default()
    };
    let p = page_back(&files, None, &f, 100, 1 << 30).unwrap();
    assert_eq!(p.lines.len(), 1);
    assert_eq!(p.lines[0].entry.status, -9998);
    // A small budget ends the page early with a cursor to go on from.
    let f = Filter {
        url: Some("nowhere".into()),
        ..Filter::default()
    };
    let p = page_back(&files, None, &f, 10, 100).unwrap();
    assert!(
        p.budget_spent && p.lines.is_empty() && p.older.is_some(),
        "{p:?}"
    );
    assert!(matches!(
        page_back(&files, Some(&Cursor::parse("../etc:1").unwrap()), &f, 1, 1),
        Err(LogReadError::UnknownFile(_))
    ));
    assert!(Cursor::parse("crawl.log").is_err());
    // A file rotated away between the listing and the read reads as empty.
    let gone = dir.path().join("crawl.77777.log");
    assert_eq!(scan_back(&gone, 10, &mut 100, |_| true).unwrap(), None);
    assert_eq!(scan_forward(&gone, 5, |_| {}).unwrap(), 5);
    assert!(StatusFilter::parse("lots").is_err());
}

#[test]
fn long_and_partial_lines_are_bounded_and_totals_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.log");
    let good = "2026-01-01T00:00:00.000Z 200 10 http://a/x L http://a/ text/html - - - crawl -\n";
    let long = format!("x{}\n", "y".repeat(MAX_LINE + 10));
    let text = format!(
        "{good}{long}{good}garbage\n{good}2026-01-01T00:00:00.000Z 200 10 http://a/partial"
    );
    std::fs::write(&path, &text).unwrap();
    let mut lines = Vec::new();
    let mut budget = u64::MAX;
    let r = scan_back(&path, text.len() as u64, &mut budget, |(o, t)| {
        lines.push((o, t.map(str::to_string)));
        true
    })
    .unwrap();
    assert_eq!(r, None);
    assert_eq!(
        lines.len(),
        5,
        "the unfinished last line is left: {lines:?}"
    );
    assert_eq!(lines[3].1, None, "the long line is not kept");
    assert_eq!(lines[4].0, 0);
    let mut totals = Totals::default();
    let done = scan_forward(&path, 0, |(_, t)| totals.add(t)).unwrap();
    assert_eq!(done as usize, text.rfind('\n').unwrap() + 1);
    assert_eq!((totals.lines, totals.unreadable), (5, 2));
    let a = &totals.hosts["a"];
    assert_eq!((a.responses, a.bytes, a.s2xx), (3, 30, 3));
    assert_eq!(
        totals.mimes["text/html"],
        Tally {
            lines: 3,
            bytes: 30
        }
    );
    assert_eq!(totals.statuses[&200].lines, 3);
    // Going on from where it stopped reads nothing twice.
    let again = scan_forward(&path, done, |_| panic!("read twice")).unwrap();
    assert_eq!(again, done);
}
