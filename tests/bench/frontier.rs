//! Frontier benchmarks: insert, priority-update and pop rates, RAM and disk per queued URL.
//!
//! `cargo bench --bench frontier` runs two parts in one binary:
//!
//! 1. A one-shot measurement on a large frontier, printed as plain lines starting `oneshot`:
//!    build it (offer + commit in batches), then score queued URLs, then pop and complete them,
//!    reporting each rate, the growth of the resident set size per queued URL, the store's bytes
//!    on disk per URL and the time to reopen it. Defaults: 1 000 000 URLs over 10 000 hosts,
//!    batches of 1 000; the environment variables `MAGPIE_BENCH_URLS`, `MAGPIE_BENCH_HOSTS`,
//!    `MAGPIE_BENCH_BATCH` and `MAGPIE_BENCH_OPS` (updates and pops measured) change them, and
//!    `MAGPIE_BENCH_ONESHOT=0` skips this part. It runs first, so the resident set it measures
//!    holds nothing but the frontier and the store.
//! 2. criterion benchmarks of the same operations on a 100 000 URL frontier over 1 000 hosts,
//!    one batch of 1 000 operations plus its commit per iteration (throughput in elements/s).
//!
//! Under `cargo test --benches` both parts run once on a tiny frontier as a smoke test.

use criterion::{Criterion, Throughput};
use magpie::frontier::politeness::{FetchTiming, PolitenessConfig};
use magpie::frontier::update::{Scored, UpdateFn};
use magpie::frontier::{Completion, Frontier, FrontierConfig, Lease};
use magpie::model::CrawlUri;
use magpie::store::Store;
use magpie::uri::fingerprint;
use std::path::Path;
use std::time::{Duration, Instant};

/// The synthetic crawl: URL `i` lives on host `i % hosts` and has a pseudo-random priority.
#[derive(Clone, Copy)]
struct Crawl {
    hosts: u64,
}

impl Crawl {
    fn host(&self, i: u64) -> String {
        format!("www.site{:05}.example.org", i % self.hosts)
    }

    fn url(&self, i: u64) -> String {
        format!(
            "https://{}/section/{}/article-{i}.html",
            self.host(i),
            i % 17
        )
    }

    fn uri(&self, i: u64) -> CrawlUri {
        CrawlUri {
            via: Some(format!("https://{}/section/{}/", self.host(i), i % 17)),
            hops: "LL".into(),
            priority: unit(i),
            source: "crawl".into(),
            ..CrawlUri::seed(self.url(i))
        }
    }

    fn offer(&self, f: &mut Frontier, i: u64) {
        let (host, uri) = (self.host(i), self.uri(i));
        let origin = format!("https://{host}");
        f.offer(fingerprint(&uri.url), &host, &origin, uri);
    }

    fn score(&self, f: &mut Frontier, i: u64, salt: u64) -> bool {
        let (host, uri) = (self.host(i), self.uri(i));
        let origin = format!("https://{host}");
        let fp = fingerprint(&uri.url);
        let s = unit(i ^ salt);
        let r = f.score(fp, &host, &origin, uri, s, UpdateFn::Avg);
        matches!(r, Ok(Scored::Updated { .. }))
    }
}

/// A pseudo-random number in [0, 1) (splitmix64).
fn unit(i: u64) -> f32 {
    (magpie::sample_site::SplitMix::new(i).next_u64() >> 40) as f32 / (1u64 << 24) as f32
}

fn config() -> FrontierConfig {
    FrontierConfig {
        politeness: PolitenessConfig {
            min_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
            delay_factor: 0.0,
            max_parallel_per_host: 1,
            max_parallel_per_ip: 1,
            max_retry_after: Duration::ZERO,
        },
        balance_per_queue: 1,
        max_pages_per_host: u64::MAX,
        respect_robots: false,
        best_n: None,
    }
}

/// The frontier on the store in `dir`, and a second handle on that store to measure it.
fn open(dir: &Path) -> (Frontier, Store) {
    let store = Store::open(dir).expect("open the store");
    let f = Frontier::open(store.clone(), config()).expect("open the frontier");
    (f, store)
}

const FAST: Option<FetchTiming> = Some(FetchTiming {
    duration: Duration::ZERO,
    retry_after: None,
    backoff: None,
});

/// Offers URLs `from..to`, committing every `batch`.
fn insert(f: &mut Frontier, crawl: Crawl, from: u64, to: u64, batch: u64) {
    for i in from..to {
        crawl.offer(f, i);
        if (i + 1 - from) % batch == 0 {
            f.commit().expect("commit");
        }
    }
    f.commit().expect("commit");
}

/// Scores `n` pseudo-random URLs of `0..urls`, committing every `batch`; returns how many moved.
fn update(f: &mut Frontier, crawl: Crawl, urls: u64, n: u64, batch: u64, salt: u64) -> u64 {
    let mut moved = 0;
    for k in 0..n {
        let i = (unit(k ^ salt.rotate_left(17)) as f64 * urls as f64) as u64;
        moved += crawl.score(f, i, salt) as u64;
        if (k + 1) % batch == 0 {
            f.commit().expect("commit");
        }
    }
    f.commit().expect("commit");
    moved
}

