//! The whole-crawl benchmark: crawls the built-in sample web (`sample_site::bench_config()`,
//! 50 hosts x 400 pages of 15-30 KB) on loopback with no politeness delay and WARC writing on,
//! and reports pages/s, CPU per page, peak RSS and bytes written.
//!
//! By default the sample web runs in a separate process (this same executable, started again
//! with `MAGPIE_BENCH_ROLE=server`), so the crawler's CPU time and peak RSS are its own; the
//! server still shares the machine's cores, as a real local origin server would. Its CPU time is
//! reported separately (from `RUSAGE_CHILDREN` after it exits). `server=inproc` runs it on the
//! crawler's runtime instead; CPU and RSS then include the server.
//!
//! Run with `cargo bench --bench crawl`; settings come from `MAGPIE_BENCH_<NAME>` environment
//! variables or `name=value` arguments (`cargo bench --bench crawl -- gzip=1 concurrency=128`):
//!
//! | name          | default | meaning                                              |
//! |---------------|---------|------------------------------------------------------|
//! | `hosts`       | 50      | sample hosts                                         |
//! | `pages`       | 400     | pages per host                                       |
//! | `max_pages`   | 20000   | `limits.max_pages`                                   |
//! | `concurrency` | 128     | `limits.max_concurrency`                             |
//! | `per_host`    | 4       | `politeness.max_parallel_per_host`                   |
//! | `gzip`        | spec    | `warc.gzip_level` (default: the spec's default)      |
//! | `sitemaps`    | false   | `scope.sitemaps`                                     |
//! | `aah`         | true    | `aah.enabled` (the application-aware helper)         |
//! | `topic`       | (none)  | `topic.keywords`, comma-separated: turns analysis on |
//! | `index`       | true    | `index.enabled` (the live capture index)             |
//! | `threads`     | 2       | tokio worker threads of the crawler                  |
//! | `server`      | child   | `child` (own process) or `inproc`                    |
//! | `runs`        | 1       | repetitions (each a fresh crawl)                     |
//! | `check`       | false   | validate the WARC files afterwards (not timed)       |
//! | `keep`        | (none)  | data folder to keep instead of a temporary one       |
//! | `trace`       | false   | print progress every half second (on stderr)         |

use magpie::crawl::{self, stats::Stats, CrawlOptions};
use magpie::sample_site::{self, SampleWeb, SiteConfig};
use magpie::spec::Spec;
use serde_json::json;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Benchmark settings, from the environment and the command line.
struct Settings {
    vals: HashMap<String, String>,
}

impl Settings {
    fn load() -> Settings {
        let mut vals = HashMap::new();
        for (k, v) in std::env::vars() {
            if let Some(name) = k.strip_prefix("MAGPIE_BENCH_") {
                vals.insert(name.to_ascii_lowercase(), v);
            }
        }
        // `cargo bench` passes `--bench`; anything else must be `name=value`.
        for arg in std::env::args().skip(1).filter(|a| a != "--bench") {
            match arg.trim_start_matches('-').split_once('=') {
                Some((k, v)) => vals.insert(k.replace('-', "_"), v.to_string()),
                None => fail(&format!("unexpected argument {arg:?}; use name=value")),
            };
        }
        Settings { vals }
    }

    fn str(&self, name: &str) -> Option<&str> {
        self.vals.get(name).map(String::as_str)
    }

    fn num<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        match self.str(name) {
            None => default,
            Some(v) => v
                .parse()
                .unwrap_or_else(|_| fail(&format!("{name}={v:?} is not a number"))),
        }
    }

    fn flag(&self, name: &str, default: bool) -> bool {
        match self.str(name) {
            None => default,
            Some("1" | "true" | "yes") => true,
            Some("0" | "false" | "no") => false,
            Some(v) => fail(&format!("{name}={v:?} is not a boolean")),
        }
    }

    fn site(&self) -> SiteConfig {
        SiteConfig {
            hosts: self.num("hosts", 50),
            pages_per_host: self.num("pages", 400),
            ..sample_site::bench_config()
        }
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("crawl bench: {msg}");
    std::process::exit(2)
}

fn main() {
    let s = Settings::load();
    if s.str("role") == Some("server") {
        return serve(&s);
    }
    let runs: usize = s.num("runs", 1);
    for run in 1..=runs {
        if runs > 1 {
            println!("--- run {run} of {runs}");
        }
        bench_once(&s);
    }
}

