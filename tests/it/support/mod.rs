//! The loopback test web for end-to-end crawler tests: a route-table HTTP server per host,
//! with exact control of the bytes on the wire, that records every request it receives.
//!
//! Each host listens on its own loopback address (127.0.0.1, 127.0.0.2, ...; all on 127.0.0.1
//! with distinct ports where only that address exists). The servers run on their own tokio
//! runtime in a background thread, so sync and async tests use them alike; dropping the
//! [`FixtureWeb`] stops them. Every connection carries one request and is then closed.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

pub mod client;
pub mod harness;
mod oddities;
pub mod pywb;
mod reply;
mod scenarios;

// Re-exported so tests write `support::basic_site(..)`; not every binary uses them.
#[allow(unused_imports)]
pub use oddities::*;
pub use reply::Reply;
#[allow(unused_imports)]
pub use scenarios::*;

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};

/// One request as the fixture received it.
#[derive(Debug, Clone)]
pub struct Hit {
    /// Index of the host that received it.
    pub host: usize,
    /// Request method, e.g. `GET`.
    pub method: String,
    /// Request target: path plus query, exactly as sent.
    pub target: String,
    /// The raw request head, up to and including the blank line.
    pub head: Vec<u8>,
    /// When the head was complete (monotonic, for measuring politeness delays).
    pub at: Instant,
    /// When the head was complete (wall clock, for comparing with recorded dates).
    pub time: SystemTime,
}

impl Hit {
    /// The value of the first header called `name` (case-insensitive), trimmed.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = String::from_utf8_lossy(&self.head);
        head.split("\r\n").skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }
}

/// Builds the reply for a request target matched by a prefix route.
pub type Handler = Arc<dyn Fn(&str) -> Reply + Send + Sync>;

struct Route {
    reply: Arc<Reply>,
    served: usize,
}

#[derive(Default)]
struct Shared {
    routes: Mutex<HashMap<(usize, String), Route>>,
    prefixes: Mutex<Vec<(usize, String, Handler)>>,
    hits: Mutex<Vec<Hit>>,
}

/// Locks `m`, ignoring poisoning: a panicking test thread must not hide the data.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// The reply for `target` on `host` and how many earlier requests the route answered.
    fn lookup(&self, host: usize, target: &str) -> (Arc<Reply>, usize) {
        if let Some(route) = lock(&self.routes).get_mut(&(host, target.to_string())) {
            route.served += 1;
            return (route.reply.clone(), route.served - 1);
        }
        let handler = lock(&self.prefixes)
            .iter()
            .filter(|(h, prefix, _)| *h == host && target.starts_with(prefix.as_str()))
            .max_by_key(|(_, prefix, _)| prefix.len())
            .map(|(_, _, f)| f.clone());
        let reply = match handler {
            Some(f) => f(target),
            None => Reply::not_found(),
        };
        (Arc::new(reply), 0)
    }
}

