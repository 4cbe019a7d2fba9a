//! The engine's queuing of discovered URLs: a page's outlinks (through the frontier's offer or
//! update path, blacklisting spam) and the sitemaps a host's robots.txt names.

use super::*;

impl Engine {
    /// Sitemaps named in robots.txt, or `/sitemap.xml` of a seed host that names none.
    pub(super) fn offer_sitemaps(&mut self, host: &str, origin: &str, robots: &Robots) {
        let mut urls: Vec<String> = robots.sitemaps().to_vec();
        let seed_host = self
            .spec
            .seeds
            .iter()
            .any(|s| crate::uri::host_key(s) == host);
        if urls.is_empty() && seed_host {
            urls.push(format!("{origin}/sitemap.xml"));
        }
        for raw in urls {
            let Ok(url) = url::Url::parse(&raw) else {
                continue;
            };
            let hops = crate::model::Hop::Sitemap.code().to_string();
            if let Err(r) = self.ctx.scope.decide(&url, &hops, true) {
                self.stats.reject(r.as_str());
                continue;
            }
            let uri = CrawlUri {
                hops,
                via: Some(format!("{origin}/robots.txt")),
                source: "crawl".into(),
                ..CrawlUri::seed(raw)
            };
            let fp = crate::uri::fingerprint(&crate::uri::canonical(&url));
            let origin = url.origin().ascii_serialization();
            if self
                .frontier
                .offer(fp, &crate::uri::host_key(&url), &origin, uri)
                == Offer::Added
            {
                self.stats.discovered.fetch_add(1, Relaxed);
            }
        }
    }

    /// Queues the outlinks of a page; `via` is the page they were found on and `inherited`
    /// what it passes on to them. Analysed links enter through the frontier's update path (so
    /// they also re-rank URLs already queued, with the crawl's update function); spam links are
    /// blacklisted; links without a score are queued when new, with the depth-based priority.
    pub(super) fn offer_all(
        &mut self,
        outlinks: Vec<Outlink>,
        rejected: &[pipeline::Rejected],
        via: &str,
        inherited: f32,
    ) -> Result<(), crate::crawl::CrawlError> {
        for r in rejected {
            let why = r.reason.as_str();
            self.stats.reject(why);
            self.log_refusal(
                r.fp,
                Refused::Scope,
                &r.url,
                &r.hops,
                Some(via),
                "crawl",
                why,
            )?;
        }
        let update = self.spec.raw.frontier.update;
        for o in outlinks {
            if !self.blocked.is_empty() && self.is_blocked(&o.raw) {
                self.stats.reject("blocked");
                let (fp, url, hops) = (o.fp, o.raw.as_str(), o.hops.as_str());
                self.log_refusal(
                    fp,
                    Refused::Blacklist,
                    url,
                    hops,
                    Some(via),
                    "crawl",
                    "pattern",
                )?;
                continue;
            }
            let state = self.frontier.state(o.fp);
            let fp = o.fp;
            if o.blacklist {
                if state.is_none() || state == Some(UrlState::Queued) {
                    let host = crate::uri::host_key(&o.url);
                    self.frontier.blacklist(fp, &host)?;
                    self.stats.reject("spam");
                    let (url, hops) = (o.raw.as_str(), o.hops.as_str());
                    self.log_refusal(
                        fp,
                        Refused::Blacklist,
                        url,
                        hops,
                        Some(via),
                        "crawl",
                        "spam",
                    )?;
                }
                continue;
            }
            // A link the helper boosts is scored even without a topic: its boosted priority
            // goes through the same update path as the analysis's and external scores.
            let boosted = o.score.is_none() && o.boost > 0.0;
            if let Some(s) = state {
                // Known URLs only change when queued and scored.
                if (o.score.is_none() && !boosted) || s != UrlState::Queued {
                    continue;
                }
            }
            let score = o.score.map(|s| s.total);
            let (host, origin, uri) = o.into_uri(via, inherited);
            let score = score.or(boosted.then_some(uri.priority));
            match score {
                Some(total) => {
                    let r = self
                        .frontier
                        .score(fp, &host, &origin, uri, total, update)?;
                    if matches!(r, crate::frontier::update::Scored::Inserted(_)) {
                        self.stats.discovered.fetch_add(1, Relaxed);
                    }
                }
                None => {
                    if self.frontier.offer(fp, &host, &origin, uri) == Offer::Added {
                        self.stats.discovered.fetch_add(1, Relaxed);
                    }
                }
            }
        }
        Ok(())
    }
}
