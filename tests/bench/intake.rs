//! The HTTP intake benchmark: sustained scored URLs per second through `POST /api/v1/urls`,
//! in batches of 1,000, into a crawl that is running (fetching the sample web) at the same time.
//!
//! Everything runs in this one process, as `magpie serve` does plus its load: the sample web
//! (on the crawl runtime), the crawl engine, the actix server (2 HTTP workers, as `magpie serve`
//! defaults to), and the client sending pre-built bodies over `conns` keep-alive connections.
//! They share the machine's cores; the CPU time reported is the whole process's.
//!
//! Round 1 inserts `urls` new in-scope URLs; round 2 sends new scores for the same URLs (queued
//! ones are re-prioritised). Then the same work without HTTP, to see where the time goes:
//! parsing the bodies (`intake::read_body`), and applying parsed batches through
//! `Manager::intake` (the engine and the frontier).
//!
//! Run with `cargo bench --bench intake`; settings from `MAGPIE_BENCH_<NAME>` variables or
//! `name=value` arguments (`cargo bench --bench intake -- urls=500000 conns=8`):
//!
//! | name      | default | meaning                                             |
//! |-----------|---------|-----------------------------------------------------|
//! | `urls`    | 200000  | distinct URLs per round                             |
//! | `batch`   | 1000    | URLs per request                                    |
//! | `conns`   | 4       | concurrent client connections                       |
//! | `workers` | 2       | HTTP worker threads of the server                   |
//! | `threads` | 2       | tokio worker threads of the crawl runtime           |
//! | `hosts`   | 10      | sample web hosts (the crawl's seeds)                |
//! | `pages`   | 2000    | pages per sample host (the crawl must outlast the run) |

use magpie::intake::{self, IntakeReport, ScoredUrl};
use magpie::manager::Manager;
use magpie::sample_site::{self, SampleWeb, SiteConfig};
use magpie::web::{self, AppState, WebConfig};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TOKEN: &str = "intake-bench-token-0123456789";

fn fail(msg: &str) -> ! {
    eprintln!("intake bench: {msg}");
    std::process::exit(2)
}

/// Settings from the environment and the command line.
struct Settings(HashMap<String, String>);

impl Settings {
    fn load() -> Settings {
        let mut vals = HashMap::new();
        for (k, v) in std::env::vars() {
            if let Some(name) = k.strip_prefix("MAGPIE_BENCH_") {
                vals.insert(name.to_ascii_lowercase(), v);
            }
        }
        for arg in std::env::args().skip(1).filter(|a| a != "--bench") {
            match arg.trim_start_matches('-').split_once('=') {
                Some((k, v)) => vals.insert(k.replace('-', "_"), v.to_string()),
                None => fail(&format!("unexpected argument {arg:?}; use name=value")),
            };
        }
        Settings(vals)
    }

    fn num(&self, name: &str, default: usize) -> usize {
        match self.0.get(name) {
            None => default,
            Some(v) => v
                .parse()
                .unwrap_or_else(|_| fail(&format!("{name}={v:?} is not a number"))),
        }
    }
}

/// User + system CPU seconds of this process.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes into the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0.0;
    }
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(ru.ru_utime) + s(ru.ru_stime)
}

/// A reproducible score in [0, 1] for URL `i` in round `round`.
fn score(i: usize, round: usize) -> f64 {
    let mut rng = magpie::sample_site::SplitMix::for_cell(0, i as u64, round as u64);
    rng.below(10_001) as f64 / 10_000.0
}

/// The batches of one round, serialised before timing starts.
fn bodies(hosts: &[String], prefix: &str, urls: usize, batch: usize, round: usize) -> Vec<Vec<u8>> {
    (0..urls)
        .step_by(batch)
        .map(|start| {
            let items: Vec<Value> = (start..(start + batch).min(urls))
                .map(|i| {
                    json!({
                        "crawl_id": "bench",
                        "url": format!("{}/{prefix}/{i}.html", hosts[i % hosts.len()]),
                        "score": score(i, round),
                        "source": "bench-scorer",
                    })
                })
                .collect();
            serde_json::to_vec(&items).expect("JSON")
        })
        .collect()
}

#[derive(Default)]
struct Totals {
    report: IntakeReport,
    latencies: Vec<Duration>,
}

