//! The engine's queuing of discovered URLs: a page's outlinks (through the frontier's offer or
//! update path, blacklisting spam) and the sitemaps a host's robots.txt names.

use super::admit::{Action, Admitted, Arrival, Scoping};
use super::{pipeline, Engine};
use crate::crawl::crawl_log::Refused;
use crate::crawl::pipeline::Outlink;
use crate::fetch::robots::Robots;
use crate::frontier::contract::CrawlFrontier;
use crate::frontier::keys::UrlState;
use crate::model::CrawlUri;

impl<F: CrawlFrontier> Engine<F> {
    /// Sitemaps named in robots.txt, or `/sitemap.xml` of a seed host that names none.
    pub(super) fn offer_sitemaps(
        &mut self,
        host: &str,
        origin: &str,
        robots: &Robots,
    ) -> Result<(), crate::crawl::CrawlError> {
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
            let uri = CrawlUri {
                hops: crate::model::Hop::Sitemap.code().to_string(),
                via: Some(format!("{origin}/robots.txt")),
                source: "crawl".into(),
                ..CrawlUri::seed(raw)
            };
            let scope = Scoping::Decide {
                parent_in_scope: true,
            };
            match self.admit(Arrival::new(url, uri, Action::Offer, scope))? {
                Admitted::OutOfScope(r) => self.stats.reject(r.as_str()),
                Admitted::Blocked => self.stats.reject("blocked"),
                Admitted::Copy(_) => self.stats.reject("copy"),
                _ => {}
            }
        }
        Ok(())
    }

    /// Counts a link refused as blacklisted (`reason`: `blocked` by a pattern, or `spam`) and
    /// logs it.
    fn blacklisted(
        &mut self,
        (fp, url, hops): (u64, &str, &str),
        via: &str,
        reason: &str,
    ) -> Result<(), crate::crawl::CrawlError> {
        self.stats.reject(reason);
        self.log_refusal(
            fp,
            Refused::Blacklist,
            url,
            hops,
            Some(via),
            "crawl",
            reason,
        )
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
        for o in outlinks {
            // Most links are known already: what could not change them is skipped before
            // anything is built for them.
            let state = self.frontier.state(o.fp);
            let (fp, blacklist) = (o.fp, o.blacklist);
            // A link the helper boosts is scored even without a topic: its boosted priority
            // goes through the same update path as the analysis's and external scores.
            let boosted = o.score.is_none() && o.boost > 0.0;
            let queued_or_new = state.is_none() || state == Some(UrlState::Queued);
            let rescored = o.score.is_some() || boosted;
            if !queued_or_new || (state.is_some() && !blacklist && !rescored) {
                continue;
            }
            let score = o.score.map(|s| s.total);
            let (url, uri) = o.into_uri(via, inherited);
            let action = match (blacklist, score.or(boosted.then_some(uri.priority))) {
                (true, _) => Action::Blacklist,
                (false, Some(total)) => Action::Score(total),
                (false, None) => Action::Offer,
            };
            // The URL and hops a refusal is logged with; only a blacklisted link or a crawl
            // with blocked patterns can be refused, so most links copy nothing.
            let refusable = blacklist || !self.blocklist.is_empty() || self.copies.any();
            let logged = refusable.then(|| (uri.url.clone(), uri.hops.clone()));
            let arrival = Arrival {
                fp,
                url,
                uri,
                action,
                scope: Scoping::Decided,
            };
            let reason = match self.admit(arrival)? {
                Admitted::Blacklisted { .. } => "spam",
                Admitted::Blocked => "blocked",
                Admitted::Copy(v) => {
                    self.stats.reject("copy");
                    if let Some((raw, hops)) = &logged {
                        let why = format!("copy:{}", v.name());
                        self.log_refusal(
                            fp,
                            Refused::Blacklist,
                            raw,
                            hops,
                            Some(via),
                            "crawl",
                            &why,
                        )?;
                    }
                    continue;
                }
                _ => continue,
            };
            if let Some((raw, hops)) = &logged {
                self.blacklisted((fp, raw, hops), via, reason)?;
            }
        }
        Ok(())
    }
}
