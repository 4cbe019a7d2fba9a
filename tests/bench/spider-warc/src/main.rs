//! spider-warc SEED_URL WARC_PATH [--hosts H1,H2,...] [--concurrency N] [--single-website]
//!
//! Crawls with the `spider` crate and archives every fetched page with spider's
//! own WARC writer (`spider::utils::warc`, cargo feature `warc`).
//!
//! Default mode: one spider `Website` per host (seed host + --hosts), each with
//! spider's own concurrency limit N (up to N x active hosts in flight).
//! Why not one `Website`: spider resolves root-relative
//! links (`href="/x"`) found on pages of *other* hosts against the seed host
//! when `with_external_domains` is used (2.53.9: page.rs link handlers use the
//! crawl's `domain_parsed` as base), so a single multi-host `Website` crawls
//! the wrong URLs. Per-host `Website`s resolve their own links correctly and
//! also read each host's own robots.txt; cross-host links are taken from
//! `page.page_links` (raw hrefs), resolved here against the page URL and
//! handed to the target host's `Website` (`persist_links` + `set_extra_links`).
//!
//! `--single-website`: stock single `Website` + `with_external_domains`
//! (kept only to show the problem above).
use spider::CaseInsensitiveString;
use spider::page::Page;
use spider::url::Url;
use spider::utils::warc::{WarcConfig, WarcWriter};
use spider::website::Website;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::mpsc;

/// Broadcast ring per Website. spider's own placeholder receiver pins up to
/// this many pages in memory, so keep it moderate; lag is reported.
const RING: usize = 1024;

fn usage() -> ! {
    eprintln!(
        "usage: spider-warc SEED_URL WARC_PATH [--hosts H1,H2,...] [--concurrency N] [--single-website]"
    );
    std::process::exit(2)
}

fn host_key(u: &Url) -> Option<String> {
    Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?))
}

fn parse_host(h: &str) -> Option<String> {
    let s = if h.contains("://") {
        h.to_string()
    } else {
        format!("http://{h}/")
    };
    host_key(&Url::parse(&s).ok()?)
}

enum Msg {
    Crawled(String),
    Found(usize, String),
    Idle(usize),
}

struct Ctx {
    writer: WarcWriter,
    hosts: Vec<String>, // "ip:port"; index 0 = seed host
    tx: mpsc::UnboundedSender<Msg>,
    pages: AtomicU64,
    lagged: AtomicU64,
    failed: AtomicU64,
}

impl Ctx {
    fn on_page(&self, me: usize, page: &Page) {
        if page.blocked_crawl {
            return;
        }
        let _ = self.tx.send(Msg::Crawled(page.get_url().to_string()));
        // No HTTP response (connect error, timeout, blocked redirect): spider
        // would archive a synthetic "503" with an empty body; skip it.
        if page.headers.as_ref().is_none_or(|h| h.is_empty()) {
            if self.failed.fetch_add(1, Relaxed) < 3 {
                eprintln!("no response: {} ({:?})", page.get_url(), page.error_status);
            }
            return;
        }
        self.writer.write_page(page);
        self.pages.fetch_add(1, Relaxed);
        let (Some(links), Ok(base)) = (&page.page_links, Url::parse(page.get_url_final())) else {
            return;
        };
        for href in links.iter() {
            let Ok(mut u) = base.join(href.inner()) else {
                continue;
            };
            if !matches!(u.scheme(), "http" | "https") {
                continue;
            }
            u.set_fragment(None);
            let Some(k) = host_key(&u) else { continue };
            if let Some(i) = self.hosts.iter().position(|h| *h == k) {
                if i != me {
                    let _ = self.tx.send(Msg::Found(i, u.into()));
                }
            }
        }
    }
}

/// `conc` is spider's own per-`Website` limit. (A semaphore shared between
/// `Website`s via `with_concurrency_semaphore` loses URLs: spider 2.53.9's crawl
/// loop ends a wave with `else => break` when it holds no in-flight task and sees
/// no free permit, dropping the rest of that wave.)
fn configure(w: &mut Website, conc: usize) {
    w.with_respect_robots_txt(true)
        .with_concurrency_limit(Some(conc))
        .with_delay(0)
        .with_depth(0) // 0 = unlimited (default 25)
        .with_subdomains(false)
        .with_tld(false);
}

/// One host: runs a spider crawl per batch of seed URLs, on the same `Website`
/// (visited set kept across rounds via `persist_links`).
async fn driver(
    me: usize,
    ctx: Arc<Ctx>,
    mut w: Website,
    mut seeds: mpsc::UnboundedReceiver<Vec<String>>,
) {
    let mut rx = w.subscribe(RING);
    while let Some(mut batch) = seeds.recv().await {
        while let Ok(more) = seeds.try_recv() {
            batch.extend(more);
        }
        w.persist_links();
        w.set_extra_links(batch.into_iter().map(CaseInsensitiveString::from).collect());
        {
            let mut crawl = std::pin::pin!(w.crawl());
            loop {
                tokio::select! {
                    _ = &mut crawl => break,
                    r = rx.recv() => match r {
                        Ok(p) => ctx.on_page(me, &p),
                        Err(RecvError::Lagged(n)) => { ctx.lagged.fetch_add(n, Relaxed); }
                        Err(RecvError::Closed) => { (&mut crawl).await; break; }
                    },
                }
            }
        }
        loop {
            match rx.try_recv() {
                Ok(p) => ctx.on_page(me, &p),
                Err(TryRecvError::Lagged(n)) => {
                    ctx.lagged.fetch_add(n, Relaxed);
                }
                Err(_) => break,
            }
        }
        let _ = ctx.tx.send(Msg::Idle(me));
    }
}

