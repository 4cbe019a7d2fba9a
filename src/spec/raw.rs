//! The spec as written: [`RawSpec`] mirrors the JSON exactly (unknown keys are an error, every
//! key has a documented default). It is what gets stored with a crawl and served back; the
//! crawler runs on the validated [`super::Spec`].

pub use crate::analysis::{RawScoring, RawTopic, RawWeights};
use serde::{Deserialize, Serialize};

use super::SpecError;

/// The crawl specification exactly as written (defaults filled in).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CrawlSpec")]
pub struct RawSpec {
    /// The crawl's id: names its folder under the data directory.
    pub name: String,
    /// Where the crawl starts; absolute http(s) URLs.
    pub seeds: Vec<String>,
    /// What may be crawled.
    #[serde(default)]
    pub scope: RawScope,
    /// How gently hosts are treated.
    #[serde(default)]
    pub politeness: RawPoliteness,
    /// Budgets and caps.
    #[serde(default)]
    pub limits: RawLimits,
    /// WARC output.
    #[serde(default)]
    pub warc: RawWarc,
    /// Network safety.
    #[serde(default)]
    pub network: RawNetwork,
    /// Frontier ordering.
    #[serde(default)]
    pub frontier: RawFrontier,
    /// What the crawl is about (topical focus).
    #[serde(default)]
    pub topic: RawTopic,
    /// How outlinks are scored against the topic.
    #[serde(default)]
    pub scoring: RawScoring,
    /// The application-aware helper.
    #[serde(default)]
    pub aah: RawAah,
    /// The capture index.
    #[serde(default)]
    pub index: RawIndex,
}

impl RawSpec {
    /// Parses spec JSON without validating it. The document must be one JSON value: text after
    /// it (`{...} trailing`, a second object) is an error rather than silently ignored, so a spec
    /// pasted twice or cut in the wrong place is never half-read.
    pub fn from_json(text: &str) -> Result<RawSpec, SpecError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let raw: RawSpec =
            serde_path_to_error::deserialize(&mut de).map_err(|e| SpecError::Json {
                path: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        de.end().map_err(|e| SpecError::Json {
            path: ".".into(),
            message: format!("text after the spec's JSON object ({e})"),
        })?;
        Ok(raw)
    }
}

/// `index`: the full-text capture index written as the crawl runs (`DIR/<name>/index/`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawIndex {
    /// Index every capture and web object while crawling. Off, the crawl only archives; the
    /// index can still be built later with `magpie index rebuild`.
    pub enabled: bool,
}

impl Default for RawIndex {
    fn default() -> Self {
        RawIndex { enabled: true }
    }
}

/// `scope`: which URLs belong to the crawl.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawScope {
    /// Regexes; a URL matching any is in scope. Empty: the seeds' registered domains.
    pub allow: Vec<String>,
    /// Regexes; a URL matching any is out of scope, whatever `allow` says.
    pub deny: Vec<String>,
    /// Maximum navigation (`L`) hops from a seed.
    pub max_depth: u32,
    /// Fetch page requisites of in-scope pages even when they are off scope (one hop).
    pub embeds: bool,
    /// Use `Sitemap:` lines of robots.txt and `/sitemap.xml` of seed hosts as URL sources.
    pub sitemaps: bool,
    /// Reject URLs whose path repeats one segment more than this many times (trap guard).
    pub max_path_repeats: u32,
    /// Redirects followed in a row (trap guard: an endless redirect chain).
    pub max_redirects: u32,
    /// Sitemap hops in a hop path: robots.txt → index → sitemap → page is 3 (trap guard: an
    /// endless chain of sitemap indexes).
    pub max_sitemap_depth: u32,
    /// Follow discovery links of page heads (`<link rel>` shortlink, EditURI/RSD, wlwmanifest,
    /// pingback, OpenSearch, REST API roots, oEmbed, alternate feeds). Off, they are skipped
    /// unless the knowledge base has a rule for them; page requisites are fetched either way.
    pub discovery_links: bool,
}

impl Default for RawScope {
    fn default() -> Self {
        RawScope {
            allow: vec![],
            deny: vec![],
            max_depth: 20,
            embeds: true,
            sitemaps: true,
            max_path_repeats: 3,
            max_redirects: 20,
            max_sitemap_depth: 4,
            discovery_links: false,
        }
    }
}

/// `politeness`: how hosts are treated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawPoliteness {
    /// Sent on every request and matched against robots.txt (product token before `/`).
    pub user_agent: String,
    /// Obey robots.txt (RFC 9309).
    pub respect_robots: bool,
    /// Lower bound of the pause between two fetches from one host.
    pub min_delay_ms: u64,
    /// The pause is this factor times the duration of the last fetch from the host.
    pub delay_factor: f64,
    /// Upper bound of the adaptive pause.
    pub max_delay_ms: u64,
    /// Concurrent fetches per host.
    pub max_parallel_per_host: u32,
    /// Concurrent fetches per IP address; defaults to `max_parallel_per_host`.
    pub max_parallel_per_ip: Option<u32>,
    /// Upper bound on a server's `Retry-After`.
    pub max_retry_after_ms: u64,
    /// How long a robots.txt stays valid.
    pub robots_ttl_s: u64,
}

