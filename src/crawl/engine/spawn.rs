//! Starting the work of a lease: a page's fetch and processing, or a host's robots.txt fetch,
//! as a task whose result comes back to the engine (`Done`).

use super::responses::redirect_target;
use super::{pipeline, Done, Engine, Span};
use crate::crawl::supervise::catch_panic;
use crate::crawl::CrawlError;
use crate::fetch::FetchError;
use crate::frontier::contract::CrawlFrontier;
use crate::frontier::UrlLease;
use std::time::Instant;

impl<F: CrawlFrontier> Engine<F> {
    pub(super) fn spawn_page(&mut self, lease: UrlLease) {
        self.inflight += 1;
        let (fetcher, ctx, tx) = (self.fetcher.clone(), self.ctx.clone(), self.tx.clone());
        let warcinfo = self.archiver.warcinfo_id().to_string();
        let procs = self.processors.clone();
        let stats = self.stats.clone();
        let analyzer = self.online.analyzer();
        // Taken here, not when the task first runs: a fetch that ran out of descriptors tells
        // by its start whether it began before the pause that shortage caused.
        let t0 = Instant::now();
        tokio::spawn(async move {
            let queued = &lease.uri.url;
            let fetch = async {
                match url::Url::parse(queued) {
                    Err(reason) => Err(FetchFailure::BadUrl {
                        url: queued.clone(),
                        reason,
                    }),
                    Ok(url) => fetcher.fetch(&url).await.map_err(FetchFailure::Fetch),
                }
            };
            let fetched = catch_panic(fetch)
                .await
                .unwrap_or_else(|p| Err(FetchFailure::panicked("fetch", p)));
            let fetched = match fetched {
                Ok(f) => f,
                Err(e) => {
                    let _ = tx.send(Done::Page(lease, Err(e), Span::since(t0)));
                    return;
                }
            };
            // The processor thread hands the result to the engine itself.
            let uri = lease.uri.clone();
            procs.then(
                move || {
                    let t = Instant::now();
                    let p = pipeline::process_page(
                        &ctx,
                        analyzer.as_deref(),
                        &uri,
                        &fetched,
                        &warcinfo,
                    );
                    stats.processed(t.elapsed().as_secs_f64());
                    p
                },
                move |out| {
                    let result = match out {
                        Ok(Ok(p)) => Ok(Box::new(p)),
                        Ok(Err(e)) => Err(FetchFailure::of_processing(e)),
                        Err(p) => Err(FetchFailure::panicked("processing", p)),
                    };
                    let _ = tx.send(Done::Page(lease, result, Span::since(t0)));
                },
            );
        });
    }

    /// Fetches robots.txt, following up to five redirects (RFC 9309 §2.3.1.2); every exchange
    /// is archived, and the rules come from the last one.
    pub(super) fn spawn_robots(&mut self, host: String, origin: String) {
        self.inflight += 1;
        let (fetcher, ctx, tx) = (self.fetcher.clone(), self.ctx.clone(), self.tx.clone());
        let warcinfo = self.archiver.warcinfo_id().to_string();
        let procs = self.processors.clone();
        let at = origin.clone();
        let t0 = Instant::now();
        tokio::spawn(async move {
            let work = async move {
                let origin = at;
                let mut chain = Vec::new();
                let robots = format!("{origin}/robots.txt");
                let mut next = url::Url::parse(&robots).map_err(|reason| FetchFailure::BadUrl {
                    url: robots.clone(),
                    reason,
                });
                let mut failure = None;
                for _ in 0..=5 {
                    let url = match next {
                        Ok(u) => u,
                        Err(e) => {
                            failure = Some(e);
                            break;
                        }
                    };
                    let fetched = match fetcher.fetch(&url).await {
                        Ok(f) => f,
                        Err(e) => {
                            failure = Some(FetchFailure::Fetch(e));
                            break;
                        }
                    };
                    let location = redirect_target(&fetched.info, &url);
                    let (c, w) = (ctx.clone(), warcinfo.clone());
                    match procs
                        .run(move || pipeline::process_robots(&c, &fetched, &w))
                        .await
                    {
                        Ok(Ok(p)) => chain.push(p),
                        Ok(Err(e)) => failure = Some(FetchFailure::of_processing(e)),
                        Err(p) => failure = Some(FetchFailure::panicked("processing", p)),
                    }
                    match location {
                        Some(target) if failure.is_none() => next = Ok(target),
                        _ => break,
                    }
                }
                match failure {
                    // Without a descriptor the fetch was not really tried: robots.txt is asked
                    // for again, its redirects included, once descriptors are free.
                    Some(FetchFailure::Fetch(e)) if e.is_local() => Err(FetchFailure::Fetch(e)),
                    Some(e) if chain.is_empty() => Err(e),
                    _ => Ok(chain),
                }
            };
            let result = catch_panic(work)
                .await
                .unwrap_or_else(|p| Err(FetchFailure::panicked("robots.txt", p)));
            let _ = tx.send(Done::Robots(host, origin, result, Span::since(t0)));
        });
    }
}

/// Why a worker produced no records.
#[derive(Debug, thiserror::Error)]
pub(super) enum FetchFailure {
    /// The fetch failed: the server's answer, the network or a local shortage.
    #[error(transparent)]
    Fetch(FetchError),
    /// The URL to fetch does not parse (a queued URL, or a host's robots.txt).
    #[error("{url}: not a URL: {reason}")]
    BadUrl {
        /// The URL as queued.
        url: String,
        /// What the parser said.
        reason: url::ParseError,
    },
    /// The exchange was fetched but could not be processed (its records not encoded...):
    /// this exchange's failure, not the crawl's.
    #[error(transparent)]
    Processing(CrawlError),
    /// A task panicked: which one (`fetch`, `processing`, `robots.txt`) and its message.
    #[error("the {task} task panicked: {message}")]
    Panicked {
        /// The task's name.
        task: &'static str,
        /// The panic's message.
        message: String,
    },
    /// The crawl's persisted state cannot be read (a damaged record of the store, met while
    /// processing): the crawl stops on it rather than go on without what the store lost.
    #[error(transparent)]
    State(CrawlError),
}

impl FetchFailure {
    /// A processing error: the crawl's own state damaged, or this exchange's failure.
    pub(super) fn of_processing(e: CrawlError) -> FetchFailure {
        if e.damages_state() {
            FetchFailure::State(e)
        } else {
            FetchFailure::Processing(e)
        }
    }

    fn panicked(task: &'static str, message: String) -> FetchFailure {
        FetchFailure::Panicked { task, message }
    }
}
