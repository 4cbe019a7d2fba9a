//! The `magpie serve` and `magpie submit` commands: their arguments, the API token's life
//! (given, stored, or generated and stored with mode 0600), and the batching intake client.
//! The binary reads the environment and signals and passes them in.

use super::{auth, serve as serve_http, AppState, WebConfig};
use crate::intake::{IntakeReport, Rejected};
use crate::manager::{Manager, ManagerError};
use std::future::Future;
use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Name of the token file in the data folder.
pub use crate::crawl::layout::TOKEN_FILE;

/// Why `serve` or `submit` could not run.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Listening beyond loopback needs a token the operator chose.
    #[error("refusing to listen on {0} without an explicit token: pass --token or set MAGPIE_TOKEN (only loopback addresses may use a generated one)")]
    TokenRequired(SocketAddr),
    /// `--public-reads` was asked for on an address other machines can reach.
    #[error(
        "refusing --public-reads on {0}: only a loopback address may open reads without the token"
    )]
    PublicReadsBeyondLoopback(SocketAddr),
    /// The token is unusable.
    #[error("invalid token{}: {message}", .source_name.as_deref().map(|s| format!(" in {s}")).unwrap_or_default())]
    BadToken {
        /// Where it came from (a file), if not the command line.
        source_name: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The report could not be written to standard output (a reader that went away).
    #[error("cannot write to standard output: {0}")]
    Output(#[source] std::io::Error),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// What the OS said.
        source: std::io::Error,
    },
    /// An `--allowed-host` value is not a host name.
    #[error(transparent)]
    AllowedHost(#[from] super::host::BadAllowedHost),
    /// The data folder could not be opened.
    #[error(transparent)]
    Manager(#[from] ManagerError),
    /// The server failed.
    #[error(transparent)]
    Web(#[from] super::error::WebError),
    /// Standard input could not be read.
    #[error("reading standard input: {0}")]
    Stdin(std::io::Error),
    /// The server could not be reached.
    #[error("{url}: {message}")]
    Http {
        /// The request URL.
        url: String,
        /// What failed.
        message: String,
    },
}

/// Arguments of `magpie serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Data folder: one sub-folder per crawl, and the API token file.
    #[arg(long, default_value = "magpie-data")]
    pub data: PathBuf,
    /// Address to listen on (`localhost:PORT` is 127.0.0.1); anything but loopback requires
    /// --token or MAGPIE_TOKEN.
    #[arg(long, default_value = "127.0.0.1:8080", value_parser = parse_bind)]
    pub bind: SocketAddr,
    /// API token (else MAGPIE_TOKEN, else the one stored in DATA/api-token, else a new one).
    #[arg(long)]
    pub token: Option<String>,
    /// Largest request body accepted, in bytes (intake batches).
    #[arg(long, default_value_t = super::DEFAULT_MAX_BODY_BYTES)]
    pub max_body_bytes: usize,
    /// Seconds crawls get to finish fetches in flight and seal their files at shutdown.
    #[arg(long, default_value_t = 30)]
    pub grace_secs: u64,
    /// Another host name (NAME or NAME:PORT) browsers may reach the server by; repeatable.
    /// The bound address, localhost, 127.0.0.1 and [::1] are always allowed; requests naming
    /// any other host get 421 (against DNS rebinding).
    #[arg(long = "allowed-host", value_name = "NAME")]
    pub allowed_hosts: Vec<String>,
    /// Let read-only API requests (GET, HEAD under /api/ and /metrics) through without the
    /// token, for local monitoring tools. Only on loopback; cockpit pages always need a login.
    #[arg(long)]
    pub public_reads: bool,
}

/// Reads a `--bind` value: `ADDR:PORT` (`[::1]:PORT` for IPv6) or `localhost:PORT`, which is
/// 127.0.0.1 (no name is looked up: what the server listens on must not depend on DNS).
pub fn parse_bind(s: &str) -> Result<SocketAddr, String> {
    if let Ok(a) = s.parse() {
        return Ok(a);
    }
    match s.rsplit_once(':') {
        Some((host, port)) if host.eq_ignore_ascii_case("localhost") => port
            .parse::<u16>()
            .map(|p| SocketAddr::from(([127, 0, 0, 1], p)))
            .map_err(|e| format!("bad port {port:?}: {e}")),
        _ => Err(format!(
            "expected ADDR:PORT such as 127.0.0.1:8080, [::1]:8080 or localhost:8080, not {s:?}"
        )),
    }
}

/// Where the token in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenOrigin {
    /// `--token` or `MAGPIE_TOKEN`.
    Explicit,
    /// Read from `DATA/api-token`.
    Stored,
    /// Made now and written to `DATA/api-token`.
    Generated,
}

/// The token to use: the explicit one, else the stored one, else a new one written to
/// `DATA/api-token` with mode 0600 (explicit tokens are not written anywhere).
pub fn resolve_token(
    data: &Path,
    explicit: Option<String>,
) -> Result<(String, TokenOrigin), CliError> {
    if let Some(t) = explicit {
        auth::validate_token(&t).map_err(|message| CliError::BadToken {
            source_name: None,
            message,
        })?;
        return Ok((t, TokenOrigin::Explicit));
    }
    let path = data.join(TOKEN_FILE);
    let file_err = |source| CliError::File {
        path: path.display().to_string(),
        source,
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let t = text.trim().to_string();
            auth::validate_token(&t).map_err(|message| CliError::BadToken {
                source_name: Some(path.display().to_string()),
                message,
            })?;
            restrict(&path).map_err(file_err)?;
            Ok((t, TokenOrigin::Stored))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(data).map_err(|source| CliError::File {
                path: data.display().to_string(),
                source,
            })?;
            let t = auth::generate_token();
            write_private(&path, &t).map_err(file_err)?;
            Ok((t, TokenOrigin::Generated))
        }
        Err(e) => Err(file_err(e)),
    }
}

