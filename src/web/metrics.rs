//! `GET /metrics`: every crawl's counters in the Prometheus text format (version 0.0.4), one
//! `crawl` label per crawl: pages, bytes, responses, errors by kind, queue sizes, the fetch
//! latency histogram, and intake items by source (at most
//! [`MAX_INTAKE_SOURCES`](crate::crawl::stats::MAX_INTAKE_SOURCES) names, then `other`); and
//! `magpie_build_info`, which names the running build.

use crate::crawl::stats::{Stats, LATENCY_BUCKETS_MS};
use crate::manager::{CrawlState, CrawlView};
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use std::fmt::Write;
use std::sync::atomic::Ordering::Relaxed;

/// The Prometheus text exposition media type.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Serves the metrics of every crawl.
pub async fn get(state: web::Data<AppState>) -> HttpResponse {
    let crawls: Vec<(CrawlView, std::sync::Arc<Stats>)> = state
        .manager
        .list()
        .into_iter()
        .filter_map(|v| state.manager.stats(&v.id).ok().map(|s| (v, s)))
        .collect();
    HttpResponse::Ok()
        .content_type(CONTENT_TYPE)
        .body(render(&crawls))
}

/// The version of this build.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git commit this build was made from, when the builder said so with
/// `MAGPIE_GIT_COMMIT=$(git rev-parse HEAD) cargo build` (no build script runs git, so builds
/// from a source archive work); `unknown` otherwise.
pub const COMMIT: &str = match option_env!("MAGPIE_GIT_COMMIT") {
    Some(c) => c,
    None => "unknown",
};

/// Escapes a label value: backslash, double quote and newline.
pub fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Writes the `# HELP` and `# TYPE` lines of one metric family.
fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// Writes one sample; `labels` are (name, value) pairs after the `crawl` label.
fn sample(
    out: &mut String,
    name: &str,
    crawl: &str,
    labels: &[(&str, &str)],
    value: impl std::fmt::Display,
) {
    let _ = write!(out, "{name}{{crawl=\"{}\"", escape(crawl));
    for (k, v) in labels {
        let _ = write!(out, ",{k}=\"{}\"", escape(v));
    }
    let _ = writeln!(out, "}} {value}");
}

const STATES: [(CrawlState, &str); 5] = [
    (CrawlState::Created, "created"),
    (CrawlState::Running, "running"),
    (CrawlState::Paused, "paused"),
    (CrawlState::Finished, "finished"),
    (CrawlState::Failed, "failed"),
];