fn new_ctx(writer: WarcWriter, hosts: Vec<String>, tx: mpsc::UnboundedSender<Msg>) -> Arc<Ctx> {
    let z = || AtomicU64::new(0);
    Arc::new(Ctx {
        writer,
        hosts,
        tx,
        pages: z(),
        lagged: z(),
        failed: z(),
    })
}

async fn per_host(seed: &str, hosts: Vec<String>, conc: usize, writer: WarcWriter) -> Arc<Ctx> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let ctx = new_ctx(writer, hosts, tx);
    let mut seed_tx = Vec::new();
    for (i, h) in ctx.hosts.iter().enumerate() {
        let mut w = Website::new(&format!("{}://{h}/", &seed[..seed.find(':').unwrap_or(4)]));
        configure(&mut w, conc);
        w.with_return_page_links(true);
        let (stx, srx) = mpsc::unbounded_channel();
        seed_tx.push(stx);
        tokio::spawn(driver(i, ctx.clone(), w, srx));
    }
    let n = ctx.hosts.len();
    let (mut running, mut pending) = (vec![false; n], vec![Vec::<String>::new(); n]);
    let mut known: HashSet<String> = HashSet::new();
    known.insert(seed.to_string());
    let _ = seed_tx[0].send(vec![seed.to_string()]);
    running[0] = true;
    while let Some(m) = rx.recv().await {
        match m {
            Msg::Crawled(u) => {
                known.insert(u);
            }
            Msg::Found(i, u) => {
                if known.insert(u.clone()) {
                    if running[i] {
                        pending[i].push(u);
                    } else {
                        running[i] = true;
                        let _ = seed_tx[i].send(vec![u]);
                    }
                }
            }
            Msg::Idle(i) => {
                if pending[i].is_empty() {
                    running[i] = false;
                    if !running.contains(&true) {
                        break;
                    }
                } else {
                    let _ = seed_tx[i].send(std::mem::take(&mut pending[i]));
                }
            }
        }
    }
    ctx
}

/// Stock spider: one Website, other hosts via `with_external_domains`
/// (matched on the host without port).
async fn single(seed: &str, hosts: &[String], conc: usize, writer: WarcWriter) -> Arc<Ctx> {
    let mut w = Website::new(seed);
    configure(&mut w, conc);
    let ext = hosts
        .iter()
        .map(|h| h.rsplit_once(':').map_or(h.as_str(), |p| p.0).to_string());
    w.with_external_domains(Some(ext.collect::<Vec<_>>().into_iter()));
    let mut rx = w.subscribe(RING);
    let ctx = new_ctx(writer, Vec::new(), mpsc::unbounded_channel().0);
    let c = ctx.clone();
    let bridge = tokio::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(p) => c.on_page(0, &p),
                Err(RecvError::Lagged(n)) => {
                    c.lagged.fetch_add(n, Relaxed);
                }
                Err(RecvError::Closed) => break,
            }
        }
    });
    w.crawl().await;
    w.unsubscribe();
    bridge.await.expect("bridge");
    ctx
}

#[tokio::main]
async fn main() {
    let (mut pos, mut hosts, mut conc, mut single_mode) = (Vec::new(), Vec::new(), 64usize, false);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--hosts" => {
                hosts = it
                    .next()
                    .unwrap_or_else(|| usage())
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(|s| parse_host(s.trim()).unwrap_or_else(|| usage()))
                    .collect()
            }
            "--concurrency" => {
                conc = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--single-website" => single_mode = true,
            _ if a.starts_with("--") => usage(),
            _ => pos.push(a),
        }
    }
    if pos.len() != 2 {
        usage()
    }
    let seed_url = Url::parse(&pos[0]).unwrap_or_else(|_| usage());
    let seed_host = host_key(&seed_url).unwrap_or_else(|| usage());
    let mut uniq = HashSet::from([seed_host.clone()]);
    hosts.retain(|h| uniq.insert(h.clone()));
    hosts.insert(0, seed_host);

    let start = Instant::now();
    let cfg = WarcConfig {
        path: pos[1].clone(),
        ..Default::default()
    };
    let (writer, file_task) = WarcWriter::create(&cfg).expect("cannot create WARC file");
    let ctx = if single_mode {
        single(seed_url.as_str(), &hosts, conc.max(1), writer.clone()).await
    } else {
        per_host(seed_url.as_str(), hosts, conc.max(1), writer.clone()).await
    };
    writer.flush().await.expect("WARC flush");
    drop(writer);
    let (pages, lagged, failed) = (
        ctx.pages.load(Relaxed),
        ctx.lagged.load(Relaxed),
        ctx.failed.load(Relaxed),
    );
    if lagged > 0 {
        eprintln!("warning: {lagged} pages missed by the WARC subscriber (broadcast lag)");
    }
    if failed > 0 {
        eprintln!("{failed} fetches got no HTTP response (not archived, not counted)");
    }
    let secs = start.elapsed().as_secs_f64();
    println!("{{\"pages\": {pages}, \"seconds\": {secs:.3}}}");
    // Driver tasks still hold WarcWriter clones; everything is flushed above.
    drop(file_task);
    std::process::exit(0);
}