/// Sends every body over `conns` connections; returns the merged reports and latencies.
async fn send_all(
    client: &reqwest::Client,
    url: &str,
    bodies: Vec<Vec<u8>>,
    conns: usize,
) -> Totals {
    let bodies: Arc<Vec<actix_web::web::Bytes>> =
        Arc::new(bodies.into_iter().map(Into::into).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..conns {
        let (client, url, bodies, next) = (
            client.clone(),
            url.to_string(),
            bodies.clone(),
            next.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut t = Totals::default();
            loop {
                let i = next.fetch_add(1, Relaxed);
                let Some(body) = bodies.get(i) else { break };
                let started = Instant::now();
                let resp = client
                    .post(&url)
                    .bearer_auth(TOKEN)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap_or_else(|e| fail(&format!("POST: {e}")));
                let status = resp.status();
                let r: IntakeReport = resp
                    .json()
                    .await
                    .unwrap_or_else(|e| fail(&format!("answer of {status}: {e}")));
                t.latencies.push(started.elapsed());
                t.report.received += r.received;
                t.report.merge(r);
            }
            t
        }));
    }
    let mut all = Totals::default();
    for task in tasks {
        let t = task
            .await
            .unwrap_or_else(|e| fail(&format!("client task: {e}")));
        all.report.received += t.report.received;
        all.report.merge(t.report);
        all.latencies.extend(t.latencies);
    }
    all
}

fn pct(lat: &mut [Duration], p: f64) -> f64 {
    lat.sort_unstable();
    let i = ((lat.len() as f64 - 1.0) * p).round() as usize;
    lat.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

async fn pages(client: &reqwest::Client, base: &str) -> u64 {
    let v: Value = client
        .get(format!("{base}/api/v1/crawls/bench"))
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .unwrap_or_else(|e| fail(&format!("crawl status: {e}")))
        .json()
        .await
        .unwrap_or_else(|e| fail(&format!("crawl status: {e}")));
    if v["state"] != "running" {
        fail(&format!("the crawl is not running: {}", v["state"]));
    }
    v["stats"]["pages_fetched"].as_u64().unwrap_or(0)
}

fn main() {
    let s = Settings::load();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(s.num("threads", 2))
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&format!("runtime: {e}")));
    rt.block_on(run(&s));
}

