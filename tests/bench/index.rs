//! Benchmarks of the capture index: indexing throughput (documents/s), search latency on an
//! index of 100,000 captures, rebuild from WARC files (documents/s, HTML parsing included) and
//! export throughput (MB/s). Synthetic documents with a Zipf-like vocabulary.
//!
//! Run with `cargo bench --bench index`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use magpie::archive::{sha1_digest, WarcWriter, WriterConfig};
use magpie::crawl::records;
use magpie::crawl::reindex::{self, TextLimits};
use magpie::export::{export, ExportRequest};
use magpie::fetch::{Fetched, Spool};
use magpie::index::{CaptureDoc, CaptureKind, DocKind, Index, Location, SearchQuery, SortBy};
use magpie::model::{CrawlUri, ExchangeInfo};
use magpie::sample_site::SplitMix;
use std::hint::black_box;
use std::time::{Duration, Instant};

const SEARCH_DOCS: u64 = 100_000;
const INDEX_BATCH: u64 = 10_000;
const WARC_PAGES: u64 = 2_000;

/// 20,000 pronounceable words.
fn vocabulary() -> Vec<String> {
    let syl = [
        "ka", "to", "ri", "men", "sa", "lo", "ver", "qui", "dan", "el", "por", "ni", "ste", "ga",
        "mu", "ral", "fe", "zon", "bi", "cho",
    ];
    let mut rng = SplitMix::new(7);
    (0..20_000)
        .map(|i| {
            let n = 1 + (i % 4);
            (0..n)
                .map(|_| syl[(rng.next_u64() % syl.len() as u64) as usize])
                .collect::<String>()
                + &format!("{}", i % 7)
        })
        .collect()
}

/// A word with a Zipf-like (log-uniform rank) distribution.
fn word<'a>(rng: &mut SplitMix, vocab: &'a [String]) -> &'a str {
    let rank = (vocab.len() as f64).powf(rng.unit()) as usize - 1;
    &vocab[rank.min(vocab.len() - 1)]
}

fn sentence(rng: &mut SplitMix, vocab: &[String], words: usize) -> String {
    let mut s = String::with_capacity(words * 8);
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(word(rng, vocab));
    }
    s
}

/// A capture of page `i` with about 300 words of text.
fn doc(i: u64, rng: &mut SplitMix, vocab: &[String]) -> CaptureDoc {
    let host = format!("host{}.example.org", i % 200);
    CaptureDoc {
        url: format!("http://{host}/page/{i}.html"),
        host: host.clone(),
        domain: "example.org".into(),
        time: chrono::DateTime::from_timestamp(1_700_000_000 + i as i64 * 7, 0).unwrap_or_default(),
        status: [200, 200, 200, 200, 200, 200, 200, 301, 404, 200][(i % 10) as usize],
        mime: "text/html".into(),
        lang: Some(["en", "de", "fr"][(i % 3) as usize].into()),
        title: Some(sentence(rng, vocab, 6)),
        text: sentence(rng, vocab, 300),
        relevance: Some(rng.unit() as f32),
        score: Some(rng.unit() as f32),
        app: (i % 4 == 0).then(|| "wordpress".to_string()),
        level: None,
        digest: format!("sha1:{i:032}"),
        kind: CaptureKind::Capture,
        record_id: format!("<urn:uuid:{i}>"),
        hops: "LL".into(),
        revisit_of: None,
        location: Location {
            file: format!("c-{:05}.warc.gz", i / 1000),
            offset: (i % 1000) * 4000,
            length: 3900,
        },
        related: None,
    }
}

fn indexing(c: &mut Criterion) {
    let vocab = vocabulary();
    let mut g = c.benchmark_group("indexing");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(INDEX_BATCH));
    g.bench_function("add+commit 10k captures (RAM)", |b| {
        b.iter(|| {
            let index = Index::temporary().expect("index");
            let mut w = index.writer().expect("writer");
            let mut rng = SplitMix::new(1);
            for i in 0..INDEX_BATCH {
                w.add_capture(&doc(i, &mut rng, &vocab)).expect("add");
            }
            w.commit(None).expect("commit");
        })
    });
    g.finish();
}

