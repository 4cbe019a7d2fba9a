//! The built-in sample web: a deterministic multi-host site served on loopback, so the demo
//! and the crawl benchmark have something realistic to crawl without touching the internet.
//!
//! Each host listens on its own loopback address (127.0.0.2, 127.0.0.3, ...) and serves
//! topical HTML pages linking to each other and to other hosts, `/robots.txt`, `/sitemap.xml`,
//! `/style.css` and small PNG images. Everything is derived from [`SiteConfig::seed`], so a
//! crawl of the same configuration sees the same bytes (up to the bound port numbers, which
//! appear in cross-host links).

mod content;
mod files;
mod server;
#[cfg(test)]
mod tests;
mod words;

pub use content::tiny_png;
pub use files::{write_files, Written};
pub use words::SplitMix;

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Shape of a sample web: how many hosts and pages, how big the pages are, and the seed that
/// makes their content reproducible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteConfig {
    /// Number of hosts (each bound to its own loopback address).
    pub hosts: usize,
    /// Pages per host; page 0 is `/`.
    pub pages_per_host: usize,
    /// Smallest HTML page body, in bytes.
    pub min_page_bytes: usize,
    /// Largest HTML page body, in bytes; at least 4096 so a page's fixed parts fit.
    pub max_page_bytes: usize,
    /// Seed for all generated content.
    pub seed: u64,
    /// `Crawl-delay` (seconds) announced in every robots.txt; `None` omits the line.
    pub robots_delay: Option<u32>,
}

/// A small site for `magpie demo`: quick to crawl, still several hosts and topics.
pub fn demo_config() -> SiteConfig {
    SiteConfig {
        hosts: 3,
        pages_per_host: 40,
        min_page_bytes: 4 * 1024,
        max_page_bytes: 12 * 1024,
        seed: 2024,
        robots_delay: None,
    }
}

/// The crawl benchmark's site: 50 hosts x 400 pages of 15-30 KB (20,000 pages, about 450 MB of HTML).
pub fn bench_config() -> SiteConfig {
    SiteConfig {
        hosts: 50,
        pages_per_host: 400,
        min_page_bytes: 15 * 1024,
        max_page_bytes: 30 * 1024,
        seed: 7,
        robots_delay: None,
    }
}

/// A running sample web. Dropping it also stops the servers; [`SampleWeb::shutdown`] does so
/// and waits until they have stopped.
pub struct SampleWeb {
    addrs: Vec<SocketAddr>,
    served: Arc<AtomicU64>,
    stop: watch::Sender<bool>,
    loops: Vec<JoinHandle<()>>,
}

impl SampleWeb {
    /// Binds one listener per host on 127.0.0.2, 127.0.0.3, ... (port 0), falling back to
    /// 127.0.0.1 with distinct ports when 127.0.0.2 cannot be bound, and serves on the current
    /// tokio runtime until shutdown. Fails with `InvalidInput` for an unusable configuration.
    pub async fn start(cfg: SiteConfig) -> io::Result<SampleWeb> {
        validate(&cfg)?;
        let listeners = bind_hosts(cfg.hosts).await?;
        let addrs = listeners
            .iter()
            .map(TcpListener::local_addr)
            .collect::<io::Result<Vec<_>>>()?;
        let site = Arc::new(content::Site::new(&cfg, &addrs));
        let served = Arc::new(AtomicU64::new(0));
        let (stop, stop_rx) = watch::channel(false);
        let loops = listeners
            .into_iter()
            .enumerate()
            .map(|(host, listener)| {
                let task = server::accept_loop(
                    listener,
                    host,
                    site.clone(),
                    served.clone(),
                    stop_rx.clone(),
                );
                tokio::spawn(task)
            })
            .collect();
        Ok(SampleWeb {
            addrs,
            served,
            stop,
            loops,
        })
    }

    /// One seed URL per host: `http://127.0.0.2:PORT/`, ...
    pub fn seeds(&self) -> Vec<String> {
        self.addrs.iter().map(|a| format!("http://{a}/")).collect()
    }

    /// The bound address of each host, in host order.
    pub fn hosts(&self) -> Vec<SocketAddr> {
        self.addrs.clone()
    }

    /// Responses written so far, across all hosts (including 404s and errors).
    pub fn requests_served(&self) -> u64 {
        self.served.load(Ordering::Relaxed)
    }

    /// Stops accepting, closes open connections and waits for the servers to finish.
    pub async fn shutdown(self) {
        // A send error means every receiver is already gone, i.e. the servers have stopped.
        let _ = self.stop.send(true);
        for task in self.loops {
            // A panicked or cancelled server task has stopped too.
            let _ = task.await;
        }
    }
}

/// Rejects configurations the generator cannot honour, naming the offending field.
fn validate(cfg: &SiteConfig) -> io::Result<()> {
    let problem = if cfg.hosts == 0 {
        Some("hosts must be at least 1".to_string())
    } else if cfg.pages_per_host == 0 {
        Some("pages_per_host must be at least 1".to_string())
    } else if cfg.min_page_bytes > cfg.max_page_bytes {
        Some(format!(
            "min_page_bytes ({}) exceeds max_page_bytes ({})",
            cfg.min_page_bytes, cfg.max_page_bytes
        ))
    } else if cfg.max_page_bytes < content::MIN_MAX_PAGE_BYTES {
        Some(format!(
            "max_page_bytes ({}) is below {}",
            cfg.max_page_bytes,
            content::MIN_MAX_PAGE_BYTES
        ))
    } else {
        None
    };
    match problem {
        Some(p) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("sample site config: {p}"),
        )),
        None => Ok(()),
    }
}

/// Binds `n` listeners: on consecutive loopback addresses from 127.0.0.2 when possible,
/// otherwise all on 127.0.0.1.
async fn bind_hosts(n: usize) -> io::Result<Vec<TcpListener>> {
    let mut listeners = Vec::with_capacity(n);
    match TcpListener::bind((host_ip(0)?, 0)).await {
        Ok(first) => {
            listeners.push(first);
            for i in 1..n {
                listeners.push(TcpListener::bind((host_ip(i)?, 0)).await?);
            }
        }
        Err(_) => {
            for _ in 0..n {
                listeners.push(TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?);
            }
        }
    }
    Ok(listeners)
}

/// Host `i`'s loopback address: 127.0.0.2 + i, below 127.255.255.255.
fn host_ip(i: usize) -> io::Result<Ipv4Addr> {
    let first = u32::from(Ipv4Addr::new(127, 0, 0, 2));
    u32::try_from(i)
        .ok()
        .and_then(|i| first.checked_add(i))
        .filter(|&ip| ip < u32::from(Ipv4Addr::new(127, 255, 255, 255)))
        .map(Ipv4Addr::from)
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "sample site config: too many hosts",
            )
        })
}
