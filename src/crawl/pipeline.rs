//! The per-exchange processor chain: parse → aah → analysis → archive records → index
//! document → scope, run on a worker thread.
//!
//! This is the one place that wires the stages for a fetched exchange, in the order of the
//! data flow. Each stage is called here with the previous one's typed output (`HtmlDoc`,
//! `ParsedPage`, `AppMatch`, `PageAnalysis`, `EncodedRecords`, `CaptureDoc`). A page is decoded
//! and parsed once: link extraction, text blocks and the helper read the same `HtmlDoc`. The
//! result, a [`Processed`], goes back to the engine, which alone touches the frontier, the WARC
//! writer and the index.

use super::dedup::{Dedup, DedupView, Original};
use super::records::{self, EncodedRecords, PageNotes};
use super::reindex::TextLimits;
use super::verdicts::{judge_links, queued_instead, Judged};
use super::CrawlError;
use crate::aah::{AppMatch, Helper, Taught};
use crate::analysis::{Analyzer, PageAnalysis, ReferenceVector};
use crate::fetch::{self, robots::Robots, Fetched};
use crate::index::CaptureDoc;
use crate::model::{CrawlUri, ExchangeInfo, Hop, Link, ParsedPage, ScoreParts};
use crate::parse::{self, DISCOVERY_CONTEXT};
use crate::scope::{Reject, Scope};
use crate::store::WriteSet;
use crate::uri;
use std::collections::HashSet;
use std::sync::Arc;
use url::Url;

/// What a worker needs to process exchanges; shared by all workers.
pub struct PipelineCtx {
    /// The crawl's scope.
    pub scope: Scope,
    /// Parser caps and the cap on decoded (decompressed) bodies handed to parsers: the
    /// index's, so a rebuild reads pages as the crawl did.
    pub text: TextLimits,
    /// gzip level of WARC records.
    pub gzip_level: u32,
    /// User agent, for robots.txt matching.
    pub user_agent: String,
    /// The application-aware helper, when enabled.
    pub helper: Option<Arc<Helper>>,
    /// Build index documents (the crawl has an index).
    pub index: bool,
    /// Obey `<meta name="robots" content="nofollow">` (with `politeness.respect_robots`, as
    /// Heritrix's robots policy covers both).
    pub obey_meta_robots: bool,
    /// The payloads archived before, when `warc.dedup` is on: a view the engine publishes to.
    pub dedup: Option<DedupView>,
}

impl PipelineCtx {
    /// The first capture of an exchange's payload, when the exchange is to be written as a
    /// revisit of it.
    fn original(&self, info: &ExchangeInfo) -> Result<Option<Original>, CrawlError> {
        match &self.dedup {
            Some(d) if Dedup::applies_to(info) => d.original(&info.payload_digest),
            _ => Ok(None),
        }
    }
}

/// A link accepted by scope. Most links of a page are known to the frontier already, so
/// the [`CrawlUri`] only a newly queued URL needs is built by [`Outlink::into_uri`] once the
/// frontier's seen-test has said it is new.
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
    /// The analysis score of the link (with the application-aware boost), when analysed.
    pub score: Option<ScoreParts>,
    /// Priority boost from the application-aware helper (0 without one; -1 for a deferred
    /// link, which brings its priority to 0).
    pub boost: f32,
    /// The analysis flagged the link as spam: blacklist it.
    pub blacklist: bool,
}

impl Outlink {
    /// The parsed URL and the [`CrawlUri`] to queue; `via` is the URL of the page the link was
    /// found on.
    pub fn into_uri(self, via: &str, inherited: f32) -> (Url, CrawlUri) {
        let depth = self.hops.chars().filter(|&c| c == Hop::Link.code()).count();
        let priority = (1.0 / (1.0 + depth as f32) + self.boost).clamp(0.0, 1.0);
        let uri = CrawlUri {
            url: self.raw,
            hops: self.hops,
            via: Some(via.to_string()),
            priority,
            source: "crawl".into(),
            discovered: 1,
            retries: 0,
            scores: 0,
            score_sum: 0.0,
            inherited,
            parts: self.score,
        };
        (self.url, uri)
    }
}

