//! The per-exchange processor chain: parse → scope → archive records, run on a worker thread.
//!
//! This is the one place that wires the stages for a fetched exchange, in the order of the
//! data flow. Each stage is called with the previous one's typed output; no stage calls
//! another. The result, a [`Processed`], goes back to the engine, which alone touches the
//! frontier and the WARC writer.

use super::records::{self, EncodedRecords};
use crate::archive::ArchiveError;
use crate::fetch::{self, robots::Robots, Fetched};
use crate::model::{CrawlUri, Hop, Link, ParsedPage};
use crate::parse::{self, ParseLimits};
use crate::scope::{Reject, Scope};
use crate::uri;
use std::collections::HashSet;
use url::Url;

/// What a worker needs to process exchanges; shared by all workers.
pub struct PipelineCtx {
    /// The crawl's scope.
    pub scope: Scope,
    /// Parser caps.
    pub parse_limits: ParseLimits,
    /// Cap on decoded (decompressed) bodies handed to parsers.
    pub max_decoded_bytes: usize,
    /// gzip level of WARC records.
    pub gzip_level: u32,
    /// User agent, for robots.txt matching.
    pub user_agent: String,
}

/// A link accepted by scope. Most links of a page are known to the frontier already, so
/// what only a newly queued URL needs (host key, origin, the [`CrawlUri`]) is built by
/// [`Outlink::into_uri`] once the frontier's seen-test has said it is new.
#[derive(Debug, Clone)]
pub struct Outlink {
    /// Fingerprint of the canonical URL.
    pub fp: u64,
    /// The URL, parsed.
    pub url: Url,
    /// The URL as the parser gave it; this is what is queued.
    pub raw: String,
    /// Hop path from the seed, ending with this link's hop.
    pub hops: String,
}

impl Outlink {
    /// Host key, origin (`scheme://host[:port]`) and the [`CrawlUri`] to queue; `via` is the
    /// URL of the page the link was found on.
    pub fn into_uri(self, via: &str) -> (String, String, CrawlUri) {
        let depth = self.hops.chars().filter(|&c| c == Hop::Link.code()).count();
        let host = uri::host_key(&self.url);
        let origin = self.url.origin().ascii_serialization();
        let uri = CrawlUri {
            url: self.raw,
            hops: self.hops,
            via: Some(via.to_string()),
            priority: 1.0 / (1.0 + depth as f32),
            source: "crawl".into(),
            discovered: 1,
            retries: 0,
            scores: 0,
            score_sum: 0.0,
        };
        (host, origin, uri)
    }
}

/// The outcome of processing one exchange.
pub struct Processed {
    /// The exchange and its encoded WARC records.
    pub records: EncodedRecords,
    /// Links accepted by scope, deduplicated within the page.
    pub outlinks: Vec<Outlink>,
    /// Links refused by scope.
    pub rejected: Vec<Reject>,
    /// Rules, when the exchange was a robots.txt.
    pub robots: Option<Robots>,
    /// Problems met while reading the body (`decode-capped`, `unsupported-encoding`), for stats.
    pub notes: Vec<&'static str>,
}

/// Processes a fetched page: extracts and scopes its links and encodes its WARC records.
pub fn process_page(
    ctx: &PipelineCtx,
    uri: &CrawlUri,
    fetched: &Fetched,
    warcinfo_id: &str,
) -> Result<Processed, ArchiveError> {
    let mut notes = Vec::new();
    let (links, nofollow) = extract(ctx, uri, fetched, &mut notes);
    let records = records::encode(fetched, uri, &links, warcinfo_id, ctx.gzip_level)?;
    let (outlinks, rejected) = scope_links(ctx, uri, links, nofollow, &fetched.info.url);
    Ok(Processed {
        records,
        outlinks,
        rejected,
        robots: None,
        notes,
    })
}

/// Processes a fetched robots.txt: parses the rules and encodes the WARC records.
pub fn process_robots(
    ctx: &PipelineCtx,
    fetched: &Fetched,
    warcinfo_id: &str,
) -> Result<Processed, ArchiveError> {
    let mut notes = Vec::new();
    let body = decoded_body(ctx, fetched, &mut notes);
    let robots = Robots::from_response(fetched.info.status, &body, &ctx.user_agent);
    let uri = CrawlUri {
        hops: Hop::Prerequisite.code().to_string(),
        source: "crawl".into(),
        ..CrawlUri::seed(fetched.info.url.clone())
    };
    let records = records::encode(fetched, &uri, &[], warcinfo_id, ctx.gzip_level)?;
    Ok(Processed {
        records,
        outlinks: vec![],
        rejected: vec![],
        robots: Some(robots),
        notes,
    })
}