/// A running set of fixture hosts; see the module documentation.
pub struct FixtureWeb {
    addrs: Vec<SocketAddr>,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FixtureWeb {
    /// Binds `n_hosts` listeners (port 0) and starts serving. Panics if binding fails.
    pub fn start(n_hosts: usize) -> FixtureWeb {
        let listeners = bind_hosts(n_hosts);
        let addrs: Vec<SocketAddr> = listeners
            .iter()
            .map(|l| l.local_addr().expect("fixture local_addr"))
            .collect();
        let shared = Arc::new(Shared::default());
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let state = shared.clone();
        let thread = std::thread::Builder::new()
            .name("fixture-web".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("fixture runtime");
                rt.block_on(async move {
                    for (host, listener) in listeners.into_iter().enumerate() {
                        let listener = TcpListener::from_std(listener).expect("fixture listener");
                        tokio::spawn(accept_loop(listener, host, state.clone()));
                    }
                    // Either a stop message or the sender being dropped ends the web.
                    let _ = stop_rx.await;
                });
                // Dropping the runtime cancels every connection task and closes its socket.
            })
            .expect("fixture thread");
        FixtureWeb {
            addrs,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Number of hosts.
    pub fn hosts(&self) -> usize {
        self.addrs.len()
    }

    /// The socket address of `host`.
    pub fn addr(&self, host: usize) -> SocketAddr {
        self.addrs[host]
    }

    /// `http://ADDR:PORT` of `host`, without a trailing slash.
    pub fn base(&self, host: usize) -> String {
        format!("http://{}", self.addrs[host])
    }

    /// The absolute URL of `path` (which starts with `/`) on `host`.
    pub fn url(&self, host: usize, path: &str) -> String {
        format!("{}{path}", self.base(host))
    }

    /// Serves `reply` for requests whose target is exactly `path` (path plus query) on
    /// `host`, replacing any earlier route (and restarting its [`Reply::Sequence`] count).
    pub fn route(&self, host: usize, path: &str, reply: Reply) {
        let route = Route {
            reply: Arc::new(reply),
            served: 0,
        };
        lock(&self.shared.routes).insert((host, path.to_string()), route);
    }

    /// Serves `f(target)` for targets starting with `prefix` on `host` that have no exact
    /// route; the longest matching prefix wins. For infinite or very large URL spaces.
    pub fn route_prefix(
        &self,
        host: usize,
        prefix: &str,
        f: impl Fn(&str) -> Reply + Send + Sync + 'static,
    ) {
        lock(&self.shared.prefixes).push((host, prefix.to_string(), Arc::new(f)));
    }

    /// Every request received so far, in arrival order.
    pub fn hits(&self) -> Vec<Hit> {
        lock(&self.shared.hits).clone()
    }

    /// The requests received by `host`, in arrival order.
    pub fn hits_for(&self, host: usize) -> Vec<Hit> {
        lock(&self.shared.hits)
            .iter()
            .filter(|h| h.host == host)
            .cloned()
            .collect()
    }

    /// The requests for exactly `target` on `host`.
    pub fn hits_to(&self, host: usize, target: &str) -> Vec<Hit> {
        lock(&self.shared.hits)
            .iter()
            .filter(|h| h.host == host && h.target == target)
            .cloned()
            .collect()
    }
}

impl Drop for FixtureWeb {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            // A panic in the server thread has already been reported on stderr.
            let _ = thread.join();
        }
    }
}

/// Binds host `i` on 127.0.0.(1+i), or every host on 127.0.0.1 if 127.0.0.2 is unavailable.
fn bind_hosts(n: usize) -> Vec<std::net::TcpListener> {
    let spread = n > 1 && std::net::TcpListener::bind((Ipv4Addr::new(127, 0, 0, 2), 0)).is_ok();
    (0..n)
        .map(|i| {
            let ip = if spread {
                Ipv4Addr::from(u32::from(Ipv4Addr::LOCALHOST) + i as u32)
            } else {
                Ipv4Addr::LOCALHOST
            };
            let l = std::net::TcpListener::bind((ip, 0))
                .unwrap_or_else(|e| panic!("bind fixture host {i} on {ip}: {e}"));
            l.set_nonblocking(true).expect("nonblocking listener");
            l
        })
        .collect()
}

async fn accept_loop(listener: TcpListener, host: usize, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(handle(stream, host, shared.clone()));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// Reads one request head, records it, and answers with the routed reply.
async fn handle(mut stream: TcpStream, host: usize, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let Some(head) = read_head(&mut stream).await else {
        return;
    };
    let (at, time) = (Instant::now(), SystemTime::now());
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    let (method, target, http11) = match req.parse(&head) {
        Ok(httparse::Status::Complete(_)) => (
            req.method.unwrap_or("").to_string(),
            req.path.unwrap_or("").to_string(),
            req.version == Some(1),
        ),
        _ => {
            let bad = Reply::Status {
                status: 400,
                headers: vec![],
                body: b"bad request\n".to_vec(),
            };
            let _ = reply::serve(&mut stream, &bad, false, false).await;
            return;
        }
    };
    let head_only = method == "HEAD";
    lock(&shared.hits).push(Hit {
        host,
        method,
        target: target.clone(),
        head,
        at,
        time,
    });
    let (reply, n) = shared.lookup(host, &target);
    // The client going away mid-reply is part of what tests provoke.
    let _ = reply::serve(&mut stream, reply.pick(n), head_only, http11).await;
}

/// Reads up to and including the blank line ending the request head; `None` if the client
/// closes first or the head exceeds 64 KiB. Bytes after the head (a body) are discarded.
async fn read_head(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            head.truncate(end + 4);
            return Some(head);
        }
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 || head.len() > 64 * 1024 {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
}