fn write_private(path: &Path, token: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(format!("{token}\n").as_bytes())?;
    f.sync_all()
}

/// Makes sure only the owner can read the token file.
fn restrict(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)?.permissions().mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

/// `magpie serve`: resolves the token, binds, opens every crawl of the data folder in its last
/// state, and serves until `shutdown` resolves. `env_token` is `MAGPIE_TOKEN`; `hostname`
/// names this machine in WARC files.
pub async fn serve(
    args: ServeArgs,
    env_token: Option<String>,
    hostname: String,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), CliError> {
    let explicit = args.token.clone().or(env_token).filter(|t| !t.is_empty());
    let loopback = args.bind.ip().is_loopback();
    if !loopback && explicit.is_none() {
        return Err(CliError::TokenRequired(args.bind));
    }
    if !loopback && args.public_reads {
        return Err(CliError::PublicReadsBeyondLoopback(args.bind));
    }
    if let Some(t) = &explicit {
        auth::validate_token(t).map_err(|message| CliError::BadToken {
            source_name: None,
            message,
        })?;
    }
    super::host::AllowedHosts::new(args.bind, &args.allowed_hosts)?;
    // Bind before a token is generated, so a new token is never stored without being shown.
    let listener = std::net::TcpListener::bind(args.bind).map_err(|source| CliError::Bind {
        addr: args.bind,
        source,
    })?;
    let addr = listener.local_addr().map_err(|source| CliError::Bind {
        addr: args.bind,
        source,
    })?;
    let (token, origin) = resolve_token(&args.data, explicit)?;
    let manager = Manager::open(args.data.clone(), hostname).await?;
    let mut config = WebConfig::new(token.clone(), args.public_reads);
    config.max_body_bytes = args.max_body_bytes;
    config.grace = Duration::from_secs(args.grace_secs);
    config.allowed_hosts = args.allowed_hosts.clone();
    let crawls = manager.list().len();
    let state = AppState::new(manager, config);
    // The token is printed only when it was just made, so a terminal or a log of later starts
    // never holds it; the operator then logs in with the token file's content.
    let token_file = args.data.join(TOKEN_FILE);
    let (note, address) = match origin {
        TokenOrigin::Generated => (
            format!(
                "generated an API token, stored in {} (readable by you only; shown only now): {token}",
                token_file.display()
            ),
            login_url(addr, "/", &token),
        ),
        TokenOrigin::Stored => (
            format!("API token: in the file {}", token_file.display()),
            format!("http://{addr}/login"),
        ),
        TokenOrigin::Explicit => (
            "API token: as given with --token or MAGPIE_TOKEN".into(),
            format!("http://{addr}/login"),
        ),
    };
    eprintln!("magpie: {note}");
    let reads = if args.public_reads {
        "open"
    } else {
        "need the token"
    };
    eprintln!(
        "magpie: {crawls} crawl(s) in {}; listening on http://{addr}/api/v1 (reads {reads})",
        args.data.display()
    );
    if matches!(origin, TokenOrigin::Generated) {
        eprintln!("magpie: open the cockpit in a browser (this address logs you in):");
    } else {
        eprintln!("magpie: open the cockpit in a browser and log in with the token:");
    }
    // The address is a courtesy: a closed standard output (`magpie serve | head -0`) must not
    // stop the server, so a failed write is reported and serving goes on.
    if let Err(e) = writeln!(std::io::stdout(), "{address}") {
        tracing::warn!("cannot print the cockpit's address: {e}");
    }
    serve_http(listener, state, shutdown).await?;
    eprintln!("magpie: stopped; crawls keep their state for the next start");
    Ok(())
}

/// The address that opens `path` in the cockpit and logs the browser in: the token travels
/// once, as `?token=`, and the server redirects to the address without it.
pub fn login_url(addr: SocketAddr, path: &str, token: &str) -> String {
    let token: String = url::form_urlencoded::byte_serialize(token.as_bytes()).collect();
    format!("http://{addr}{path}?token={token}")
}

