//! The HTTP server of `magpie serve`: a versioned JSON API under `/api/v1` over the crawl
//! manager, server-sent events, Prometheus metrics, and (later) the cockpit pages.
//!
//! Layout: `routes.rs` lists every route; `auth.rs` checks the bearer token; `csrf.rs` keeps the
//! cockpit's sessions and protects its forms; `limits.rs` bounds connections and bodies in time;
//! `error.rs` is the only place mapping errors to HTTP statuses; `api/` has one module per
//! resource; `pages/` one module per cockpit page (templates in `templates/`, assets in
//! `static/`); `host.rs` decides which `Host` and `Origin` values are this server (against DNS
//! rebinding); `indexes.rs` keeps the crawls' capture indexes open for reading; `replay.rs`
//! decides what of an archived response reaches the browser; `metrics.rs` renders `/metrics`;
//! `cli.rs` is the `serve` and `submit` commands. The API is documented in
//! `docs/api.md` and described by the OpenAPI document (`api::openapi`); the cockpit in `docs/cockpit.md`.
//!
//! actix-web runs its request handlers on worker threads with their own single-threaded
//! runtimes. Crawl engines must not live there (a worker's runtime dies with the server), so
//! whatever may start an engine runs on the runtime [`AppState::new`] was called on.

pub(crate) mod api;
pub mod auth;
pub mod cli;
pub(crate) mod csrf;
pub mod error;
pub(crate) mod host;
pub(crate) mod indexes;
mod limits;
pub mod metrics;
pub(crate) mod pages;
pub(crate) mod replay;
pub(crate) mod reports;
pub(crate) mod rewrite;
pub mod routes;

use crate::manager::Manager;
use actix_web::{middleware, web, App, HttpServer};
use error::WebError;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Default largest request body (intake batches): 64 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// Largest crawl spec accepted by `POST /api/v1/crawls`.
pub const MAX_SPEC_BYTES: usize = 1024 * 1024;
/// Seconds in-flight requests get to finish when the server stops.
const HTTP_SHUTDOWN_S: u64 = 5;

/// How the server behaves; built by the command line (or a test), never from the environment.
#[derive(Clone)]
pub struct WebConfig {
    /// The bearer token state-changing requests must present.
    pub token: String,
    /// Read-only requests need no token (set when listening on loopback only).
    pub public_reads: bool,
    /// Largest intake body in bytes; larger ones get 413 without being read to the end.
    pub max_body_bytes: usize,
    /// How long crawls get to seal their files when the server shuts down.
    pub grace: Duration,
    /// How long `POST .../stop` waits for the crawl to seal its files before answering 202.
    pub stop_wait: Duration,
    /// Period of the statistics events on `/events`.
    pub stats_interval: Duration,
    /// HTTP worker threads.
    pub workers: usize,
    /// The knowledge-base folder the cockpit's knowledge-base page shows (the built-in
    /// knowledge base when the folder does not exist).
    pub kb_dir: std::path::PathBuf,
    /// How long the cockpit's XPath tester waits for an evaluation before answering 503.
    pub xpath_budget: Duration,
    /// The `magpie` executable the XPath tester runs evaluations in (`magpie xpath-test`): this
    /// process's own by default.
    pub xpath_runner: std::path::PathBuf,
    /// Host names (`name` or `name:port`) the server answers to besides its bound address and
    /// the loopback names (`magpie serve --allowed-host`); see `host.rs`.
    pub allowed_hosts: Vec<String>,
    /// A cockpit session ends after this long unused.
    pub session_idle: Duration,
    /// A cockpit session ends this long after its login, used or not.
    pub session_max: Duration,
}

impl std::fmt::Debug for WebConfig {
    // Written out so the token never reaches a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebConfig")
            .field("token", &"<redacted>")
            .field("public_reads", &self.public_reads)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("grace", &self.grace)
            .field("stop_wait", &self.stop_wait)
            .field("stats_interval", &self.stats_interval)
            .field("workers", &self.workers)
            .field("kb_dir", &self.kb_dir)
            .field("xpath_budget", &self.xpath_budget)
            .field("xpath_runner", &self.xpath_runner)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("session_idle", &self.session_idle)
            .field("session_max", &self.session_max)
            .finish()
    }
}

impl WebConfig {
    /// The defaults: 64 MiB bodies, 30 s grace, 10 s stop wait, stats every second, 2 workers,
    /// the knowledge base in `kb/`, 2 s for an XPath test, sessions that end after an hour
    /// unused or 12 hours in all.
    pub fn new(token: String, public_reads: bool) -> WebConfig {
        WebConfig {
            token,
            public_reads,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            grace: Duration::from_secs(30),
            stop_wait: Duration::from_secs(10),
            stats_interval: Duration::from_secs(1),
            workers: 2,
            kb_dir: std::path::PathBuf::from("kb"),
            xpath_budget: Duration::from_secs(2),
            xpath_runner: std::env::current_exe().unwrap_or_else(|_| "magpie".into()),
            allowed_hosts: Vec::new(),
            session_idle: Duration::from_secs(60 * 60),
            session_max: Duration::from_secs(12 * 60 * 60),
        }
    }
}