/// Server mode: serve the sample web, print the seeds, run until stdin closes.
fn serve(s: &Settings) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(s.num("server_threads", 2))
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&format!("server runtime: {e}")));
    rt.block_on(async {
        let web = SampleWeb::start(s.site())
            .await
            .unwrap_or_else(|e| fail(&format!("sample web: {e}")));
        let mut out = std::io::stdout().lock();
        for seed in web.seeds() {
            let _ = writeln!(out, "{seed}");
        }
        let _ = writeln!(out);
        let _ = out.flush();
        drop(out);
        // The parent closes our stdin when it is done.
        let _ = tokio::task::spawn_blocking(|| {
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
        })
        .await;
        eprintln!("server: {} responses", web.requests_served());
        web.shutdown().await;
    });
}

/// Starts this executable again as the sample web server and reads its seeds.
fn start_child(s: &Settings) -> (Child, Vec<String>) {
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(&format!("current exe: {e}")));
    let site = s.site();
    let mut child = Command::new(exe)
        .env("MAGPIE_BENCH_ROLE", "server")
        .env("MAGPIE_BENCH_HOSTS", site.hosts.to_string())
        .env("MAGPIE_BENCH_PAGES", site.pages_per_host.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("cannot start the server process: {e}")));
    let stdout = child.stdout.take().expect("piped stdout");
    let seeds = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>();
    if seeds.is_empty() {
        fail("the server process printed no seeds");
    }
    (child, seeds)
}

fn spec(s: &Settings, seeds: &[String]) -> Spec {
    let mut warc = json!({ "max_file_bytes": 1_000_000_000u64 });
    if let Some(level) = s.str("gzip") {
        warc["gzip_level"] = json!(level
            .parse::<u32>()
            .unwrap_or_else(|_| fail("gzip must be 0-9")));
    }
    let v = json!({
        "name": "bench",
        "seeds": seeds,
        "scope": { "sitemaps": s.flag("sitemaps", false) },
        "politeness": {
            "min_delay_ms": 0, "max_delay_ms": 0, "delay_factor": 0.0,
            "max_parallel_per_host": s.num::<u32>("per_host", 4),
        },
        "limits": {
            "max_pages": s.num::<u64>("max_pages", 20_000),
            "max_concurrency": s.num::<usize>("concurrency", 128),
        },
        "warc": warc,
        "aah": { "enabled": s.flag("aah", true) },
        "index": { "enabled": s.flag("index", true) },
        "network": { "allow_private": true }
    });
    let mut v = v;
    if let Some(topic) = s.str("topic") {
        let keywords: Vec<&str> = topic.split(',').map(str::trim).collect();
        v["topic"] = json!({ "keywords": keywords });
    }
    Spec::from_json(&v.to_string()).unwrap_or_else(|e| fail(&format!("spec: {e}")))
}

/// CPU time (user + system), system time alone and peak RSS of `who` (`RUSAGE_SELF` or
/// `RUSAGE_CHILDREN`).
fn usage(who: libc::c_int) -> (f64, f64, u64) {
    // SAFETY: getrusage only writes into the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(who, &mut ru) };
    if rc != 0 {
        return (0.0, 0.0, 0);
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        secs(ru.ru_utime) + secs(ru.ru_stime),
        secs(ru.ru_stime),
        ru.ru_maxrss as u64 * 1024,
    )
}

/// Prints progress every half second (`trace=1`): pages done, in flight, queued, CPU so far.
fn trace(stats: Arc<Stats>) -> (Arc<AtomicBool>, std::thread::JoinHandle<()>) {
    let done = Arc::new(AtomicBool::new(false));
    let stop = done.clone();
    let handle = std::thread::spawn(move || {
        let t0 = Instant::now();
        let (mut last_pages, mut last_cpu) = (0, usage(libc::RUSAGE_SELF).0);
        while !stop.load(Relaxed) {
            std::thread::sleep(Duration::from_millis(500));
            let pages = stats.pages.load(Relaxed);
            let cpu = usage(libc::RUSAGE_SELF).0;
            eprintln!(
                "  t={:5.1}s pages={pages:6} (+{:4}) inflight={:3} queued={:6} cpu={:4.0}%",
                t0.elapsed().as_secs_f64(),
                pages - last_pages,
                stats.inflight.load(Relaxed),
                stats.queued.load(Relaxed),
                (cpu - last_cpu) * 200.0,
            );
            (last_pages, last_cpu) = (pages, cpu);
        }
    });
    (done, handle)
}

fn dir_bytes(dir: &Path) -> (u64, Vec<PathBuf>) {
    let mut total = 0;
    let mut files = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            total += e.metadata().map(|m| m.len()).unwrap_or(0);
            files.push(e.path());
        }
    }
    files.sort();
    (total, files)
}

