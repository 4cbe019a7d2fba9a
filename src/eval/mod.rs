//! Offline evaluation of topical crawling (`magpie eval topical`): simulated crawls of a web
//! held in memory, with the real parser and [`Analyzer`](crate::analysis::Analyzer), comparing
//! breadth-first with best-first under each priority update function, two values of balance
//! per queue, and each score component switched off in turn (ARCOMEM section 5.1).
//!
//! - `vocab`, `synth`: the deterministic synthetic topical web;
//! - `corpus`: an offline web, and its directory format (HTML files plus `labels.tsv`);
//! - `frontier`: per-host priority queues with FIRST/LAST/MAX/AVG/SUM updates and `bl`;
//! - `sim`: one simulated crawl and its measures;
//! - `report`: the results as a Markdown table.

mod corpus;
mod frontier;
mod report;
mod sim;
mod synth;
mod vocab;

#[cfg(test)]
mod tests;

pub use corpus::{Web, WebPage};
pub use frontier::Update;
pub use report::{Report, Row, WebSummary};
pub use sim::Measures;
pub use synth::{generate, SynthOptions};

use std::path::PathBuf;

use crate::analysis::{AnalysisError, Analyzer};
use crate::spec::{RawScoring, RawWeights};

/// Why an evaluation could not run. Each variant names the file or field concerned.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// `labels.tsv` is malformed.
    #[error("{path}:{line}: {message}")]
    Labels {
        /// The labels file.
        path: String,
        /// 1-based line number (0: the file as a whole).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// `topic.json` is not a valid topic section.
    #[error("{path}: {message}")]
    Topic {
        /// The topic file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The topic cannot be used by the analyzer.
    #[error("topic: {0}")]
    Analysis(#[from] AnalysisError),
}

/// Where the web comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Generated webs: `webs` of them, with seeds `seed`, `seed + 1`, ...
    Synthetic {
        /// The shape of the first web.
        options: SynthOptions,
        /// How many webs the measures are averaged over (ARCOMEM averaged 9 simulations).
        webs: u64,
    },
    /// A directory in the format of [`Web::read_dir`].
    Dir(PathBuf),
}

/// What to evaluate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The web crawled.
    pub source: Source,
    /// Pages fetched per simulated crawl.
    pub budget: usize,
    /// Also write the (first) web to this directory (to inspect it, or edit and read it back).
    pub write: Option<PathBuf>,
}

impl Default for Options {
    /// Three default synthetic webs and a budget of 120 pages: well under the ~280 on-topic
    /// pages of each web (so a perfect crawler could reach a harvest ratio of 1) and under a
    /// tenth of all pages (so breadth-first cannot just crawl everything).
    fn default() -> Self {
        Options {
            source: Source::Synthetic {
                options: SynthOptions::default(),
                webs: 3,
            },
            budget: 120,
            write: None,
        }
    }
}

/// One simulated crawl configuration.
struct Config {
    strategy: &'static str,
    update: Option<Update>,
    bl: u32,
    weights: RawWeights,
}

/// A change of the default weights.
type Ablation = fn(&mut RawWeights);

/// The configurations of the report, in its row order.
fn configs() -> Vec<Config> {
    let default = RawWeights::default();
    let mut out = vec![];
    for bl in [1, 5] {
        out.push(Config {
            strategy: "breadth-first",
            update: None,
            bl,
            weights: default.clone(),
        });
    }
    for bl in [1, 5] {
        for u in Update::ALL {
            out.push(Config {
                strategy: "best-first",
                update: Some(u),
                bl,
                weights: default.clone(),
            });
        }
    }
    let ablations: [(&str, Ablation); 5] = [
        ("no document", |w| w.document = 0.0),
        ("no paragraph", |w| w.paragraph = 0.0),
        ("no anchor", |w| w.anchor = 0.0),
        ("no url", |w| w.url = 0.0),
        ("with parent", |w| w.parent = 1.0),
    ];
    for (name, change) in ablations {
        let mut weights = default.clone();
        change(&mut weights);
        out.push(Config {
            strategy: name,
            update: Some(Update::Avg),
            bl: 1,
            weights,
        });
    }
    out
}