async fn run(s: &Settings) {
    let (urls, batch, conns) = (
        s.num("urls", 200_000),
        s.num("batch", 1000),
        s.num("conns", 4),
    );
    let site = SiteConfig {
        hosts: s.num("hosts", 10),
        pages_per_host: s.num("pages", 2000),
        ..sample_site::bench_config()
    };
    let sample = SampleWeb::start(site)
        .await
        .unwrap_or_else(|e| fail(&format!("sample web: {e}")));
    let hosts: Vec<String> = sample
        .seeds()
        .iter()
        .map(|u| u.trim_end_matches('/').to_string())
        .collect();
    let data = tempfile::tempdir().unwrap_or_else(|e| fail(&format!("temp dir: {e}")));
    let manager = Manager::open(data.path().to_path_buf(), "bench".into())
        .await
        .unwrap_or_else(|e| fail(&format!("manager: {e}")));
    let mut config = WebConfig::new(TOKEN.into(), true);
    config.workers = s.num("workers", 2);
    config.grace = Duration::from_secs(10);
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| fail(&format!("bind: {e}")));
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(web::serve(
        listener,
        AppState::new(manager.clone(), config),
        async move {
            let _ = stop_rx.await;
        },
    ));
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(conns)
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client");

    // A crawl of the sample web, running throughout.
    let spec = json!({
        "name": "bench",
        "seeds": sample.seeds(),
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 0, "delay_factor": 0.0, "max_parallel_per_host": 2 },
        "limits": { "max_pages": 10_000_000u64, "max_concurrency": 32 },
        "network": { "allow_private": true }
    });
    for (path, body) in [
        ("/api/v1/crawls", Some(spec)),
        ("/api/v1/crawls/bench/start", None),
    ] {
        let mut req = client.post(format!("{base}{path}")).bearer_auth(TOKEN);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req
            .send()
            .await
            .unwrap_or_else(|e| fail(&format!("{path}: {e}")));
        if !resp.status().is_success() {
            fail(&format!(
                "{path}: {}",
                resp.text().await.unwrap_or_default()
            ));
        }
    }
    let warm = Instant::now();
    while pages(&client, &base).await < 100 {
        if warm.elapsed() > Duration::from_secs(60) {
            fail("the crawl fetched fewer than 100 pages in a minute");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // The crawl's own pace without intake, for comparison with its pace during the rounds.
    let (p0, t0) = (pages(&client, &base).await, Instant::now());
    tokio::time::sleep(Duration::from_secs(3)).await;
    let idle_rate = (pages(&client, &base).await - p0) as f64 / t0.elapsed().as_secs_f64();
    println!("crawl alone: {idle_rate:.0} pages/s");
    println!(
        "intake bench: {urls} URLs per round, batches of {batch}, {conns} connections, \
              {} HTTP workers, {} hosts",
        s.num("workers", 2),
        hosts.len()
    );
    let url = format!("{base}/api/v1/urls");
    for (round, what) in [(1, "insert"), (2, "update")] {
        let b = bodies(&hosts, "intake", urls, batch, round);
        let body_bytes: usize = b.iter().map(Vec::len).sum();
        let (p0, cpu0, t0) = (pages(&client, &base).await, cpu_seconds(), Instant::now());
        let mut t = send_all(&client, &url, b, conns).await;
        let secs = t0.elapsed().as_secs_f64();
        let (cpu, fetched) = (cpu_seconds() - cpu0, pages(&client, &base).await - p0);
        let r = &t.report;
        if !r.rejected.is_empty() {
            fail(&format!(
                "{} items rejected, first: {:?}",
                r.rejected.len(),
                r.rejected[0]
            ));
        }
        println!(
            "round {round} ({what}): {:.0} URLs/s over HTTP ({} URLs in {secs:.2} s, {:.1} MB/s of JSON); \
             inserted {} updated {} ignored {}; request p50 {:.1} ms p99 {:.1} ms; \
             process CPU {cpu:.2} s ({:.1} us/URL); crawl fetched {fetched} pages meanwhile",
            r.received as f64 / secs,
            r.received,
            body_bytes as f64 / secs / 1e6,
            r.inserted,
            r.updated,
            r.ignored,
            pct(&mut t.latencies, 0.5),
            pct(&mut t.latencies, 0.99),
            cpu * 1e6 / r.received.max(1) as f64,
        );
    }

    // Where the time goes: the same bodies parsed alone, and parsed batches applied without HTTP.
    let b = bodies(&hosts, "direct", urls, batch, 3);
    let t0 = Instant::now();
    let parsed: Vec<Vec<ScoredUrl>> = b
        .iter()
        .map(|body| intake::read_body(body, false).unwrap_or_else(|e| fail(&format!("parse: {e}"))))
        .collect();
    let parse_s = t0.elapsed().as_secs_f64();
    println!(
        "parse only (intake::read_body, one thread): {:.0} URLs/s",
        urls as f64 / parse_s
    );
    let big = batch * 10;
    for (round, what, prefix, size) in [
        (3, "insert", "direct", batch),
        (4, "update", "direct", batch),
        (5, "insert", "direct-big", big),
    ] {
        let batches: Vec<Vec<ScoredUrl>> = if round == 3 {
            parsed.clone()
        } else {
            bodies(&hosts, prefix, urls, size, round)
                .iter()
                .map(|body| intake::read_body(body, false).expect("parse"))
                .collect()
        };
        let t0 = Instant::now();
        let mut report = IntakeReport::default();
        for items in batches {
            let r = manager.intake(items).await;
            report.received += r.received;
            report.merge(r);
        }
        let secs = t0.elapsed().as_secs_f64();
        if !report.rejected.is_empty() {
            fail(&format!("direct: {} items rejected", report.rejected.len()));
        }
        println!(
            "apply only (Manager::intake, no HTTP, no parsing), {what}, batches of {size}: \
             {:.0} URLs/s (inserted {} updated {})",
            report.received as f64 / secs,
            report.inserted,
            report.updated
        );
    }

    drop(stop);
    server
        .await
        .unwrap_or_else(|e| fail(&format!("server task: {e}")))
        .unwrap_or_else(|e| fail(&format!("server: {e}")));
    sample.shutdown().await;
}