/// Renders the metrics of `crawls` (their views and live counters).
pub fn render(crawls: &[(CrawlView, std::sync::Arc<Stats>)]) -> String {
    let mut out = String::with_capacity(1024 + crawls.len() * 2048);
    family(
        &mut out,
        "magpie_build_info",
        "gauge",
        "Always 1; the labels name the running build (version, git commit or unknown).",
    );
    let _ = writeln!(
        out,
        "magpie_build_info{{version=\"{}\",commit=\"{}\"}} 1",
        escape(VERSION),
        escape(COMMIT)
    );
    family(
        &mut out,
        "magpie_crawl_state",
        "gauge",
        "1 for the state the crawl is in, 0 for the others.",
    );
    for (v, _) in crawls {
        for (st, name) in STATES {
            sample(
                &mut out,
                "magpie_crawl_state",
                &v.id,
                &[("state", name)],
                u8::from(v.state == st),
            );
        }
    }
    type Get = fn(&CrawlView, &Stats) -> u64;
    let simple: [(&str, &str, &str, Get); 13] = [
        (
            "magpie_pages_fetched_total",
            "counter",
            "Pages fetched and archived (robots.txt not counted), all runs.",
            |v, _| v.stats.pages_fetched,
        ),
        (
            "magpie_robots_fetches_total",
            "counter",
            "robots.txt fetches, all runs.",
            |v, _| v.stats.robots_fetches,
        ),
        (
            "magpie_received_bytes_total",
            "counter",
            "Response bytes received as on the wire, all runs.",
            |v, _| v.stats.bytes_received,
        ),
        (
            "magpie_warc_bytes_total",
            "counter",
            "Compressed bytes written to WARC files, all runs.",
            |v, _| v.stats.warc_bytes,
        ),
        (
            "magpie_revisits_total",
            "counter",
            "Revisit records written instead of duplicate payloads.",
            |v, _| v.stats.revisits,
        ),
        (
            "magpie_urls_discovered_total",
            "counter",
            "Distinct URLs ever queued.",
            |v, _| v.stats.urls_discovered,
        ),
        (
            "magpie_robots_blocked_total",
            "counter",
            "URLs refused by robots.txt.",
            |v, _| v.stats.robots_blocked,
        ),
        (
            "magpie_retries_total",
            "counter",
            "Fetch attempts put back for a retry.",
            |v, _| v.stats.retries,
        ),
        (
            "magpie_pages_analysed_total",
            "counter",
            "Pages whose relevance to the topic was computed, all runs.",
            |v, _| v.stats.pages_analysed,
        ),
        (
            "magpie_pages_relevant_total",
            "gauge",
            "Analysed pages at least as relevant as the relevance threshold, calibrated per topic unless scoring.calibrate is false, so it can go down when the threshold moves (harvest ratio: relevant / analysed).",
            |v, _| v.stats.pages_relevant,
        ),
        (
            "magpie_urls_queued",
            "gauge",
            "URLs waiting in the frontier.",
            |v, _| v.stats.urls_queued,
        ),
        (
            "magpie_hosts",
            "gauge",
            "Hosts known to the frontier.",
            |v, _| v.stats.hosts,
        ),
        (
            "magpie_fetches_in_flight",
            "gauge",
            "Fetches in flight.",
            |_, s| s.inflight.load(Relaxed),
        ),
    ];
    for (name, kind, help, get) in simple {
        family(&mut out, name, kind, help);
        for (v, s) in crawls {
            sample(&mut out, name, &v.id, &[], get(v, s));
        }
    }
    family(
        &mut out,
        "magpie_responses_total",
        "counter",
        "Responses by status class.",
    );
    for (v, _) in crawls {
        for (class, n) in &v.stats.responses_by_status {
            sample(
                &mut out,
                "magpie_responses_total",
                &v.id,
                &[("class", class)],
                n,
            );
        }
    }
    family(
        &mut out,
        "magpie_errors_total",
        "counter",
        "Fetch and processing errors by kind.",
    );
    for (v, _) in crawls {
        for (kind, n) in &v.stats.errors_by_kind {
            sample(&mut out, "magpie_errors_total", &v.id, &[("kind", kind)], n);
        }
    }
    family(
        &mut out,
        "magpie_urls_out_of_scope_total",
        "counter",
        "Links refused by scope, by reason.",
    );
    for (v, _) in crawls {
        for (reason, n) in &v.stats.out_of_scope_by_reason {
            sample(
                &mut out,
                "magpie_urls_out_of_scope_total",
                &v.id,
                &[("reason", reason)],
                n,
            );
        }
    }
    family(
        &mut out,
        "magpie_intake_items_total",
        "counter",
        "Scored-URL intake items by source, since the server started.",
    );
    for (v, s) in crawls {
        let by_source = s.intake.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for (source, n) in &by_source {
            sample(
                &mut out,
                "magpie_intake_items_total",
                &v.id,
                &[("source", source)],
                n,
            );
        }
    }
    let h = "magpie_fetch_duration_seconds";
    family(
        &mut out,
        h,
        "histogram",
        "Duration of fetches (robots.txt included), since the server started.",
    );
    for (v, s) in crawls {
        let mut cumulative = 0u64;
        for (i, bound) in LATENCY_BUCKETS_MS.iter().enumerate() {
            cumulative += s.latency[i].load(Relaxed);
            let le = format!("{}", *bound as f64 / 1000.0);
            sample(
                &mut out,
                &format!("{h}_bucket"),
                &v.id,
                &[("le", &le)],
                cumulative,
            );
        }
        cumulative += s.latency[LATENCY_BUCKETS_MS.len()].load(Relaxed);
        sample(
            &mut out,
            &format!("{h}_bucket"),
            &v.id,
            &[("le", "+Inf")],
            cumulative,
        );
        let sum = s.latency_sum_ms.load(Relaxed) as f64 / 1000.0;
        sample(&mut out, &format!("{h}_sum"), &v.id, &[], sum);
        sample(&mut out, &format!("{h}_count"), &v.id, &[], cumulative);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn crawl(id: &str) -> (CrawlView, Arc<Stats>) {
        let stats = Arc::new(Stats::default());
        stats.fetch_took(5);
        stats.fetch_took(70);
        stats.fetch_took(20_000);
        stats.error("dns");
        stats.intake("scorer:a");
        stats.pages.store(7, Relaxed);
        let summary = stats.summary(id, "", vec![]);
        let view = CrawlView {
            id: id.into(),
            state: CrawlState::Running,
            error: None,
            outcome: crate::manager::classify(CrawlState::Running, None, None, &summary, None, 1),
            stats: summary,
            focus: stats.focus(),
            workflow: id.into(),
            created: None,
        };
        (view, stats)
    }

    #[test]
    fn renders_families_samples_and_a_cumulative_histogram() {
        let text = render(&[crawl("a"), crawl("b")]);
        assert!(text.contains("# TYPE magpie_pages_fetched_total counter\n"));
        assert!(text.contains("magpie_pages_fetched_total{crawl=\"a\"} 7\n"));
        assert!(text.contains("magpie_pages_fetched_total{crawl=\"b\"} 7\n"));
        assert!(text.contains("magpie_crawl_state{crawl=\"a\",state=\"running\"} 1\n"));
        assert!(text.contains("magpie_crawl_state{crawl=\"a\",state=\"paused\"} 0\n"));
        assert!(text.contains("magpie_errors_total{crawl=\"a\",kind=\"dns\"} 1\n"));
        assert!(text.contains("magpie_fetch_duration_seconds_bucket{crawl=\"a\",le=\"0.01\"} 1\n"));
        assert!(text.contains("magpie_fetch_duration_seconds_bucket{crawl=\"a\",le=\"0.1\"} 2\n"));
        assert!(text.contains("magpie_fetch_duration_seconds_bucket{crawl=\"a\",le=\"10\"} 2\n"));
        assert!(text.contains("magpie_fetch_duration_seconds_bucket{crawl=\"a\",le=\"+Inf\"} 3\n"));
        assert!(text.contains("magpie_fetch_duration_seconds_sum{crawl=\"a\"} 20.075\n"));
        assert!(text.contains("magpie_fetch_duration_seconds_count{crawl=\"a\"} 3\n"));
        assert!(text.contains("magpie_intake_items_total{crawl=\"a\",source=\"scorer:a\"} 1\n"));
        assert_eq!(escape("a \"b\"\\\n"), "a \\\"b\\\"\\\\\\n");
        assert_eq!(
            text.matches("# TYPE magpie_fetch_duration_seconds histogram")
                .count(),
            1
        );
    }

    #[test]
    fn no_crawls_still_declares_the_families() {
        let text = render(&[]);
        assert!(text.contains("# TYPE magpie_urls_queued gauge"));
        let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(samples.len(), 1, "only the build: {samples:?}");
        assert!(samples[0].starts_with("magpie_build_info{"));
    }

    #[test]
    fn build_info_names_the_version_and_commit() {
        let text = render(&[crawl("a")]);
        assert!(text.contains("# TYPE magpie_build_info gauge\n"));
        let line = format!(
            "magpie_build_info{{version=\"{}\",commit=\"{}\"}} 1\n",
            env!("CARGO_PKG_VERSION"),
            option_env!("MAGPIE_GIT_COMMIT").unwrap_or("unknown")
        );
        assert!(text.contains(&line), "{text}");
    }

    #[test]
    fn intake_sources_fold_into_other_past_the_limit() {
        use crate::crawl::stats::{MAX_INTAKE_SOURCES, OTHER_SOURCE};
        let (view, stats) = crawl("a");
        // `crawl` counted one source already.
        for i in 0..MAX_INTAKE_SOURCES + 10 {
            stats.intake(&format!("scorer-{i}"));
        }
        stats.intake("scorer-0");
        // A name that is not a short token (the intake refuses those) is never a label.
        stats.intake("scorer \"a\"\n");
        stats.intake(&"s".repeat(60 << 20));
        let text = render(&[(view, stats)]);
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("magpie_intake_items_total{"))
            .collect();
        assert_eq!(lines.len(), MAX_INTAKE_SOURCES + 1, "64 names and other");
        assert!(text.contains("magpie_intake_items_total{crawl=\"a\",source=\"scorer-0\"} 2\n"));
        // 1 + 63 named scorers fill the 64; the 11 after them (scorer-63 .. scorer-73) and the
        // two names that are not tokens fold.
        let other =
            format!("magpie_intake_items_total{{crawl=\"a\",source=\"{OTHER_SOURCE}\"}} 13\n");
        assert!(text.contains(&other), "{lines:?}");
        assert!(!text.contains("source=\"scorer-70\""));
        assert!(lines.iter().all(|l| l.len() < 200), "{lines:?}");
        assert!(text.len() < 64 << 10, "{} bytes", text.len());
    }
}