/// Runs every configuration on the web(s) of `opts` and reports the measures.
pub fn run(opts: &Options) -> Result<Report, EvalError> {
    let webs: Vec<Web> = match &opts.source {
        Source::Synthetic { options, webs } => (0..(*webs).max(1))
            .map(|i| {
                generate(&SynthOptions {
                    seed: options.seed.wrapping_add(i),
                    ..options.clone()
                })
            })
            .collect(),
        Source::Dir(dir) => vec![Web::read_dir(dir)?],
    };
    if let (Some(dir), Some(web)) = (&opts.write, webs.first()) {
        web.write_dir(dir)?;
    }
    run_webs(&webs, opts.budget)
}

/// Runs every configuration on one web.
pub fn run_web(web: &Web, budget: usize) -> Result<Report, EvalError> {
    run_webs(std::slice::from_ref(web), budget)
}

/// Runs every configuration on each web; the report averages the measures over the webs.
pub fn run_webs(webs: &[Web], budget: usize) -> Result<Report, EvalError> {
    let configs = configs();
    let mut sums: Vec<Vec<Measures>> = vec![vec![]; configs.len()];
    let mut summaries = vec![];
    let mut top_terms = vec![];
    for web in webs {
        let lab = sim::Lab::new(web);
        let mut base = Analyzer::new(&web.topic, &RawScoring::default())?;
        let index = web.index();
        let references =
            web.seeds
                .iter()
                .copied()
                .chain(web.topic.reference_urls.iter().filter_map(|u| {
                    let u = url::Url::parse(u).ok()?;
                    index.get(u.as_str()).copied()
                }));
        for id in references {
            base.add_reference(lab.page(id));
        }
        if top_terms.is_empty() {
            top_terms = base.topic().top_terms(8);
        }
        // One scorer per distinct weighting, shared by the crawls that use it.
        let mut scorers: Vec<(RawWeights, sim::Scorer)> = vec![];
        for (c, sum) in configs.iter().zip(&mut sums) {
            let k = match scorers.iter().position(|(w, _)| *w == c.weights) {
                Some(k) => k,
                None => {
                    let scoring = RawScoring {
                        weights: c.weights.clone(),
                        ..RawScoring::default()
                    };
                    let analyzer = Analyzer::from_topic(base.topic().clone(), &scoring)?;
                    scorers.push((
                        c.weights.clone(),
                        sim::Scorer::new(analyzer, web.pages.len()),
                    ));
                    scorers.len() - 1
                }
            };
            sum.push(lab.crawl(&scorers[k].1, c.update, c.bl, budget));
        }
        let harvest = |strategy: &str, update: &str| {
            configs
                .iter()
                .zip(&sums)
                .find(|(c, _)| {
                    c.strategy == strategy
                        && c.update.map_or("-", Update::name) == update
                        && c.bl == 1
                })
                .and_then(|(_, m)| m.last())
                .map_or(0.0, |m| m.harvest)
        };
        summaries.push(WebSummary {
            description: web.description.clone(),
            pages: web.pages.len(),
            on_topic: web.pages.iter().filter(|p| p.on_topic).count(),
            targets: web.targets().len(),
            breadth_harvest: harvest("breadth-first", "-"),
            best_harvest: harvest("best-first", "AVG"),
        });
    }
    let rows = configs
        .into_iter()
        .zip(sums)
        .map(|(c, runs)| Row {
            strategy: c.strategy.to_owned(),
            update: c.update.map_or("-", Update::name).to_owned(),
            bl: c.bl,
            weights: c.weights,
            measures: Measures::mean(&runs),
        })
        .collect();
    Ok(Report {
        webs: summaries,
        budget,
        threshold: RawScoring::default().threshold,
        top_terms,
        rows,
    })
}