fn decoded_body(ctx: &PipelineCtx, fetched: &Fetched, notes: &mut Vec<&'static str>) -> Vec<u8> {
    match fetch::entity_body(fetched, ctx.max_decoded_bytes) {
        Ok(d) => {
            if d.capped {
                notes.push("decode-capped");
            }
            d.bytes
        }
        Err(_) => {
            notes.push("unsupported-encoding");
            Vec::new()
        }
    }
}

/// Links of the exchange: the redirect target, and what the parsers find in the body.
fn extract(
    ctx: &PipelineCtx,
    uri: &CrawlUri,
    fetched: &Fetched,
    notes: &mut Vec<&'static str>,
) -> (Vec<Link>, bool) {
    let info = &fetched.info;
    let Ok(base) = Url::parse(&info.url) else {
        return (vec![], false);
    };
    let mut links = Vec::new();
    if (300..400).contains(&info.status) {
        if let Some(loc) = info.header("location") {
            if let Ok(target) = uri::resolve(loc, &base, ctx.parse_limits.max_url_len) {
                links.push(Link {
                    url: target.to_string(),
                    hop: Hop::Redirect,
                    context: "http/location".into(),
                    text: String::new(),
                    block: None,
                });
            }
        }
        return (links, false);
    }
    if !(200..300).contains(&info.status) {
        return (links, false);
    }
    let mime = info.mime();
    let is_sitemap = uri.last_hop() == Some(Hop::Sitemap);
    let kind = classify(&mime, is_sitemap);
    if kind == BodyKind::Other {
        return (links, false);
    }
    let body = decoded_body(ctx, fetched, notes);
    match kind {
        BodyKind::Html => {
            let page: ParsedPage = parse::html(
                &body,
                info.header("content-type"),
                info.header("content-language"),
                &base,
                &ctx.parse_limits,
            );
            let nofollow = page.nofollow;
            (page.links, nofollow)
        }
        BodyKind::Css => {
            let (text, _) = parse::decode(&body, info.header("content-type"), false);
            (parse::css(&text, &base, &ctx.parse_limits), false)
        }
        BodyKind::Sitemap => {
            let Ok(map) = parse::sitemap(&body, &base, &ctx.parse_limits) else {
                notes.push("bad-sitemap");
                return (links, false);
            };
            let link = |url: String, hop: Hop, context: &str| Link {
                url,
                hop,
                context: context.into(),
                text: String::new(),
                block: None,
            };
            links.extend(
                map.sitemaps
                    .into_iter()
                    .map(|u| link(u, Hop::Sitemap, "sitemap/sitemap")),
            );
            links.extend(
                map.urls
                    .into_iter()
                    .map(|u| link(u, Hop::Link, "sitemap/url")),
            );
            (links, false)
        }
        BodyKind::Other => (links, false),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    Html,
    Css,
    Sitemap,
    Other,
}

fn classify(mime: &str, is_sitemap: bool) -> BodyKind {
    if is_sitemap {
        return BodyKind::Sitemap;
    }
    match mime {
        "text/html" | "application/xhtml+xml" | "" => BodyKind::Html,
        "text/css" => BodyKind::Css,
        _ => BodyKind::Other,
    }
}

/// Puts links through scope. Navigation links of a `nofollow` page are recorded but not followed.
fn scope_links(
    ctx: &PipelineCtx,
    parent: &CrawlUri,
    links: Vec<Link>,
    nofollow: bool,
    page_url: &str,
) -> (Vec<Outlink>, Vec<Reject>) {
    let parent_in_scope = Url::parse(page_url).is_ok_and(|u| ctx.scope.contains(&u));
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut rejected = Vec::new();
    for link in links {
        if nofollow && link.hop == Hop::Link {
            continue;
        }
        let Ok(url) = Url::parse(&link.url) else {
            continue;
        };
        let mut hops = parent.hops.clone();
        hops.push(link.hop.code());
        if let Err(r) = ctx.scope.decide(&url, &hops, parent_in_scope) {
            rejected.push(r);
            continue;
        }
        let fp = uri::fingerprint(&uri::canonical(&url));
        if !seen.insert(fp) {
            continue;
        }
        out.push(Outlink {
            fp,
            url,
            raw: link.url,
            hops,
        });
    }
    (out, rejected)
}