/// What every handler shares: the manager, the configuration, the runtime crawls run on,
/// the open capture indexes, and the closing flag that ends event streams when the server stops.
pub struct AppState {
    pub(crate) manager: Arc<Manager>,
    pub(crate) config: WebConfig,
    /// The cockpit's sessions; [`serve`] names their cookies after the listener's port.
    pub(crate) sessions: csrf::Sessions,
    /// Slots of the XPath tester: evaluations running at once, over their budget or not.
    pub(crate) xpath_slots: Arc<tokio::sync::Semaphore>,
    /// The names this server answers to; [`serve`] sets them from the listener's address.
    pub(crate) hosts: host::AllowedHosts,
    pub(crate) indexes: indexes::Indexes,
    /// Exports being written (`crawl/name`), so two requests never write the same file.
    pub(crate) exporting: std::sync::Mutex<std::collections::HashSet<String>>,
    /// The running totals of each crawl's log, for the reports.
    pub(crate) reports: reports::ReportCache,
    runtime: tokio::runtime::Handle,
    closing: watch::Sender<bool>,
}

impl AppState {
    /// The state for [`serve`]. Call it inside the runtime crawl engines should run on.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    pub fn new(manager: Arc<Manager>, config: WebConfig) -> AppState {
        AppState {
            indexes: indexes::Indexes::new(manager.data()),
            exporting: Default::default(),
            reports: Default::default(),
            sessions: csrf::Sessions::new(0, config.session_idle, config.session_max),
            manager,
            config,
            xpath_slots: Arc::new(tokio::sync::Semaphore::new(pages::kb::MAX_RUNNING_TESTS)),
            hosts: host::AllowedHosts::new(std::net::SocketAddr::from(([127, 0, 0, 1], 0)), &[])
                .expect("no extra names"),
            runtime: tokio::runtime::Handle::current(),
            closing: watch::channel(false).0,
        }
    }

    /// Runs `f` on the crawl runtime (for manager calls that may start an engine) and waits.
    pub(crate) async fn on_crawl_runtime<T: Send + 'static>(
        &self,
        f: impl Future<Output = T> + Send + 'static,
    ) -> Result<T, WebError> {
        self.runtime
            .spawn(f)
            .await
            .map_err(|e| WebError::Internal(format!("background task: {e}")))
    }

    /// A receiver that turns `true` when the server starts shutting down.
    pub(crate) fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }
}

/// Serves the API on an already bound listener until `shutdown` resolves; then stops taking
/// requests, ends event streams, and stops every crawl with [`Manager::shutdown`] so they
/// seal their files but keep their state for the next start.
pub async fn serve(
    listener: std::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), WebError> {
    let mut state = state;
    let bound = listener.local_addr()?;
    state.hosts = host::AllowedHosts::new(bound, &state.config.allowed_hosts)
        .map_err(|e| WebError::Internal(e.to_string()))?;
    state.sessions = csrf::Sessions::new(
        bound.port(),
        state.config.session_idle,
        state.config.session_max,
    );
    error::hide_paths(state.manager.data());
    let data = web::Data::new(state);
    let workers = data.config.workers.max(1);
    let app_data = data.clone();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(app_data.clone())
            .app_data(
                web::QueryConfig::default()
                    .error_handler(|e, _| WebError::BadRequest(e.to_string()).into()),
            )
            .app_data(
                web::PathConfig::default()
                    .error_handler(|e, _| WebError::BadRequest(e.to_string()).into()),
            )
            .wrap(middleware::from_fn(limits::bound_body))
            .wrap(middleware::from_fn(auth::require_token))
            // Outermost: a request naming another host gets nothing, not even a 401.
            .wrap(middleware::from_fn(host::require_known_host))
            .configure(routes::configure)
            .default_service(web::to(routes::fallback))
    })
    .workers(workers)
    .client_request_timeout(limits::HEAD_TIMEOUT)
    .keep_alive(limits::KEEP_ALIVE)
    .max_connections(limits::MAX_CONNECTIONS_PER_WORKER)
    .disable_signals()
    .shutdown_timeout(HTTP_SHUTDOWN_S)
    .listen(listener)?
    .run();
    let handle = server.handle();
    let mut running = tokio::spawn(server);
    let early = tokio::select! {
        r = &mut running => Some(r),
        _ = shutdown => None,
    };
    data.closing.send_replace(true);
    let result = match early {
        Some(r) => r,
        None => {
            handle.stop(true).await;
            running.await
        }
    };
    data.manager.shutdown(data.config.grace).await;
    result
        .map_err(|e| WebError::Internal(format!("server task: {e}")))?
        .map_err(WebError::Io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_debug_output_hides_the_token() {
        let c = WebConfig::new("very-secret-token-value".into(), true);
        let shown = format!("{c:?}");
        assert!(!shown.contains("very-secret"), "{shown}");
        assert!(shown.contains("public_reads: true"));
    }
}
