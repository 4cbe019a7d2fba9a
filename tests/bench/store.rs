//! Crawl-state store benchmark: what a commit and an opening cost, now that the store keeps a
//! checksum of its entries (updated by every commit, checked against every entry on opening).
//!
//! `cargo bench --bench store` commits `MAGPIE_BENCH_ENTRIES` entries (default 1 000 000)
//! shaped like the first captures a crawl with deduplication keeps, one per page (a `d` key of
//! 38 bytes, a JSON value of about 150 bytes), `MAGPIE_BENCH_BATCH` per commit (default 500:
//! about what a crawl at full speed finishes between two commits), each commit also rewriting
//! the checkpoint and the totals as the crawl engine does. It prints the commit rate and the
//! time of one commit, then the time to reopen the store (every entry read to check the
//! checksum) and, for comparison, of one more full scan of the open store. Under
//! `cargo test --benches` it runs once on 2 000 entries.

use magpie::store::{Key, Store, WriteSet};
use std::time::{Duration, Instant};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The first capture of page `i`: its digest's key, and a value like the archiver's.
fn capture(i: u64) -> (Vec<u8>, Vec<u8>) {
    let digest = format!(
        "sha1:{:032X}",
        u128::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    );
    let value = format!(
        r#"{{"uri":"https://www.site{:05}.example.org/section/{}/article-{i}.html","date":"2026-11-27T10:00:00Z","id":"<urn:uuid:{:032x}>"}}"#,
        i % 10_000,
        i % 17,
        i
    );
    (Key::FirstCapture(&digest).bytes(), value.into_bytes())
}

/// Reopens a store whose folder lock sled may still be releasing.
fn reopen(dir: &std::path::Path) -> Store {
    for _ in 0..500 {
        if let Ok(store) = Store::open(dir) {
            return store;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Store::open(dir).expect("reopen the store")
}

fn run(entries: u64, batch: u64) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let store = Store::open(dir.path()).expect("open the store");
    let (mut committing, mut commits) = (Duration::ZERO, 0u64);
    let mut slowest = Duration::ZERO;
    for from in (0..entries).step_by(batch as usize) {
        let mut ws = WriteSet::default();
        for i in from..(from + batch).min(entries) {
            let (k, v) = capture(i);
            ws.put(k, v);
        }
        let checkpoint = format!(
            r#"{{"file":"MAGPIE-00000.warc.gz","offset":{}}}"#,
            from * 900
        );
        ws.put(
            Key::Meta(magpie::store::Meta::Checkpoint).bytes(),
            checkpoint.into_bytes(),
        );
        let totals = format!(r#"{{"pages":{from},"warc_bytes":{}}}"#, from * 900);
        ws.put(
            Key::Meta(magpie::store::Meta::Totals).bytes(),
            totals.into_bytes(),
        );
        let t = Instant::now();
        store.commit(ws).expect("commit");
        let took = t.elapsed();
        (committing, commits, slowest) = (committing + took, commits + 1, slowest.max(took));
    }
    println!(
        "store: {entries} entries in {commits} commits of {batch}: {:.0} entries/s, {:.2} ms a commit (slowest {:.2} ms)",
        entries as f64 / committing.as_secs_f64(),
        committing.as_secs_f64() * 1000.0 / commits as f64,
        slowest.as_secs_f64() * 1000.0
    );
    let disk = store.size_on_disk();
    drop(store);
    let t = Instant::now();
    let store = reopen(dir.path());
    let opened = t.elapsed();
    let t = Instant::now();
    let mut n = 0u64;
    store.for_each(b"", |_, _| n += 1).expect("scan");
    println!(
        "store: reopen (checksum checked) {:.2} s; one more full scan of {n} entries {:.2} s; {:.1} MiB on disk",
        opened.as_secs_f64(),
        t.elapsed().as_secs_f64(),
        disk as f64 / (1 << 20) as f64
    );
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    if bench {
        run(
            env("MAGPIE_BENCH_ENTRIES", 1_000_000),
            env("MAGPIE_BENCH_BATCH", 500).max(1),
        );
    } else {
        run(2_000, 100);
    }
}
