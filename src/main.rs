//! The `magpie` command line: parse arguments, validate configuration, run one command.
//! This is the binary's edge: errors become one line on stderr and a non-zero exit code.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use magpie::crawl::{self, progress::Progress, stats::Stats, Control, CrawlOptions};
use magpie::sample_site::{self, SampleWeb};
use magpie::spec::Spec;
use magpie::{export, index};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(
    name = "magpie",
    version,
    about = "An archival-quality, focused web crawler"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Crawl from a spec until the frontier is empty or a limit is hit; resumes if interrupted.
    Crawl {
        /// The crawl specification (JSON).
        spec: PathBuf,
        /// Data folder: the crawl lives in DATA/<name>/.
        #[arg(long, default_value = "magpie-data")]
        data: PathBuf,
        /// Move an existing crawl of the same name aside and start over.
        #[arg(long)]
        fresh: bool,
        /// No progress bar; print one JSON summary on stdout at the end.
        #[arg(long)]
        json: bool,
        /// How to show progress on stderr: a bar, one JSON object a second (NDJSON, for
        /// scripts), or nothing. Default: the bar, or nothing with --json.
        #[arg(long, value_enum)]
        progress: Option<ProgressMode>,
    },
    /// Crawl the built-in sample site on loopback (no internet needed) and watch it in the
    /// cockpit, whose URL is printed; with --no-cockpit (or --json), crawl in the terminal.
    Demo {
        /// Data folder.
        #[arg(long, default_value = "magpie-data")]
        data: PathBuf,
        /// Crawl in the terminal with a progress bar instead of serving the cockpit.
        #[arg(long)]
        no_cockpit: bool,
        /// Crawl in the terminal and print the JSON summary (implies --no-cockpit).
        #[arg(long)]
        json: bool,
        /// Address the cockpit listens on (loopback only; `localhost:PORT` is 127.0.0.1).
        #[arg(long, default_value = "127.0.0.1:8080", value_parser = magpie::web::cli::parse_bind)]
        bind: std::net::SocketAddr,
    },
    /// Write the sample web of the crawl benchmark (50 hosts x 400 pages) as static files for
    /// a web server: DIR/127.0.0.2/, DIR/127.0.0.3/, ..., linking to each other at PORT.
    SampleWeb {
        /// Folder to write into.
        #[arg(long)]
        out: PathBuf,
        /// The port every host is served on (links between hosts name it).
        #[arg(long, default_value_t = 8087)]
        port: u16,
        /// Number of hosts.
        #[arg(long, default_value_t = 50)]
        hosts: usize,
        /// Pages per host.
        #[arg(long, default_value_t = 400)]
        pages: usize,
    },
    /// Serve the HTTP API: many crawls in one data folder, steered over HTTP (docs/api.md).
    Serve(magpie::web::cli::ServeArgs),
    /// Send scored URLs (NDJSON on stdin) to a running `magpie serve`.
    Submit(magpie::web::cli::SubmitArgs),
    /// WARC file tools.
    Warc {
        #[command(subcommand)]
        command: WarcCommand,
    },
    /// Knowledge-base tools of the application-aware helper.
    Kb {
        #[command(subcommand)]
        command: KbCommand,
    },
    /// Search a crawl's capture index (tantivy query syntax; empty matches everything).
    Search(index::cli::SearchArgs),
    /// Capture index tools.
    Index {
        #[command(subcommand)]
        command: crawl::reindex::IndexCommand,
    },
    /// Write the selected captures as a new WARC file, with `<out>.cdxj` beside it, or as a
    /// WACZ package (`--format wacz`).
    Export(export::cli::ExportArgs),
    /// Print the sorted CDXJ index of WARC files (the format pywb reads).
    Cdxj(export::cli::CdxjArgs),
    /// Write a whole crawl (its sealed WARC files, CDXJ index and page list) as a WACZ 1.1.1
    /// package, the format of ReplayWeb.page and Browsertrix.
    Wacz(export::cli::WaczArgs),
    /// Runs one evaluation of the cockpit's XPath tester (JSON on stdin and stdout); the server
    /// starts it so that an evaluation past its budget can be killed.
    #[command(hide = true)]
    XpathTest,
}

