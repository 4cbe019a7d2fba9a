//! Benchmark of the online analysis: `Analyzer::analyze` on a 50 KB page with 100 outlinks and
//! on a 500 KB page, against a topic of keywords plus five reference pages. Pages are parsed
//! once, outside the measurement: this is the cost the analysis adds per page.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use magpie::analysis::Analyzer;
use magpie::model::ParsedPage;
use magpie::parse::{self, ParseLimits};
use magpie::spec::{RawScoring, RawTopic};
use std::hint::black_box;
use std::time::Duration;
use url::Url;

const TOPICAL: &[&str] = &[
    "solar",
    "panel",
    "battery",
    "inverter",
    "grid",
    "turbine",
    "wind",
    "energy",
    "storage",
    "renewable",
    "photovoltaic",
    "hydrogen",
    "megawatt",
    "tariff",
    "carbon",
    "emissions",
];
const GLUE: &[&str] = &[
    "the", "of", "and", "to", "in", "is", "for", "with", "on", "that",
];
const SYLLABLES: &[&str] = &[
    "ka", "lor", "mi", "ran", "ve", "tos", "su", "nel", "bi", "dar", "po", "ri", "zun", "fe",
    "gal", "hom", "pre", "con", "ter", "vi",
];
const SUFFIXES: &[&str] = &["", "", "", "s", "ing", "ed", "ation", "ly", "ness", "er"];

/// 3,000 distinct pseudo-words of 2-4 syllables with English-like suffixes: real pages have
/// thousands of distinct words, and each distinct word is stemmed once per page.
fn vocabulary() -> Vec<String> {
    let mut words = Vec::with_capacity(3000);
    let mut i = 0usize;
    while words.len() < 3000 {
        let mut w = String::new();
        let mut k = i;
        for _ in 0..2 + i % 3 {
            w.push_str(SYLLABLES[k % SYLLABLES.len()]);
            k /= SYLLABLES.len();
            k += 7;
        }
        w.push_str(SUFFIXES[(i / 3) % SUFFIXES.len()]);
        if !words.contains(&w) {
            words.push(w);
        }
        i += 1;
    }
    words
}

/// A deterministic HTML page of about `bytes` bytes with `links` outlinks spread over it.
fn html(bytes: usize, links: usize, seed: u64) -> String {
    let mut rng = magpie::sample_site::SplitMix::new(seed);
    let mut next = move |n: usize| rng.below(n);
    let vocab = vocabulary();
    let mut out = String::from(
        "<!doctype html><html lang=en><head><title>Solar storage news</title></head><body>\n",
    );
    let paragraphs = (bytes / 600).max(1);
    let mut made = 0;
    for p in 0..paragraphs {
        out.push_str("<p>");
        for i in 0..80 {
            let r = next(100);
            let word = if r < 30 {
                GLUE[next(GLUE.len())]
            } else if r < 40 {
                TOPICAL[next(TOPICAL.len())]
            } else {
                // Roughly Zipf: rank e^(u ln N) for u uniform.
                let u = next(1_000_000) as f64 / 1_000_000.0;
                let rank = (u * (vocab.len() as f64).ln()).exp() as usize;
                vocab[rank.clamp(1, vocab.len()) - 1].as_str()
            };
            if i == 0 {
                out.push_str(&word[..1].to_uppercase());
                out.push_str(&word[1..]);
            } else {
                out.push(' ');
                out.push_str(word);
            }
        }
        out.push('.');
        while made < links && made * paragraphs / links.max(1) <= p {
            let anchor = if next(2) == 0 {
                format!(
                    "{} {}",
                    TOPICAL[next(TOPICAL.len())],
                    TOPICAL[next(TOPICAL.len())]
                )
            } else {
                "read more".to_owned()
            };
            out.push_str(&format!(
                " <a href=\"http://host{}.example/{}-{made}.html\">{anchor}</a>",
                next(50),
                vocab[next(vocab.len())]
            ));
            made += 1;
        }
        out.push_str("</p>\n");
    }
    out.push_str("</body></html>\n");
    out
}

fn parsed(bytes: usize, links: usize, seed: u64) -> ParsedPage {
    let base = Url::parse("http://bench.example/").expect("static URL");
    let limits = ParseLimits {
        max_html_bytes: 4 << 20,
        ..ParseLimits::default()
    };
    parse::html(
        html(bytes, links, seed).as_bytes(),
        Some("text/html"),
        None,
        &base,
        &limits,
    )
}

fn analyzer() -> Analyzer {
    let topic = RawTopic {
        keywords: vec![
            "solar panel".into(),
            "battery storage".into(),
            "wind turbine".into(),
            "grid".into(),
        ],
        entities: vec!["International Energy Agency".into()],
        languages: vec!["en".into()],
        ..RawTopic::default()
    };
    let mut an = Analyzer::new(&topic, &RawScoring::default()).expect("valid topic");
    for seed in 0..5 {
        an.add_reference(&parsed(20_000, 20, 100 + seed));
    }
    an
}

fn bench(c: &mut Criterion) {
    let an = analyzer();
    let mut group = c.benchmark_group("analysis");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(4));
    for (name, bytes, links) in [
        ("50KB_100_links", 50_000, 100),
        ("500KB_500_links", 500_000, 500),
    ] {
        let html_len = html(bytes, links, 7).len();
        let page = parsed(bytes, links, 7);
        assert_eq!(page.links.len(), links);
        group.throughput(Throughput::Bytes(html_len as u64));
        group.bench_function(name, |b| {
            b.iter(|| an.analyze(black_box(&page), "http://bench.example/", 0.0))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