/// Arguments of `magpie submit`.
#[derive(Debug, Clone, clap::Args)]
pub struct SubmitArgs {
    /// Base URL of a `magpie serve` (plain http).
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub server: String,
    /// API token (else MAGPIE_TOKEN).
    #[arg(long)]
    pub token: Option<String>,
    /// Lines per request.
    #[arg(long, default_value_t = 1000)]
    pub batch: usize,
}

/// Largest batch in bytes, whatever `--batch` says (well under the server's default limit).
pub const MAX_BATCH_BYTES: usize = 8 * 1024 * 1024;

/// What `submit` did: the merged report (indexes count non-blank input lines from 0) and one
/// message per request that failed.
#[derive(Debug, Default)]
pub struct SubmitOutcome {
    /// Counts and rejections over all requests that succeeded.
    pub report: IntakeReport,
    /// Requests the server refused.
    pub failures: Vec<String>,
}

struct Batch {
    body: String,
    /// 1-based input line number of each item.
    lines: Vec<usize>,
    /// Index of the first item among all items.
    first_item: usize,
}

/// Streams NDJSON from `input` to `POST /api/v1/urls` in batches of `args.batch` lines and
/// merges the reports. A request the server refuses is reported and the next batch is sent;
/// an unreachable server ends the run with an error.
pub async fn submit(
    args: &SubmitArgs,
    token: Option<&str>,
    mut input: impl BufRead,
) -> Result<SubmitOutcome, CliError> {
    let url = format!("{}/api/v1/urls", args.server.trim_end_matches('/'));
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(600))
        .build()
        .map_err(|e| CliError::Http {
            url: url.clone(),
            message: e.to_string(),
        })?;
    let per_batch = args.batch.max(1);
    let mut outcome = SubmitOutcome::default();
    let (mut line_no, mut items) = (0usize, 0usize);
    let mut line = String::new();
    loop {
        let mut batch = Batch {
            body: String::new(),
            lines: Vec::new(),
            first_item: items,
        };
        let mut eof = false;
        while batch.lines.len() < per_batch && batch.body.len() < MAX_BATCH_BYTES {
            line.clear();
            if input.read_line(&mut line).map_err(CliError::Stdin)? == 0 {
                eof = true;
                break;
            }
            line_no += 1;
            if line.trim().is_empty() {
                continue;
            }
            batch.body.push_str(line.trim_end_matches(['\r', '\n']));
            batch.body.push('\n');
            batch.lines.push(line_no);
            items += 1;
        }
        if !batch.lines.is_empty() {
            send(&client, &url, token, batch, &mut outcome).await?;
        }
        if eof {
            break;
        }
    }
    outcome.report.rejected.sort_by_key(|r| r.index);
    Ok(outcome)
}

async fn send(
    client: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    batch: Batch,
    outcome: &mut SubmitOutcome,
) -> Result<(), CliError> {
    let (first, last) = (batch.lines[0], batch.lines[batch.lines.len() - 1]);
    let mut req = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/x-ndjson")
        .body(batch.body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let http_err = |e: reqwest::Error| CliError::Http {
        url: url.to_string(),
        message: e.to_string(),
    };
    let resp = req.send().await.map_err(http_err)?;
    let status = resp.status();
    let text = resp.text().await.map_err(http_err)?;
    if !status.is_success() {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let mut msg = v["error"].as_str().unwrap_or(text.trim()).to_string();
        // The server numbers lines within the request; name the input line instead.
        if let Some(l) = v["line"]
            .as_u64()
            .and_then(|l| batch.lines.get((l as usize).saturating_sub(1)))
        {
            msg = format!("input line {l}: {msg}");
        }
        outcome.failures.push(format!(
            "lines {first}-{last}: HTTP {}: {msg}",
            status.as_u16()
        ));
        return Ok(());
    }
    let report: IntakeReport = serde_json::from_str(&text).map_err(|e| CliError::Http {
        url: url.to_string(),
        message: format!("unexpected answer: {e}"),
    })?;
    outcome.report.received += report.received;
    let shifted = report.rejected.iter().map(|r| Rejected {
        index: batch.first_item + r.index,
        reason: r.reason.clone(),
    });
    outcome.report.merge(IntakeReport {
        rejected: shifted.collect(),
        ..report
    });
    Ok(())
}

/// `magpie submit`: reads standard input, prints the merged report as JSON on stdout and each
/// failed request on stderr; `Ok(false)` when any request failed.
pub async fn submit_stdin(args: SubmitArgs, env_token: Option<String>) -> Result<bool, CliError> {
    let token = args.token.clone().or(env_token).filter(|t| !t.is_empty());
    let stdin = std::io::stdin();
    let outcome = submit(&args, token.as_deref(), stdin.lock()).await?;
    for f in &outcome.failures {
        eprintln!("magpie: request failed: {f}");
    }
    serde_json::to_string_pretty(&outcome.report)
        .map_err(std::io::Error::from)
        .and_then(|json| writeln!(std::io::stdout(), "{json}"))
        .map_err(CliError::Output)?;
    Ok(outcome.failures.is_empty())
}