/// The outcome of processing one exchange.
pub struct Processed {
    /// The exchange and its encoded WARC records.
    pub records: EncodedRecords,
    /// Links accepted by scope, deduplicated within the page.
    pub outlinks: Vec<Outlink>,
    /// Links refused by scope.
    pub rejected: Vec<Rejected>,
    /// Rules, when the exchange was a robots.txt.
    pub robots: Option<Robots>,
    /// Problems met while reading the body (`decode-capped`, `unsupported-encoding`), for stats.
    pub notes: Vec<&'static str>,
    /// What analysis and the application-aware helper learned, for a 2xx HTML page.
    pub page: Option<PageFacts>,
    /// The index document, completed by the engine once the records are written.
    pub capture: Option<CaptureDoc>,
    /// The URL, and where it redirects, when its answer was no page (a redirect, 404, 410)
    /// and the helper is on: the engine tells the helper's model of the host
    /// (`Helper::note_no_page`), which may learn that URLs of its shape, some already queued,
    /// are not worth a fetch (the second redirect of `/post/N`).
    pub no_page: Option<(Url, Option<Url>)>,
    /// What the helper learned from the page that outlives the process (the host's
    /// application, adoptions, captured content): the engine commits it with the page.
    pub learned: WriteSet,
    /// What the page taught the helper's memory of its host: the engine keeps it
    /// (`Helper::learn`), as the worker that read the page wrote nothing shared.
    pub taught: Option<Taught>,
}

/// What the online stages learned about one page, for the engine's statistics, the index and
/// the topic.
#[derive(Debug, Default)]
pub struct PageFacts {
    /// The analysis of the page, when the crawl has a topic (outlink scores left out).
    pub analysis: Option<PageAnalysis>,
    /// The application-aware helper's findings (objects included), when enabled.
    pub app: Option<AppMatch>,
    /// For a reference page (a seed or `topic.reference_urls` entry): what it adds to the
    /// topic vector, read once by the worker; the engine adds it.
    pub reference: Option<ReferenceVector>,
}