fn bench_once(s: &Settings) {
    let inproc = match s.str("server").unwrap_or("child") {
        "child" => false,
        "inproc" => true,
        other => fail(&format!("server={other:?}: use child or inproc")),
    };
    let threads: usize = s.num("threads", 2);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&format!("runtime: {e}")));
    let (web, child, seeds) = if inproc {
        let web = rt
            .block_on(SampleWeb::start(s.site()))
            .unwrap_or_else(|e| fail(&format!("sample web: {e}")));
        let seeds = web.seeds();
        (Some(web), None, seeds)
    } else {
        let (child, seeds) = start_child(s);
        (None, Some(child), seeds)
    };
    let spec = spec(s, &seeds);
    let settings_line = format!(
        "hosts={} pages={} max_pages={} concurrency={} per_host={} gzip={} sitemaps={} aah={} index={} topic={} threads={} server={}",
        seeds.len(),
        s.site().pages_per_host,
        spec.limits.max_pages,
        spec.limits.max_concurrency,
        spec.frontier.politeness.max_parallel_per_host,
        spec.warc.gzip_level,
        spec.scope.sitemaps,
        s.flag("aah", true),
        s.flag("index", true),
        s.str("topic").unwrap_or("-"),
        threads,
        if inproc { "inproc" } else { "child" },
    );
    let tmp = tempfile::tempdir().unwrap_or_else(|e| fail(&format!("tempdir: {e}")));
    let data = s
        .str("keep")
        .map_or(tmp.path().to_path_buf(), PathBuf::from);
    let opts = CrawlOptions {
        data: data.clone(),
        fresh: true,
        hostname: "bench".into(),
    };
    let (_control_tx, control_rx) = mpsc::unbounded_channel();
    let stats = Arc::new(Stats::default());
    let tracer = s.flag("trace", false).then(|| trace(stats.clone()));

    let (cpu0, sys0, _) = usage(libc::RUSAGE_SELF);
    let t0 = Instant::now();
    let summary = rt
        .block_on(crawl::run(spec, opts, stats, control_rx, false))
        .unwrap_or_else(|e| fail(&format!("crawl failed: {e}")));
    let wall = t0.elapsed().as_secs_f64();
    let (cpu1, sys1, rss) = usage(libc::RUSAGE_SELF);
    if let Some((done, handle)) = tracer {
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = handle.join();
    }

    if let Some(web) = web {
        rt.block_on(web.shutdown());
    }
    let server_cpu = child.map(|mut c| {
        let before = usage(libc::RUSAGE_CHILDREN).0;
        drop(c.stdin.take());
        let _ = c.wait();
        usage(libc::RUSAGE_CHILDREN).0 - before
    });
    rt.shutdown_timeout(Duration::from_secs(5));

    let (warc_bytes, files) = dir_bytes(&data.join("bench").join("warc"));
    let pages = summary.pages_fetched;
    let cpu = cpu1 - cpu0;
    let per_page_ms = if pages > 0 {
        cpu * 1000.0 / pages as f64
    } else {
        0.0
    };
    let pps = pages as f64 / wall;
    println!("crawl bench: {settings_line}");
    println!(
        "  stop={} pages={pages} robots={} revisits={} errors={:?} status={:?}",
        summary.stop_reason,
        summary.robots_fetches,
        summary.revisits,
        summary.errors_by_kind,
        summary.responses_by_status
    );
    println!("  wall            {wall:8.2} s");
    println!("  pages/s         {pps:8.0}");
    println!(
        "  crawler CPU     {cpu:8.2} s ({per_page_ms:.3} ms/page, {:.2} s system)",
        sys1 - sys0
    );
    if let Some(sc) = server_cpu {
        println!("  server CPU      {sc:8.2} s (separate process)");
    }
    println!("  peak RSS        {:8.1} MB", rss as f64 / 1048576.0);
    println!(
        "  WARC            {:8.1} MB in {} file(s)",
        warc_bytes as f64 / 1048576.0,
        files.len()
    );
    println!(
        "  received        {:8.1} MB",
        summary.bytes_received as f64 / 1048576.0
    );
    let line = json!({
        "settings": settings_line, "pages": pages, "wall_s": wall, "pages_per_s": pps,
        "cpu_s": cpu, "sys_s": sys1 - sys0, "cpu_ms_per_page": per_page_ms, "server_cpu_s": server_cpu,
        "peak_rss_bytes": rss, "warc_bytes": warc_bytes,
        "bytes_received": summary.bytes_received,
    });
    println!("  json {line}");

    if s.flag("check", false) {
        let mut defects = 0;
        for f in &files {
            match magpie::archive::check_file(f) {
                Ok(d) => {
                    for x in d.iter().take(5) {
                        eprintln!(
                            "  defect {}: offset {}: {}",
                            f.display(),
                            x.offset,
                            x.message
                        );
                    }
                    defects += d.len();
                }
                Err(e) => fail(&format!("cannot check {}: {e}", f.display())),
            }
        }
        println!("  check           {defects} defect(s)");
        if defects > 0 {
            std::process::exit(1);
        }
    }
}
