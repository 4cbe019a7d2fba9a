//! Every stage's configuration, derived from the validated spec in one place when a crawl
//! opens (as ripgrep derives `HiArgs` from `LowArgs`): the fetcher's, the WARC writer's, and
//! the text limits the parse stage and the index share. The stages get these typed values,
//! not the spec's sections, and the crawl derives them once: the index stores its limits with
//! itself, so `magpie index rebuild` reads pages as the crawl did (it derives them from the
//! crawl's `spec.json` only for an index made before limits were stored).

use std::time::Duration;

use super::layout::Layout;
use super::reindex::TextLimits;
use super::CrawlOptions;
use crate::archive::WriterConfig;
use crate::fetch::FetchConfig;
use crate::spec::Spec;

/// The stages' configurations of one crawl.
pub(super) struct Stages {
    /// The crawl's folders.
    pub layout: Layout,
    /// The fetcher's.
    pub fetch: FetchConfig,
    /// The WARC writer's.
    pub writer: WriterConfig,
    /// What the index reads of a page (text always), stored with the index.
    pub index_text: TextLimits,
    /// What the parse stage reads: the index's limits, the text collected only when the
    /// analysis or the index reads it.
    pub pipeline_text: TextLimits,
}

impl Stages {
    /// Derives every stage's configuration from `spec`.
    pub(super) fn derive(spec: &Spec, opts: &CrawlOptions) -> Stages {
        let layout = Layout::new(&opts.data, spec.name());
        let index_text = TextLimits::from_spec(spec);
        let mut pipeline_text = index_text.clone();
        pipeline_text.parse.text = spec.analysis.is_some() || spec.index;
        Stages {
            fetch: fetch_config(spec, &layout),
            writer: writer_config(spec, &layout, opts),
            index_text,
            pipeline_text,
            layout,
        }
    }
}

fn writer_config(spec: &Spec, layout: &Layout, opts: &CrawlOptions) -> WriterConfig {
    let p = &spec.politeness;
    let info_fields = vec![
        (
            "software".to_string(),
            concat!("magpie/", env!("CARGO_PKG_VERSION")).to_string(),
        ),
        ("format".into(), "WARC File Format 1.1".into()),
        (
            "conformsTo".into(),
            "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/".into(),
        ),
        ("isPartOf".into(), spec.name().to_string()),
        ("hostname".into(), opts.hostname.clone()),
        ("http-header-user-agent".into(), p.user_agent.clone()),
        (
            "robots".into(),
            if p.respect_robots { "obey" } else { "ignore" }.into(),
        ),
    ];
    WriterConfig {
        dir: layout.warc(),
        prefix: spec.warc.prefix.clone(),
        max_file_bytes: spec.warc.max_file_bytes,
        gzip_level: spec.warc.gzip_level,
        hostname: opts.hostname.clone(),
        info_fields,
    }
}

/// How long a connection waits for the next request to its host: under the 5 s that Apache and
/// lighttpd keep an idle connection by default, so the server rarely closes one first, and over
/// the default one-second politeness delay, so a polite crawl still reuses its connections.
const KEEP_ALIVE: Duration = Duration::from_secs(4);
/// Bytes of a response body held in memory before the rest is spooled to a file: most pages
/// fit, and a few hundred fetches in flight stay within a few hundred MB.
const SPOOL_MEM_BYTES: usize = 2 << 20;
/// How long a host's resolved addresses are used before it is resolved again.
const DNS_TTL: Duration = Duration::from_secs(300);

fn fetch_config(spec: &Spec, layout: &Layout) -> FetchConfig {
    let l = &spec.limits;
    FetchConfig {
        user_agent: spec.politeness.user_agent.clone(),
        connect_timeout: l.connect_timeout,
        first_byte_timeout: l.timeout,
        total_timeout: l.timeout,
        max_body_bytes: l.max_bytes_per_page,
        allow_private: spec.allow_private,
        spool_dir: layout.spool(),
        spool_mem_bytes: SPOOL_MEM_BYTES,
        dns_ttl: DNS_TTL,
        keep_alive: KEEP_ALIVE,
    }
}