/// Processes a fetched page: extracts and scopes its links and encodes its WARC records.
/// `analyzer` is the topic as the engine had it when the page was handed out (a snapshot: the
/// engine publishes a new one as it learns, and nothing here writes to it).
pub fn process_page(
    ctx: &PipelineCtx,
    analyzer: Option<&Analyzer>,
    uri: &CrawlUri,
    fetched: &Fetched,
    warcinfo_id: &str,
) -> Result<Processed, CrawlError> {
    let original = ctx.original(&fetched.info)?;
    let mut notes = Vec::new();
    let (links, nofollow, parsed) = extract(ctx, uri, fetched, &mut notes);
    // A redirect, or an answer that the URL names nothing, for the helper's model of the host
    // (a refusal, a rate limit or a server's failure says nothing of what the URL is, and is
    // retried).
    let no_page = ctx
        .helper
        .as_ref()
        .filter(|_| matches!(fetched.info.status, 300..=399 | 404 | 410))
        .and_then(|_| Url::parse(&fetched.info.url).ok())
        .map(|url| {
            let location = links
                .iter()
                .find(|l| l.hop == Hop::Redirect)
                .and_then(|l| Url::parse(&l.url).ok());
            (url, location)
        });
    let Some((page, doc)) = parsed else {
        let records = records::encode(
            records::capture_of(fetched),
            fetched,
            uri,
            &links,
            None,
            original.as_ref(),
            warcinfo_id,
            ctx.gzip_level,
        )?;
        let capture = ctx
            .index
            .then(|| CaptureDoc::from_exchange(&fetched.info, None, &records.record_id, &uri.hops));
        let nofollow = nofollow && ctx.obey_meta_robots;
        let (outlinks, rejected) = scope_links(ctx, uri, links, nofollow, &fetched.info.url, &[]);
        return Ok(Processed {
            records,
            outlinks,
            rejected,
            robots: None,
            notes,
            page: None,
            capture,
            no_page,
            learned: WriteSet::default(),
            taught: None,
        });
    };
    let page_url = &fetched.info.url;
    let capture = records::capture_of(fetched);
    let reading = ctx.helper.as_ref().zip(doc.as_ref()).and_then(|(h, doc)| {
        let url = Url::parse(page_url).ok()?;
        let c = Some(capture.clone());
        Some(h.read_doc(&url, &fetched.info.headers, doc, &page.links, c))
    });
    let (app, learned, taught) = match reading.transpose()? {
        Some((r, t)) => (Some(r.app), r.learned, Some(t)),
        None => (None, WriteSet::default(), None),
    };
    drop(doc);
    let mut reference = None;
    let analysis = analyzer.map(|a| {
        // A reference page (a seed) is read once, here, and scored with itself in the topic,
        // as the engine will have it once it adds the vector.
        reference = uri
            .hops
            .is_empty()
            .then(|| a.reference_vector(&page))
            .flatten();
        match &reference {
            Some(v) => {
                let mut with_page = a.clone();
                with_page.add_reference_vector(v);
                with_page.analyze(&page, page_url, uri.inherited)
            }
            None => a.analyze(&page, page_url, uri.inherited),
        }
    });
    let judged = judge_links(&page.links, analysis.as_ref(), app.as_ref());
    let notes_for_record = PageNotes {
        analysis: analysis.as_ref(),
        app: app.as_ref(),
        judged: &judged,
    };
    let records = records::encode(
        capture,
        fetched,
        uri,
        &page.links,
        Some(&notes_for_record),
        original.as_ref(),
        warcinfo_id,
        ctx.gzip_level,
    )?;
    let capture = ctx.index.then(|| {
        let mut doc =
            CaptureDoc::from_exchange(&fetched.info, Some(&page), &records.record_id, &uri.hops);
        let app = app.as_ref();
        doc.add_reading(
            analysis.as_ref().map(|a| a.relevance),
            analysis.as_ref().and_then(|a| a.lang.clone()),
            app.and_then(|m| m.application.as_ref())
                .map(|a| a.name.clone()),
            app.and_then(|m| m.level.as_ref()).map(|l| l.name.clone()),
        );
        doc
    });
    let nofollow = page.nofollow && ctx.obey_meta_robots;
    let links = queued_instead(page.links, app.as_ref());
    let (outlinks, rejected) = scope_links(ctx, uri, links, nofollow, page_url, &judged);
    let mut analysis = analysis;
    if let Some(a) = &mut analysis {
        a.links = Vec::new();
    }
    Ok(Processed {
        records,
        outlinks,
        rejected,
        robots: None,
        notes,
        page: Some(PageFacts {
            analysis,
            app,
            reference,
        }),
        capture,
        no_page,
        learned,
        taught,
    })
}

/// Processes a fetched robots.txt: parses the rules and encodes the WARC records.
pub fn process_robots(
    ctx: &PipelineCtx,
    fetched: &Fetched,
    warcinfo_id: &str,
) -> Result<Processed, CrawlError> {
    let original = ctx.original(&fetched.info)?;
    let mut notes = Vec::new();
    let body = decoded_body(ctx, fetched, &mut notes);
    let robots = Robots::from_response(fetched.info.status, &body, &ctx.user_agent);
    let uri = CrawlUri {
        hops: Hop::Prerequisite.code().to_string(),
        source: "crawl".into(),
        ..CrawlUri::seed(fetched.info.url.clone())
    };
    let records = records::encode(
        records::capture_of(fetched),
        fetched,
        &uri,
        &[],
        None,
        original.as_ref(),
        warcinfo_id,
        ctx.gzip_level,
    )?;
    let capture = ctx
        .index
        .then(|| CaptureDoc::from_exchange(&fetched.info, None, &records.record_id, &uri.hops));
    Ok(Processed {
        records,
        outlinks: vec![],
        rejected: vec![],
        robots: Some(robots),
        notes,
        page: None,
        capture,
        no_page: None,
        learned: WriteSet::default(),
        taught: None,
    })
}