#[derive(Subcommand)]
enum KbCommand {
    /// Validate a knowledge base; errors name file, line and reason.
    Check {
        /// The knowledge-base folder [default: ./kb if there is one, else the built-in one].
        dir: Option<PathBuf>,
    },
    /// Detect application and level, extract objects and judge links on a saved page.
    Detect {
        /// The saved HTML page.
        #[arg(required_unless_present = "pages")]
        file: Option<PathBuf>,
        /// The URL the page was fetched from.
        #[arg(long, required_unless_present = "pages")]
        url: Option<String>,
        /// Read the pages a list names instead (lines `URL FILE`, files relative to the list),
        /// in order with one helper, as a crawl reads them; JSON reports one per line.
        #[arg(long, conflicts_with_all = ["file", "url"])]
        pages: Option<PathBuf>,
        /// With --pages: read every page once first and report a second reading.
        #[arg(long, requires = "pages")]
        settled: bool,
        /// The knowledge-base folder [default: ./kb if there is one, else the built-in one].
        #[arg(long)]
        kb: Option<PathBuf>,
        /// Print the JSON contract instead of a report.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum WarcCommand {
    /// Validate WARC files; exits 1 listing the record offset of every defect.
    Check {
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("MAGPIE_LOG"))
        .with_writer(std::io::stderr)
        .init();
    // Before anything opens a file or a socket: a crawl or a server may need many.
    match magpie::process::raise_fd_limit() {
        Ok(did) => tracing::debug!("{did}"),
        Err(e) => tracing::warn!("{e}"),
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("magpie: error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(dispatch(cli.command)) {
        Ok(code) => code,
        // The reader of standard output went away: nothing is left to say to it, as `head`
        // expects of a command it cuts short.
        Err(e) if broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("magpie: error: {}", describe(&e));
            ExitCode::FAILURE
        }
    }
}

/// `println!` to standard output that returns the error instead of panicking: a reader that
/// went away (`magpie kb detect ... | head`) ends the command quietly, as `main` treats a broken
/// pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

async fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Crawl {
            spec,
            data,
            fresh,
            json,
            progress,
        } => {
            let text = std::fs::read_to_string(&spec)
                .with_context(|| format!("cannot read {}", spec.display()))?;
            let spec = Spec::from_json(&text)
                .with_context(|| format!("invalid spec {}", spec.display()))?;
            let progress = progress.unwrap_or(if json {
                ProgressMode::None
            } else {
                ProgressMode::Bar
            });
            run_crawl(spec, data, fresh, json, progress).await
        }
        Command::Demo {
            data,
            no_cockpit,
            json,
            bind,
        } => demo(data, json || no_cockpit, json, bind).await,
        Command::SampleWeb {
            out,
            port,
            hosts,
            pages,
        } => {
            let cfg = sample_site::SiteConfig {
                hosts,
                pages_per_host: pages,
                ..sample_site::bench_config()
            };
            let w = sample_site::write_files(&cfg, port, &out)
                .with_context(|| format!("cannot write the sample web to {}", out.display()))?;
            out!(
                "wrote {} pages ({} files, {} bytes) for {hosts} hosts at 127.0.0.2-{}:{port} into {}",
                w.pages,
                w.files,
                w.bytes,
                1 + hosts,
                out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(args) => {
            let env_token = std::env::var("MAGPIE_TOKEN").ok();
            magpie::web::cli::serve(args, env_token, crawl::machine_name(), shutdown_signal())
                .await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Submit(args) => {
            let ok =
                magpie::web::cli::submit_stdin(args, std::env::var("MAGPIE_TOKEN").ok()).await?;
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Warc {
            command: WarcCommand::Check { files },
        } => warc_check(&files),
        Command::Kb {
            command: KbCommand::Check { dir },
        } => {
            out!("{}", magpie::aah::cli::check(dir.as_deref())?.trim_end());
            Ok(ExitCode::SUCCESS)
        }
        Command::Kb {
            command:
                KbCommand::Detect {
                    file,
                    url,
                    pages,
                    settled,
                    kb,
                    json,
                },
        } => {
            let report = match (pages, file, url) {
                (Some(list), _, _) => {
                    magpie::aah::cli::detect_pages(kb.as_deref(), &list, settled, json)?
                }
                (None, Some(file), Some(url)) => {
                    magpie::aah::cli::detect(kb.as_deref(), &file, &url, json)?
                }
                _ => anyhow::bail!("kb detect needs FILE and --url, or --pages"),
            };
            out!("{}", report.trim_end());
            Ok(ExitCode::SUCCESS)
        }
        Command::Search(a) => Ok(index::cli::run_search(a, &mut std::io::stdout().lock())?),
        Command::Index { command } => Ok(crawl::reindex::run_index(
            command,
            &mut std::io::stdout().lock(),
        )?),
        Command::Export(a) => Ok(export::cli::run_export(a, &mut std::io::stdout().lock())?),
        Command::Cdxj(a) => Ok(export::cli::run_cdxj(a, &mut std::io::stdout().lock())?),
        Command::Wacz(a) => Ok(export::cli::run_wacz(a, &mut std::io::stdout().lock())?),
        Command::XpathTest => {
            magpie::aah::tester::run_request(std::io::stdin().lock(), std::io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// What `magpie crawl` shows while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ProgressMode {
    /// A status line, redrawn.
    Bar,
    /// One JSON object a second on stderr.
    Json,
    /// Nothing.
    None,
}

async fn run_crawl(
    spec: Spec,
    data: PathBuf,
    fresh: bool,
    json: bool,
    progress: ProgressMode,
) -> Result<ExitCode> {
    let stats = Arc::new(Stats::default());
    let (control, control_rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("magpie: stopping: finishing fetches in flight (Ctrl-C again to abort)");
            let _ = control.send(Control::Stop);
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        }
    });
    let progress = match progress {
        ProgressMode::Bar => Some(Progress::start(stats.clone())),
        ProgressMode::Json => Some(Progress::start_json(stats.clone())),
        ProgressMode::None => None,
    };
    let opts = CrawlOptions {
        data,
        fresh,
        hostname: crawl::machine_name(),
    };
    let crawl_dir = opts.data.join(spec.name());
    let max_pages = spec.limits.max_pages;
    let summary = crawl::run(spec, opts, stats.clone(), control_rx, false).await;
    drop(progress);
    let summary = summary?;
    magpie::manager::record_cli_run(&crawl_dir, &summary.stop_reason, &stats)
        .with_context(|| format!("cannot write {}/status.json", crawl_dir.display()))?;
    if let Some(n) = summary.errors_by_kind.get("private-address") {
        eprintln!(
            "magpie: warning: {n} URL(s) refused: their address is private and \
             network.allow_private is off"
        );
    }
    // The summary with the crawl's outcome (completed, limit reached, stopped, no seed
    // reachable), classified as the server classifies it.
    let outcome = magpie::manager::classify(
        magpie::manager::CrawlState::Finished,
        Some(&format!("{} (magpie crawl)", summary.stop_reason)),
        None,
        &summary,
        None,
        max_pages,
    );
    let mut out = serde_json::to_value(&summary)?;
    if let Some(o) = out.as_object_mut() {
        o.insert("outcome".into(), serde_json::to_value(&outcome)?);
    }
    if json {
        out!("{}", serde_json::to_string(&out)?);
    } else {
        out!("{}", serde_json::to_string_pretty(&out)?);
    }
    Ok(ExitCode::SUCCESS)
}

/// Resolves at the first Ctrl-C or SIGTERM; a second Ctrl-C then aborts at once.
async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(t) => drop(t.recv().await),
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminated => {}
    }
    eprintln!("magpie: stopping: crawls finish fetches in flight and seal their files (Ctrl-C again to abort)");
    tokio::spawn(async {
        if tokio::signal::ctrl_c().await.is_ok() {
            std::process::exit(130);
        }
    });
}

async fn demo(
    data: PathBuf,
    terminal: bool,
    json: bool,
    bind: std::net::SocketAddr,
) -> Result<ExitCode> {
    if !bind.ip().is_loopback() {
        bail!("the demo serves the cockpit on loopback only; {bind} is not a loopback address");
    }
    let web = SampleWeb::start(sample_site::demo_config())
        .await
        .context("cannot start the sample site on loopback")?;
    let seeds: Vec<String> = web.seeds();
    eprintln!(
        "magpie: sample site serving {} hosts: {}",
        seeds.len(),
        seeds.join(" ")
    );
    let spec = serde_json::json!({
        "name": "demo",
        "seeds": seeds,
        "politeness": { "min_delay_ms": 50, "max_delay_ms": 500, "delay_factor": 2.0 },
        "limits": { "max_pages": 1000 },
        "network": { "allow_private": true },
        "topic": { "keywords": ["renewable energy", "solar panel", "wind turbine", "battery", "grid"] }
    });
    if terminal {
        let spec = Spec::from_json(&spec.to_string())?;
        let mode = if json {
            ProgressMode::None
        } else {
            ProgressMode::Bar
        };
        let code = run_crawl(spec, data.clone(), true, json, mode).await?;
        web.shutdown().await;
        eprintln!(
            "magpie: WARC files are in {}",
            data.join("demo/warc").display()
        );
        return Ok(code);
    }
    let code = demo_cockpit(spec, &data, bind).await;
    web.shutdown().await;
    code
}

/// The demo with the cockpit: a new crawl of the sample site (named after the time, since the
/// sample site's ports change from run to run), started, and served until Ctrl-C.
async fn demo_cockpit(
    mut spec: serde_json::Value,
    data: &std::path::Path,
    bind: std::net::SocketAddr,
) -> Result<ExitCode> {
    use magpie::web::{cli::resolve_token, AppState, WebConfig};
    let listener = std::net::TcpListener::bind(bind).with_context(|| {
        format!("cannot listen on {bind} (another magpie running? try --bind 127.0.0.1:8081)")
    })?;
    let addr = listener.local_addr()?;
    let (token, _) = resolve_token(data, None)?;
    let manager = magpie::manager::Manager::open(data.to_path_buf(), crawl::machine_name())
        .await
        .with_context(|| format!("cannot open the data folder {}", data.display()))?;
    let name = format!("demo-{}", chrono::Utc::now().format("%Y%m%d-%H%M%S"));
    spec["name"] = serde_json::Value::String(name);
    let id = manager.create(Spec::from_json(&spec.to_string())?).await?;
    manager.start(&id)?;
    let state = AppState::new(manager, WebConfig::new(token.clone(), false));
    eprintln!(
        "magpie: crawling the sample site as crawl {id}; Ctrl-C stops and seals the WARC files"
    );
    eprintln!("magpie: open the cockpit in a browser (this address logs you in):");
    out!(
        "{}",
        magpie::web::cli::login_url(addr, &format!("/crawls/{id}"), &token)
    );
    magpie::web::serve(listener, state, shutdown_signal()).await?;
    eprintln!(
        "magpie: WARC files are in {}",
        data.join(&id).join("warc").display()
    );
    Ok(ExitCode::SUCCESS)
}

fn warc_check(files: &[PathBuf]) -> Result<ExitCode> {
    let mut bad = 0usize;
    for f in files {
        let defects = magpie::archive::check_file(f)
            .with_context(|| format!("cannot check {}", f.display()))?;
        for d in &defects {
            out!("{}: offset {}: {}", f.display(), d.offset, d.message);
        }
        if defects.is_empty() {
            out!("{}: ok", f.display());
        }
        bad += defects.len();
    }
    if bad > 0 {
        bail!("{bad} defect(s) found");
    }
    Ok(ExitCode::SUCCESS)
}

/// The error and its causes joined with `: `, each said once. Many of the library's errors put
/// their cause in their own message (`data folder X: Not a directory (os error 20)`), which API
/// clients and logs need, and also return it as their `source`; printing the whole chain would
/// then repeat it (`...: Not a directory (os error 20): Not a directory (os error 20)`). A cause
/// whose text is already in what was printed is left out.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn describe(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("data folder d: {source}")]
    struct Data {
        source: std::io::Error,
    }

    #[test]
    fn causes_are_said_once() {
        let os = || std::io::Error::from_raw_os_error(17);
        let e = anyhow::Error::new(Data { source: os() });
        assert_eq!(describe(&e), format!("data folder d: {}", os()));
        let e = e.context("cannot run the crawl");
        assert_eq!(
            describe(&e),
            format!("cannot run the crawl: data folder d: {}", os())
        );
        let plain = anyhow::Error::new(os()).context("reading x");
        assert_eq!(describe(&plain), format!("reading x: {}", os()));
    }
}
