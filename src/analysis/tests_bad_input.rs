//! Tests of the scorer on bad input: empty pages, binary bodies, megabyte lines, scripts
//! without word separators, useless keywords and degenerate weights.

use super::tests::{analyzer, link, page, topic};
use super::*;
use crate::analysis::{RawScoring, RawWeights};
use crate::parse::{self, ParseLimits};
use url::Url;

/// Every number of an analysis is finite and in [0, 1]; one score per link.
fn check(page: &ParsedPage, a: &PageAnalysis) {
    assert_eq!(a.links.len(), page.links.len());
    assert!((0.0..=1.0).contains(&a.relevance) && (0.0..=1.0).contains(&a.inherited));
    assert!(a.lang_confidence.is_finite());
    for s in &a.links {
        for v in s.parts.to_array() {
            assert!((0.0..=1.0).contains(&v), "{s:?}");
        }
    }
}

fn parse_html(body: &[u8]) -> ParsedPage {
    let base = Url::parse("http://bad.example/").unwrap();
    parse::html(
        body,
        Some("text/html"),
        None,
        &base,
        &ParseLimits::default(),
    )
}

#[test]
fn empty_pages_score_zero() {
    let an = analyzer(&["solar"]);
    for p in [
        ParsedPage::default(),
        page(
            &["", "   "],
            vec![link("", "", Some(7)), link("http://x/", "", Some(0))],
        ),
        parse_html(b""),
    ] {
        let a = an.analyze(&p, "", 0.0);
        check(&p, &a);
        assert_eq!(a.relevance, 0.0);
        assert!(!a.relevant);
    }
}

#[test]
fn binary_bodies_labelled_html_do_not_break_scoring() {
    let an = analyzer(&["solar"]);
    let mut rng = crate::sample_site::SplitMix::new(1);
    let body: Vec<u8> = (0..200_000).map(|_| rng.next_u64() as u8).collect();
    let p = parse_html(&body);
    check(&p, &an.analyze(&p, "http://bad.example/", 0.3));
    // A PNG signature and NULs, as a misconfigured server sends them.
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend(std::iter::repeat_n(0u8, 5000));
    let p = parse_html(&png);
    check(&p, &an.analyze(&p, "http://bad.example/", 0.3));
}

#[test]
fn megabyte_single_line_text_is_bounded() {
    let an = analyzer(&["solar"]);
    let line = "solar power plant ".repeat(60_000); // ~1 MB, one line, no markup
    let html = format!("<html><body><p>{line}<a href=/x>solar</a></p></body></html>");
    let p = parse_html(html.as_bytes());
    let a = an.analyze(&p, "http://bad.example/", 0.0);
    check(&p, &a);
    assert!(a.relevance > 0.3);
    // The same text as one block (no splitting by the parser), with 100 links in it.
    let links = (0..100)
        .map(|i| link(&format!("http://x.example/{i}"), "power plant", Some(0)))
        .collect();
    let p = page(&[&line], links);
    let a = an.analyze(&p, "http://bad.example/", 0.0);
    check(&p, &a);
    assert!(a.links.iter().all(|l| l.parts.paragraph > 0.3));
    // One megabyte without a single separator: one over-long token, dropped.
    let blob = "x".repeat(1 << 20);
    let p = page(
        &[&blob],
        vec![link("http://x.example/", &blob[..5000], Some(0))],
    );
    let a = an.analyze(&p, "http://bad.example/", 0.0);
    check(&p, &a);
    assert_eq!(a.relevance, 0.0);
}

#[test]
fn text_beyond_the_cap_is_ignored() {
    let an = analyzer(&["solar"]);
    let filler = "word ".repeat(MAX_TEXT_BYTES / 5 + 10);
    let p = page(&[&filler, "solar solar solar"], vec![]);
    assert_eq!(an.analyze(&p, "http://x/", 0.0).relevance, 0.0);
}

#[test]
fn chinese_pages_match_chinese_keywords() {
    let an = analyzer(&["气候变化"]);
    let html = "<html><body><p>气候变化对全球农业产生了深远的影响，科学家们正在研究应对气候变化的对策。</p>\
                <p><a href=/a>气候变化报告</a> <a href=/b>体育新闻</a></p></body></html>";
    let p = parse_html(html.as_bytes());
    let a = an.analyze(&p, "http://bad.example/", 0.0);
    check(&p, &a);
    assert_eq!(a.lang.as_deref(), Some("zh"));
    assert!(a.relevance > 0.2, "{}", a.relevance);
    assert!(a.links[0].parts.anchor > a.relevance && a.links[1].parts.anchor < a.relevance);
}

#[test]
fn thai_pages_match_thai_keywords() {
    let an = analyzer(&["พลังงานแสงอาทิตย์"]);
    let html = "<html><body><p>พลังงานแสงอาทิตย์เป็นพลังงานสะอาดที่ใช้ผลิตไฟฟ้าได้ทุกวัน</p>\
                <p><a href=/a>พลังงานแสงอาทิตย์</a> <a href=/b>ฟุตบอล</a></p></body></html>";
    let p = parse_html(html.as_bytes());
    let a = an.analyze(&p, "http://bad.example/", 0.0);
    check(&p, &a);
    assert_eq!(a.lang.as_deref(), Some("th"));
    assert!(a.relevance > 0.2, "{}", a.relevance);
    assert!(a.links[0].parts.anchor > 0.8 && a.links[1].parts.anchor < a.relevance);
}

#[test]
fn empty_keyword_lists_wait_for_references() {
    let an = analyzer(&[]);
    let p = page(
        &["anything at all"],
        vec![link("http://x/", "anything", Some(0))],
    );
    let a = an.analyze(&p, "http://x/", 0.0);
    check(&p, &a);
    assert_eq!(a.relevance, 0.0);
    assert_eq!(a.links[0].parts.total, 0.0);
}

#[test]
fn all_zero_weights_give_zero_totals_but_keep_components() {
    let zero = RawScoring {
        weights: RawWeights {
            document: 0.0,
            paragraph: 0.0,
            anchor: 0.0,
            url: 0.0,
            parent: 0.0,
        },
        ..RawScoring::default()
    };
    let an = Analyzer::new(&topic(&["solar"]), &zero).unwrap();
    let p = page(&["solar"], vec![link("http://x/solar", "solar", Some(0))]);
    let a = an.analyze(&p, "http://x/", 0.0);
    assert_eq!(a.links[0].parts.total, 0.0);
    assert!(a.links[0].parts.anchor > 0.0 && a.links[0].parts.document > 0.0);
    assert!(a.relevant, "relevance does not depend on the weights");
}

#[test]
fn non_finite_weights_are_refused() {
    for bad in [f32::NAN, f32::INFINITY, -0.5] {
        let s = RawScoring {
            weights: RawWeights {
                url: bad,
                ..RawWeights::default()
            },
            ..RawScoring::default()
        };
        let e = Analyzer::new(&topic(&["solar"]), &s).unwrap_err();
        assert_eq!(e.path(), "scoring.weights.url");
    }
}