fn decoded_body(ctx: &PipelineCtx, fetched: &Fetched, notes: &mut Vec<&'static str>) -> Vec<u8> {
    match fetch::entity_body(fetched, ctx.text.max_decoded_bytes) {
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

/// A parsed HTML page, with its tree when a later stage reads it.
type HtmlPage = (ParsedPage, Option<parse::HtmlDoc>);

/// Links of the exchange: the redirect target, and what the parsers find in the body; for HTML
/// the links are in the returned page.
fn extract(
    ctx: &PipelineCtx,
    uri: &CrawlUri,
    fetched: &Fetched,
    notes: &mut Vec<&'static str>,
) -> (Vec<Link>, bool, Option<HtmlPage>) {
    let info = &fetched.info;
    let Ok(base) = Url::parse(&info.url) else {
        return (vec![], false, None);
    };
    let mut links = Vec::new();
    if (300..400).contains(&info.status) {
        if let Some(loc) = info.header("location") {
            if let Ok(target) = uri::resolve(loc, &base, ctx.text.parse.max_url_len) {
                links.push(Link {
                    url: target.to_string(),
                    hop: Hop::Redirect,
                    context: "http/location".into(),
                    text: String::new(),
                    block: None,
                });
            }
        }
        return (links, false, None);
    }
    if !(200..300).contains(&info.status) {
        return (links, false, None);
    }
    let mime = info.mime();
    let is_sitemap = uri.last_hop() == Some(Hop::Sitemap);
    let kind = classify(&mime, is_sitemap);
    if kind == BodyKind::Other {
        return (links, false, None);
    }
    let body = decoded_body(ctx, fetched, notes);
    match kind {
        // Links alone need no tree: without text or helper, the token stream finds them.
        BodyKind::Html if ctx.helper.is_none() && !ctx.text.parse.text => {
            let (ct, lang) = (info.header("content-type"), info.header("content-language"));
            let page = parse::html_links(&body, ct, lang, &base, &ctx.text.parse);
            (Vec::new(), page.nofollow, Some((page, None)))
        }
        BodyKind::Html => {
            let doc = parse::HtmlDoc::parse(&body, info.header("content-type"), &ctx.text.parse);
            let page = parse::html_page(
                &doc,
                info.header("content-language"),
                &base,
                &ctx.text.parse,
            );
            (Vec::new(), page.nofollow, Some((page, Some(doc))))
        }
        BodyKind::Css => {
            let (text, _) = parse::decode(&body, info.header("content-type"), false);
            (parse::css(&text, &base, &ctx.text.parse), false, None)
        }
        BodyKind::Sitemap => {
            let Ok(map) = parse::sitemap(&body, &base, &ctx.text.parse) else {
                notes.push("bad-sitemap");
                return (links, false, None);
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
            (links, false, None)
        }
        BodyKind::Other => (links, false, None),
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

/// A link scope refused, for the statistics and the crawl log.
#[derive(Debug, Clone)]
pub struct Rejected {
    /// Why.
    pub reason: Reject,
    /// Fingerprint of its canonical form.
    pub fp: u64,
    /// The link as found.
    pub url: String,
    /// Its hop path.
    pub hops: String,
}

/// Puts links through scope. Navigation links of a `nofollow` page are recorded but not followed.
fn scope_links(
    ctx: &PipelineCtx,
    parent: &CrawlUri,
    links: Vec<Link>,
    nofollow: bool,
    page_url: &str,
    judged: &[Judged],
) -> (Vec<Outlink>, Vec<Rejected>) {
    let parent_in_scope = Url::parse(page_url).is_ok_and(|u| ctx.scope.contains(&u));
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut rejected = Vec::new();
    for (i, link) in links.into_iter().enumerate() {
        if nofollow && link.hop == Hop::Link {
            continue;
        }
        let j = judged.get(i).copied().unwrap_or_default();
        let Ok(url) = Url::parse(&link.url) else {
            continue;
        };
        let mut hops = parent.hops.clone();
        hops.push(link.hop.code());
        let fp = uri::fingerprint(&uri::canonical(&url));
        let unasked_discovery =
            link.context == DISCOVERY_CONTEXT && !j.by_rule && !ctx.scope.follows_discovery();
        let decision = if j.skip {
            Err(Reject::AppSkip)
        } else if unasked_discovery {
            Err(Reject::Discovery)
        } else {
            ctx.scope.decide(&url, &hops, parent_in_scope)
        };
        if let Err(reason) = decision {
            rejected.push(Rejected {
                reason,
                fp,
                url: link.url,
                hops,
            });
            continue;
        }
        if !seen.insert(fp) {
            continue;
        }
        out.push(Outlink {
            fp,
            url,
            raw: link.url,
            hops,
            score: j.score,
            boost: j.boost,
            blacklist: j.blacklist,
        });
    }
    (out, rejected)
}
