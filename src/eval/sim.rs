//! Simulated crawls: the real HTML parser and [`Analyzer`] over an offline [`Web`], with the
//! in-memory frontier, for a fixed page budget; and the measures of each crawl.
//!
//! Measures (Pant, Srinivasan & Menczer, section 4; ARCOMEM 5.1):
//! - harvest ratio: the fraction of crawled pages that are on-topic by their label;
//! - relevant ratio: the fraction the analyzer itself calls relevant (cosine with the topic
//!   vector at least `scoring.threshold`): ARCOMEM's harvest ratio, which had no labels;
//! - average similarity: the mean cosine of the crawled pages with the topic vector;
//! - target recall: the fraction of the targets (on-topic pages that are not seeds) crawled.

use std::cell::OnceCell;
use std::collections::HashMap;

use url::Url;

use super::corpus::Web;
use super::frontier::{SimFrontier, Update};
use crate::analysis::{Analyzer, PageAnalysis};
use crate::model::{Hop, ParsedPage};
use crate::parse::{self, ParseLimits};

/// The outcome of one simulated crawl.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measures {
    /// Pages crawled (the budget, unless the frontier ran dry).
    pub crawled: usize,
    /// Fraction of crawled pages labelled on-topic.
    pub harvest: f64,
    /// Fraction of crawled pages the analyzer found relevant.
    pub relevant: f64,
    /// Mean cosine of crawled pages with the topic.
    pub similarity: f64,
    /// Fraction of target pages crawled.
    pub target_recall: f64,
}

impl Measures {
    /// The mean of several crawls' measures (all zero for none).
    pub fn mean(runs: &[Measures]) -> Measures {
        let n = runs.len().max(1) as f64;
        let sum = |f: fn(&Measures) -> f64| runs.iter().map(f).sum::<f64>() / n;
        Measures {
            crawled: (runs.iter().map(|m| m.crawled).sum::<usize>() as f64 / n).round() as usize,
            harvest: sum(|m| m.harvest),
            relevant: sum(|m| m.relevant),
            similarity: sum(|m| m.similarity),
            target_recall: sum(|m| m.target_recall),
        }
    }
}

/// An analyzer with a memo of its analyses. When the `parent` weight is 0, a page's link
/// totals do not depend on what it inherited, so its analysis is the same in every crawl
/// and is computed once; otherwise every visit is analysed afresh.
pub(crate) struct Scorer {
    analyzer: Analyzer,
    memo: Option<Vec<OnceCell<PageAnalysis>>>,
}

impl Scorer {
    pub(crate) fn new(analyzer: Analyzer, pages: usize) -> Scorer {
        let memo = (analyzer.weights().parent == 0.0)
            .then(|| (0..pages).map(|_| OnceCell::new()).collect());
        Scorer { analyzer, memo }
    }
}

/// A web ready for simulated crawls: pages parsed once (on first visit) and shared by all.
pub(crate) struct Lab<'w> {
    pub web: &'w Web,
    parsed: Vec<OnceCell<ParsedPage>>,
    hosts: Vec<u32>,
    host_count: usize,
    index: HashMap<&'w str, u32>,
    targets: Vec<u32>,
}

impl<'w> Lab<'w> {
    pub(crate) fn new(web: &'w Web) -> Lab<'w> {
        let mut host_ids: HashMap<String, u32> = HashMap::new();
        let hosts = web
            .pages
            .iter()
            .map(|p| {
                let host = Url::parse(&p.url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
                    .unwrap_or_default();
                let next = host_ids.len() as u32;
                *host_ids.entry(host).or_insert(next)
            })
            .collect();
        Lab {
            web,
            parsed: (0..web.pages.len()).map(|_| OnceCell::new()).collect(),
            hosts,
            host_count: host_ids.len(),
            index: web.index(),
            targets: web.targets(),
        }
    }

    /// The parsed form of page `id`.
    pub(crate) fn page(&self, id: u32) -> &ParsedPage {
        self.parsed[id as usize].get_or_init(|| {
            let p = &self.web.pages[id as usize];
            match Url::parse(&p.url) {
                Ok(base) => parse::html(
                    &p.html,
                    Some("text/html"),
                    None,
                    &base,
                    &ParseLimits::default(),
                ),
                Err(_) => ParsedPage::default(),
            }
        })
    }

    /// Crawls `budget` pages from the seeds; `update` `None` is breadth-first.
    pub(crate) fn crawl(
        &self,
        scorer: &Scorer,
        update: Option<Update>,
        bl: u32,
        budget: usize,
    ) -> Measures {
        let n = self.web.pages.len();
        let mut frontier = SimFrontier::new(n, self.host_count, update, bl);
        for &s in &self.web.seeds {
            frontier.offer(s, self.hosts[s as usize], 1.0, 0.0);
        }
        let mut crawled = vec![false; n];
        let (mut count, mut on, mut relevant, mut similarity) = (0usize, 0usize, 0usize, 0f64);
        while count < budget {
            let Some((id, inherited)) = frontier.pop() else {
                break;
            };
            count += 1;
            crawled[id as usize] = true;
            let page = self.page(id);
            let url = &self.web.pages[id as usize].url;
            let fresh;
            let a = match &scorer.memo {
                Some(memo) => {
                    memo[id as usize].get_or_init(|| scorer.analyzer.analyze(page, url, inherited))
                }
                None => {
                    fresh = scorer.analyzer.analyze(page, url, inherited);
                    &fresh
                }
            };
            on += usize::from(self.web.pages[id as usize].on_topic);
            relevant += usize::from(a.relevant);
            similarity += f64::from(a.relevance);
            for (link, score) in page.links.iter().zip(&a.links) {
                if link.hop != Hop::Link {
                    continue;
                }
                if let Some(&to) = self.index.get(link.url.as_str()) {
                    frontier.offer(to, self.hosts[to as usize], score.total, a.inherited);
                }
            }
        }
        let found = self
            .targets
            .iter()
            .filter(|&&t| crawled[t as usize])
            .count();
        let ratio = |x: f64, of: usize| if of == 0 { 0.0 } else { x / of as f64 };
        Measures {
            crawled: count,
            harvest: ratio(on as f64, count),
            relevant: ratio(relevant as f64, count),
            similarity: ratio(similarity, count),
            target_recall: ratio(found as f64, self.targets.len()),
        }
    }
}