fn search(c: &mut Criterion) {
    let vocab = vocabulary();
    let dir = tempfile::tempdir().expect("tempdir");
    let index = Index::open(dir.path()).expect("index");
    let t0 = Instant::now();
    {
        let mut w = index.writer().expect("writer");
        let mut rng = SplitMix::new(2);
        for i in 0..SEARCH_DOCS {
            w.add_capture(&doc(i, &mut rng, &vocab)).expect("add");
        }
        w.commit(None).expect("commit");
    }
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "built an on-disk index of {SEARCH_DOCS} captures in {secs:.1} s ({:.0} docs/s)",
        SEARCH_DOCS as f64 / secs
    );
    let mut g = c.benchmark_group("search 100k");
    g.sample_size(30);
    let common = vocab[1].clone();
    let mid = vocab[200].clone();
    let rare = vocab[15_000].clone();
    let queries: Vec<(&str, SearchQuery)> = vec![
        ("common term", SearchQuery::text(common.clone())),
        ("mid term", SearchQuery::text(mid.clone())),
        ("rare term", SearchQuery::text(rare.clone())),
        (
            "two terms (AND)",
            SearchQuery::text(format!("{common} {mid}")),
        ),
        (
            "phrase",
            SearchQuery::text(format!("\"{} {}\"", vocab[0], vocab[1])),
        ),
        (
            "term + host filter",
            SearchQuery {
                host: Some("host7.example.org".into()),
                ..SearchQuery::text(mid.clone())
            },
        ),
        (
            "all, sorted by time",
            SearchQuery {
                sort: SortBy::Time,
                kind: Some(DocKind::Page),
                ..SearchQuery::default()
            },
        ),
        (
            "term, min_score, sorted by score",
            SearchQuery {
                sort: SortBy::Score,
                min_score: Some(0.5),
                ..SearchQuery::text(mid.clone())
            },
        ),
    ];
    for (name, q) in &queries {
        let r = index.search(q).expect("search");
        eprintln!("{name}: {} matches", r.total);
        g.bench_function(*name, |b| {
            b.iter(|| black_box(index.search(q).expect("search")))
        });
    }
    g.bench_function("captures_of (lookup)", |b| {
        b.iter(|| {
            black_box(
                index
                    .captures_of("http://host3.example.org/page/12003.html")
                    .expect("lookup"),
            )
        })
    });
    g.finish();
}

/// Writes `WARC_PAGES` HTML pages of about 10 KB as the crawl does.
fn write_warcs(dir: &std::path::Path, vocab: &[String]) -> u64 {
    let mut w = WarcWriter::create(WriterConfig {
        dir: dir.to_path_buf(),
        prefix: "BENCH".into(),
        max_file_bytes: 1 << 30,
        gzip_level: 6,
        hostname: "bench".into(),
        info_fields: vec![("isPartOf".into(), "bench".into())],
    })
    .expect("writer");
    let mut rng = SplitMix::new(3);
    for i in 0..WARC_PAGES {
        let mut body = format!(
            "<!DOCTYPE html><html lang=en><head><title>{}</title></head><body>",
            sentence(&mut rng, vocab, 6)
        );
        for _ in 0..12 {
            body.push_str(&format!("<p>{}</p>\n", sentence(&mut rng, vocab, 100)));
        }
        body.push_str("</body></html>");
        let mut raw = format!(
            "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        let header_len = raw.len() as u64;
        raw.extend_from_slice(body.as_bytes());
        let url = format!("http://h{}.example/p/{i}", i % 20);
        let fetched = Fetched {
            info: ExchangeInfo {
                url: url.clone(),
                ip: "127.0.0.1".parse().expect("ip"),
                started: chrono::Utc::now(),
                duration_ms: 1,
                status: 200,
                headers: vec![("Content-Type".into(), "text/html".into())],
                header_len,
                truncated: None,
                block_digest: sha1_digest(&raw),
                payload_digest: sha1_digest(body.as_bytes()),
            },
            request: format!("GET /p/{i} HTTP/1.0\r\n\r\n").into_bytes(),
            response: Spool::from_bytes(raw),
        };
        let info_id = w.warcinfo_id().to_string();
        let enc = records::encode(
            records::capture_of(&fetched),
            &fetched,
            &CrawlUri::seed(url),
            &[],
            None,
            None,
            &info_id,
            6,
        )
        .expect("encode");
        w.append(&enc.response).expect("append");
        w.append(&enc.request_and_metadata).expect("append");
    }
    w.close().expect("close");
    std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .sum()
}

fn rebuild_and_export(c: &mut Criterion) {
    let vocab = vocabulary();
    let warcs = tempfile::tempdir().expect("tempdir");
    let warc_bytes = write_warcs(warcs.path(), &vocab);
    let index = Index::temporary().expect("index");
    let mut g = c.benchmark_group("warc");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(WARC_PAGES));
    g.bench_function("rebuild 2k pages from WARC", |b| {
        b.iter(|| reindex::rebuild(&index, warcs.path(), &TextLimits::default()).expect("rebuild"))
    });
    let req = ExportRequest {
        crawl: "bench".into(),
        ..ExportRequest::default()
    };
    let mut sink = std::io::sink();
    let size = export(&index, warcs.path(), &req, "all.warc.gz", &mut sink)
        .expect("export")
        .bytes;
    eprintln!("source WARC: {warc_bytes} bytes; export of everything: {size} bytes");
    g.throughput(Throughput::Bytes(size));
    g.bench_function("export all (2k pages) to a sink", |b| {
        b.iter(|| {
            let mut sink = std::io::sink();
            black_box(export(&index, warcs.path(), &req, "all.warc.gz", &mut sink).expect("export"))
        })
    });
    g.finish();
}

criterion_group!(benches, indexing, search, rebuild_and_export);
criterion_main!(benches);