/// Pops and completes up to `n` URLs, committing every `batch`; returns how many were popped.
fn pop(f: &mut Frontier, n: u64, batch: u64) -> u64 {
    let mut done = 0;
    while done < n {
        let Some(Lease::Url(l)) = f.next(Instant::now()) else {
            f.commit().expect("commit");
            if f.next_wake().is_none() {
                break;
            }
            continue;
        };
        f.complete(&l, Completion::Done, FAST, Instant::now());
        done += 1;
        if done % batch == 0 {
            f.commit().expect("commit");
        }
    }
    f.commit().expect("commit");
    done
}

/// Resident set size of this process in bytes.
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * page.max(0) as u64
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1048576.0
}

/// Group commit: at most this long between commits, as the crawl engine does.
const GROUP_COMMIT: Duration = Duration::from_millis(200);

/// Frontier calls with their inputs built beforehand, in chunks, so only the frontier's work
/// (group commits included) is timed: a real caller has its URLs parsed already.
struct Timed<'a> {
    f: &'a mut Frontier,
    spent: Duration,
    /// Of which in commits (writes and syncs).
    committing: Duration,
    last_commit: Instant,
    /// Also commit after this many operations.
    batch: u64,
    since: u64,
}

impl Timed<'_> {
    /// Runs `op` on every input, timed, committing every 200 ms or `batch` operations.
    fn run<T>(&mut self, inputs: Vec<T>, mut op: impl FnMut(&mut Frontier, T)) {
        let t = Instant::now();
        for x in inputs {
            op(self.f, x);
            self.since += 1;
            if self.since >= self.batch
                || (self.since % 256 == 0 && self.last_commit.elapsed() >= GROUP_COMMIT)
            {
                let c = Instant::now();
                self.f.commit().expect("commit");
                self.committing += c.elapsed();
                (self.since, self.last_commit) = (0, Instant::now());
            }
        }
        self.spent += t.elapsed();
    }

    /// The final commit, timed; returns the time spent, and prints the share of commits.
    fn finish(self) -> Duration {
        let t = Instant::now();
        self.f.commit().expect("commit");
        let spent = self.spent + t.elapsed();
        println!(
            "oneshot   (of {:.2} s, {:.2} s in commits)",
            spent.as_secs_f64(),
            (self.committing + t.elapsed()).as_secs_f64()
        );
        spent
    }
}

fn timed(f: &mut Frontier, batch: u64) -> Timed<'_> {
    Timed {
        f,
        spent: Duration::ZERO,
        committing: Duration::ZERO,
        last_commit: Instant::now(),
        batch,
        since: 0,
    }
}

fn rate(n: u64, d: Duration) -> String {
    format!(
        "{:.0}/s ({n} in {:.2} s)",
        n as f64 / d.as_secs_f64(),
        d.as_secs_f64()
    )
}

const CHUNK: u64 = 10_000;

/// An offer's inputs: fingerprint, host, origin, URL.
type OfferIn = (u64, String, String, CrawlUri);

fn offer_inputs(crawl: Crawl, from: u64, to: u64) -> Vec<OfferIn> {
    (from..to)
        .map(|i| {
            let (host, uri) = (crawl.host(i), crawl.uri(i));
            (fingerprint(&uri.url), format!("https://{host}"), host, uri)
        })
        .collect()
}

/// The one-shot measurement on a large frontier.
fn oneshot(urls: u64, hosts: u64, batch: u64, ops: u64) {
    let crawl = Crawl { hosts };
    let dir = tempfile::tempdir().expect("temporary folder");
    println!(
        "oneshot: {urls} URLs over {hosts} hosts, group commit every 200 ms or {batch} operations"
    );
    let rss0 = rss();
    let (mut f, _store) = open(dir.path());
    let mut t = timed(&mut f, batch);
    for from in (0..urls).step_by(CHUNK as usize) {
        let inputs = offer_inputs(crawl, from, (from + CHUNK).min(urls));
        t.run(inputs, |f, (fp, origin, host, uri)| {
            f.offer(fp, &host, &origin, uri);
        });
    }
    let spent = t.finish();
    println!("oneshot insert (offer, durable): {}", rate(urls, spent));
    let rss1 = rss();
    assert_eq!(f.queued(), urls, "every URL is queued");
    println!(
        "oneshot RAM per queued URL: {:.1} bytes (RSS {:.1} MiB -> {:.1} MiB; URL table {:.1} MiB)",
        rss1.saturating_sub(rss0) as f64 / urls as f64,
        mib(rss0),
        mib(rss1),
        mib(f.table_bytes() as u64)
    );
    let disk = f.size_on_disk();
    println!(
        "oneshot disk per URL: {:.1} bytes ({:.1} MiB)",
        disk as f64 / urls as f64,
        mib(disk)
    );
    let mut t = timed(&mut f, batch);
    let mut moved = 0;
    for k0 in (0..ops).step_by(CHUNK as usize) {
        let inputs: Vec<(OfferIn, f32)> = (k0..(k0 + CHUNK).min(ops))
            .map(|k| {
                let i = (unit(k ^ 1u64.rotate_left(17)) as f64 * urls as f64) as u64;
                (offer_inputs(crawl, i, i + 1).remove(0), unit(i ^ k))
            })
            .collect();
        t.run(inputs, |f, ((fp, origin, host, uri), s)| {
            let r = f.score(fp, &host, &origin, uri, s, UpdateFn::Avg);
            moved += matches!(r, Ok(Scored::Updated { .. })) as u64;
        });
    }
    let spent = t.finish();
    println!("oneshot update (score, durable): {}", rate(ops, spent));
    assert_eq!(moved, ops, "every score lands on a queued URL");
    let mut t = timed(&mut f, batch);
    let mut popped = 0;
    while popped < ops {
        let n = CHUNK.min(ops - popped);
        t.run(vec![(); n as usize], |f, ()| {
            if let Some(Lease::Url(l)) = f.next(Instant::now()) {
                f.complete(&l, Completion::Done, FAST, Instant::now());
                popped += 1;
            }
        });
    }
    let spent = t.finish();
    println!(
        "oneshot pop (next + complete, durable): {}",
        rate(popped, spent)
    );
    let queued = f.queued();
    let (disk, rss2) = (f.size_on_disk(), rss());
    drop((f, _store));
    let t = Instant::now();
    let (f, _store) = reopen(dir.path());
    println!(
        "oneshot end: RSS {:.1} MiB, disk {:.1} MiB; reopen with {queued} queued took {:.2} s",
        mib(rss2),
        mib(disk),
        t.elapsed().as_secs_f64()
    );
    assert_eq!(f.queued(), queued);
}

