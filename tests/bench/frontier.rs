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
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
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

/// CPU time (user + system, all threads) this process has used.
fn cpu() -> Duration {
    // SAFETY: getrusage only writes into the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Wall-clock and CPU time of one phase. The machine may be shared, so the rate per CPU-second
/// is printed too: it is what the frontier costs, whoever else is running.
struct Phase(Instant, Duration);

impl Phase {
    fn start() -> Phase {
        Phase(Instant::now(), cpu())
    }

    fn rate(&self, n: u64) -> String {
        let (wall, cpu) = (self.0.elapsed(), cpu() - self.1);
        format!(
            "{:.0}/s ({n} in {:.2} s wall; {:.0} per CPU-second)",
            n as f64 / wall.as_secs_f64(),
            wall.as_secs_f64(),
            n as f64 / cpu.as_secs_f64()
        )
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1048576.0
}

/// The one-shot measurement on a large frontier.
fn oneshot(urls: u64, hosts: u64, batch: u64, ops: u64) {
    let crawl = Crawl { hosts };
    let dir = tempfile::tempdir().expect("temporary folder");
    println!("oneshot: {urls} URLs over {hosts} hosts, commit every {batch} operations");
    let rss0 = rss();
    let (mut f, store) = open(dir.path());
    let phase = Phase::start();
    insert(&mut f, crawl, 0, urls, batch);
    println!("oneshot insert (offer + commit): {}", phase.rate(urls));
    let rss1 = rss();
    let disk = store.size_on_disk();
    assert_eq!(f.queued(), urls, "every URL is queued");
    println!(
        "oneshot RAM per queued URL: {:.1} bytes (RSS {:.1} MiB -> {:.1} MiB)",
        rss1.saturating_sub(rss0) as f64 / urls as f64,
        mib(rss0),
        mib(rss1)
    );
    println!(
        "oneshot disk per URL: {:.1} bytes ({:.1} MiB)",
        disk as f64 / urls as f64,
        mib(disk)
    );
    let phase = Phase::start();
    let moved = update(&mut f, crawl, urls, ops, batch, 1);
    println!("oneshot update (score + commit): {}", phase.rate(ops));
    assert_eq!(moved, ops, "every score lands on a queued URL");
    let phase = Phase::start();
    let popped = pop(&mut f, ops, batch);
    println!(
        "oneshot pop (next + complete + commit): {}",
        phase.rate(popped)
    );
    let queued = f.queued();
    let (disk, rss2) = (store.size_on_disk(), rss());
    drop((f, store));
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
                env("MAGPIE_BENCH_BATCH", 1_000),
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