impl Default for RawPoliteness {
    fn default() -> Self {
        RawPoliteness {
            // No contact is made up: an address on example.org tells a site's owner nothing.
            // The operator adds theirs (docs/crawl-spec.md).
            user_agent: concat!("magpie/", env!("CARGO_PKG_VERSION")).into(),
            respect_robots: true,
            min_delay_ms: 1000,
            delay_factor: 5.0,
            max_delay_ms: 30_000,
            max_parallel_per_host: 1,
            max_parallel_per_ip: None,
            max_retry_after_ms: 600_000,
            robots_ttl_s: 86_400,
        }
    }
}

/// `limits`: budgets and caps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawLimits {
    /// Stop after this many fetched pages (robots.txt not counted).
    pub max_pages: u64,
    /// Body bytes kept per response; the rest is cut (`WARC-Truncated: length`).
    pub max_bytes_per_page: u64,
    /// Whole-exchange timeout.
    pub timeout_ms: u64,
    /// Connect timeout.
    pub connect_timeout_ms: u64,
    /// Pages per host.
    pub max_pages_per_host: u64,
    /// Longer URLs are rejected.
    pub max_url_length: usize,
    /// Retries for network errors and 5xx.
    pub max_retries: u8,
    /// Base of the exponential backoff between retries.
    pub retry_delay_ms: u64,
    /// Fetches in flight over the whole crawl.
    pub max_concurrency: usize,
    /// Links kept per page.
    pub max_links_per_page: usize,
    /// Stop a run after this many seconds (`None`: no time limit). With a topic, it also
    /// decides how choosy best-N may be (`frontier::pace`).
    pub max_duration_s: Option<u64>,
}

impl Default for RawLimits {
    fn default() -> Self {
        RawLimits {
            max_pages: 10_000,
            max_bytes_per_page: 20 * 1024 * 1024,
            timeout_ms: 30_000,
            connect_timeout_ms: 10_000,
            max_pages_per_host: 100_000,
            max_url_length: 2048,
            max_retries: 2,
            retry_delay_ms: 5_000,
            max_concurrency: 64,
            max_links_per_page: 5_000,
            max_duration_s: None,
        }
    }
}

/// `warc`: the archive files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawWarc {
    /// File name prefix.
    pub prefix: String,
    /// Rotate files at about this size.
    pub max_file_bytes: u64,
    /// Write `revisit` records for payloads already archived in this crawl.
    pub dedup: bool,
    /// gzip level, 0-9. The default, 1, keeps compression to about a sixth of a page's
    /// processing time; higher levels save little on HTML (6 writes ~11% less than 1 on the
    /// sample web) for about 0.25 ms more CPU per page (see `docs/benchmarks.md`).
    pub gzip_level: u32,
}

impl Default for RawWarc {
    fn default() -> Self {
        RawWarc {
            prefix: "MAGPIE".into(),
            max_file_bytes: 1_000_000_000,
            dedup: true,
            gzip_level: 1,
        }
    }
}

/// `network`: safety of the network the crawler may reach.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawNetwork {
    /// Allow private, loopback and link-local addresses (off: such hosts are refused).
    pub allow_private: bool,
}

/// `frontier`: ordering of queued URLs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawFrontier {
    /// URLs taken from one host queue per turn (`bl` of ARCOMEM, Heritrix's balance per queue).
    pub balance_per_queue: u32,
    /// How a new score combines with a queued URL's earlier ones.
    pub update: crate::frontier::update::UpdateFn,
    /// Best-N-first: while fetches are in flight, only URLs among the N best queued are handed
    /// out. `null`: `limits.max_concurrency` when the crawl has a topic, off otherwise; `0`: off.
    pub best_n: Option<u64>,
}

impl Default for RawFrontier {
    fn default() -> Self {
        RawFrontier {
            balance_per_queue: 1,
            update: crate::frontier::update::UpdateFn::Avg,
            best_n: None,
        }
    }
}

/// `aah`: the application-aware helper (detects web applications, extracts web objects, judges
/// links; see `docs/kb.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RawAah {
    /// Run the helper on HTML pages.
    pub enabled: bool,
    /// The knowledge-base folder (one XML file per application); `None`: the knowledge base
    /// built into the program (the `kb/` folder of its source).
    pub kb: Option<String>,
}

impl Default for RawAah {
    fn default() -> Self {
        RawAah {
            enabled: true,
            kb: None,
        }
    }
}