/// Reopens a store whose folder lock sled may still be releasing from its background threads.
fn reopen(dir: &Path) -> (Frontier, Store) {
    for _ in 0..500 {
        if let Ok(store) = Store::open(dir) {
            let f = Frontier::open(store.clone(), config()).expect("reopen the frontier");
            return (f, store);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    open(dir)
}

/// criterion: one batch of operations plus its commit per iteration.
fn per_op(c: &mut Criterion, urls: u64, hosts: u64, batch: u64) {
    let crawl = Crawl { hosts };
    let dir = tempfile::tempdir().expect("temporary folder");
    let (mut f, _store) = open(dir.path());
    insert(&mut f, crawl, 0, urls, batch);
    let mut next = urls;
    let mut g = c.benchmark_group("frontier");
    g.throughput(Throughput::Elements(batch));
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function("offer+commit", |b| {
        b.iter(|| {
            insert(&mut f, crawl, next, next + batch, batch);
            next += batch;
        })
    });
    let mut salt = 0;
    g.bench_function("score+commit", |b| {
        b.iter(|| {
            salt += 1;
            update(&mut f, crawl, urls, batch, batch, salt)
        })
    });
    g.bench_function("next+complete+commit", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                if f.queued() < urls / 2 {
                    insert(&mut f, crawl, next, next + urls / 2, batch);
                    next += urls / 2;
                }
                let t = Instant::now();
                pop(&mut f, batch, batch);
                total += t.elapsed();
            }
            total
        })
    });
    g.finish();
}

/// criterion: choosing the next host among many ready ones (ARCOMEM's best-first choice), one
/// batch of `next` + `complete` per iteration, the commit outside the timing. Completions are
/// retries, so every URL comes back and the frontier keeps its size.
fn host_choice(c: &mut Criterion, hosts: u64, batch: u64) {
    let crawl = Crawl { hosts };
    let dir = tempfile::tempdir().expect("temporary folder");
    let (mut f, _store) = open(dir.path());
    insert(&mut f, crawl, 0, 2 * hosts, batch);
    let mut g = c.benchmark_group("frontier");
    g.throughput(Throughput::Elements(batch));
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function(format!("choose-host/{hosts}-hosts"), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                for _ in 0..batch {
                    if let Some(Lease::Url(l)) = f.next(Instant::now()) {
                        f.complete(&l, Completion::Retry, FAST, Instant::now());
                    }
                }
                total += t.elapsed();
                f.commit().expect("commit");
            }
            total
        })
    });
    g.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let list = args.iter().any(|a| a == "--list");
    let mut c = Criterion::default().configure_from_args();
    if !list && env("MAGPIE_BENCH_ONESHOT", 1) != 0 {
        if bench {
            let urls = env("MAGPIE_BENCH_URLS", 1_000_000);
            let ops = env("MAGPIE_BENCH_OPS", 200_000).min(urls);
            oneshot(
                urls,
                env("MAGPIE_BENCH_HOSTS", 10_000),
                env("MAGPIE_BENCH_BATCH", 1_000_000),
                ops,
            );
        } else {
            oneshot(2_000, 50, 100, 500);
        }
    }
    if bench {
        per_op(&mut c, 100_000, 1_000, 1_000);
        host_choice(&mut c, 1_000, 1_000);
        host_choice(&mut c, 100_000, 1_000);
    } else {
        per_op(&mut c, 2_000, 50, 100);
        host_choice(&mut c, 500, 100);
    }
    c.final_summary();
}
