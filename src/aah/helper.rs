//! The [`Helper`]: the loaded knowledge base, the relaxation store and per-host memory, and
//! `analyze`, which runs the three steps of ARCOMEM's AAH on one page: detect the application,
//! detect the page level, run the crawling actions (extraction, navigation), adapting failed
//! patterns on the way.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use url::Url;

use crate::store::WriteSet;

use super::dom::{self, Dom};
use super::engine::{self, Facts, Page};
use super::error::AahError;
use super::generic;
use super::kb::{Application, Category, Condition, KnowledgeBase, Level, PageWords};
use super::memory::{Taught, Unknown};
use super::output::{ActionReport, ActionStatus, AppInfo, AppMatch, LevelInfo};
use super::relax::adapt::{HostState, Limits};
use super::relax::store::{Adoption, RelaxStore};
use super::relax::Vocab;
use super::reread::{Capture, Rereads};
use crate::model::Link;
use crate::store::Store;

/// Tuning of the helper; the defaults suit a crawl.
#[derive(Debug, Clone)]
pub struct HelperOptions {
    /// Further pages of the same level a relaxed candidate must work on before it is adopted
    /// (0 adopts at once, which is only wise offline).
    pub validate_pages: usize,
    /// Relaxation attempts per host and action before the helper stops trying.
    pub max_attempts: u32,
    /// Candidate expressions tested per attempt.
    pub max_tries: usize,
    /// Hosts remembered in memory (detected application, candidates being validated).
    pub max_hosts: usize,
    /// Bytes of a body analysed; the rest is ignored.
    pub max_html_bytes: usize,
    /// Bytes of pages of unknown applications kept, over all hosts, to be read again once
    /// their host's model can judge them (see `reread`).
    pub reread_bytes: usize,
}

impl Default for HelperOptions {
    /// Two further pages, five attempts of 200 candidates, 10,000 hosts, 4 MiB of HTML, 16 MiB
    /// of pages kept to be read again.
    fn default() -> Self {
        HelperOptions {
            validate_pages: 2,
            max_attempts: 5,
            max_tries: 200,
            max_hosts: 10_000,
            max_html_bytes: 4 << 20,
            reread_bytes: 16 << 20,
        }
    }
}

/// The application-aware helper: a loaded knowledge base plus what it learned per host.
/// `Send + Sync`: one helper serves every worker.
pub struct Helper {
    pub(crate) kb: KnowledgeBase,
    pub(crate) vocab: Vocab,
    /// Per category, the pre-filter word ids of its level detection patterns.
    category_words: Vec<(Category, Vec<usize>)>,
    pub(crate) options: HelperOptions,
    pub(crate) store: Option<RelaxStore>,
    /// What the helper remembers of each host; like `models` and `rereads`, read by the
    /// readers (copies) and written only by its owner through `learn` (see `memory`).
    pub(crate) hosts: Mutex<HashMap<String, HostState>>,
    /// The unknown-page reader's model of each host (see `unknown`), published whole: a
    /// reader copies the model it reads with, `learn` applies what the reading taught.
    pub(crate) models: Mutex<HashMap<String, Arc<generic::HostModel>>>,
    /// Pages of unknown applications read too early, kept to be read again; locked after
    /// `models`, never before it.
    pub(crate) rereads: Mutex<Rereads>,
}

/// A page's reading, with what it taught the helper that must outlive the process.
#[derive(Debug)]
pub struct Reading {
    /// Application, level, objects and verdicts on the page's links.
    pub app: AppMatch,
    /// The host's application when newly detected, adoptions made on this page and content
    /// captured from it, as entries of the crawl store: the helper never writes its store, the
    /// caller commits them with the page (a crawl: with the page's records), so what a page
    /// taught is durable together with that page. Empty without a store.
    pub learned: WriteSet,
}

/// Key under which detection relaxation attempts of a host are counted.
pub(crate) const DETECT_KEY: &str = "*/detect";

impl Helper {
    /// Loads the knowledge base of a folder (every `*.xml` file); see `KnowledgeBase::load`.
    pub fn load(dir: &Path) -> Result<Helper, AahError> {
        Ok(Helper::from_kb(KnowledgeBase::load(dir)?))
    }

    /// A helper over an already loaded knowledge base.
    pub fn from_kb(kb: KnowledgeBase) -> Helper {
        let vocab = Vocab::build(&kb);
        let mut category_words: Vec<(Category, Vec<usize>)> = Vec::new();
        for app in &kb.apps {
            let ids: Vec<usize> = app
                .levels
                .iter()
                .flat_map(|l| l.detect.conditions.iter())
                .filter_map(|c| match c {
                    Condition::XPath(e) => e.req_ids.clone(),
                    _ => None,
                })
                .flatten()
                .flatten()
                .collect();
            match category_words.iter_mut().find(|(c, _)| *c == app.category) {
                Some((_, v)) => v.extend(ids),
                None => category_words.push((app.category, ids)),
            }
        }
        for (_, v) in &mut category_words {
            v.sort_unstable();
            v.dedup();
        }
        Helper {
            kb,
            vocab,
            category_words,
            options: HelperOptions::default(),
            store: None,
            hosts: Mutex::new(HashMap::new()),
            models: Mutex::new(HashMap::new()),
            rereads: Mutex::new(Rereads::default()),
        }
    }

    /// Keeps adopted relaxations and captured content in the crawl store, so they survive
    /// restarts and serve recrawls.
    pub fn with_store(mut self, store: Store) -> Helper {
        self.store = Some(RelaxStore::new(store));
        self
    }

    /// Replaces the tuning.
    pub fn with_options(mut self, options: HelperOptions) -> Helper {
        self.options = options;
        self
    }

    /// The knowledge base.
    pub fn kb(&self) -> &KnowledgeBase {
        &self.kb
    }

    /// Adopted relaxations with their evidence (original and relaxed expression, pages where
    /// validated), of one host or of all: those committed to the store (earlier runs' too),
    /// and those in memory, which are newer and win.
    pub fn relaxations(&self, host: Option<&str>) -> Result<Vec<Adoption>, AahError> {
        let key = |a: &Adoption| (a.host.clone(), a.application.clone(), a.action.clone());
        let mut out: BTreeMap<_, Adoption> = BTreeMap::new();
        if let Some(s) = &self.store {
            out.extend(s.adoptions(host)?.into_iter().map(|a| (key(&a), a)));
        }
        let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        let in_memory = hosts
            .iter()
            .filter(|(h, _)| host.is_none_or(|x| x == h.as_str()))
            .flat_map(|(_, s)| s.adoptions.iter().cloned());
        out.extend(in_memory.map(|a| (key(&a), a)));
        Ok(out.into_values().collect())
    }

    pub(crate) fn limits(&self) -> Limits {
        Limits {
            validate_pages: self.options.validate_pages,
            max_attempts: self.options.max_attempts,
            max_tries: self.options.max_tries,
        }
    }

    /// Analyses a page from its body bytes: decoded with the charset of `Content-Type` (or the
    /// document's own declaration), then as [`Helper::analyze_text`].
    pub fn analyze(
        &self,
        url: &Url,
        headers: &[(String, String)],
        html: &[u8],
        links: &[Link],
    ) -> Result<Reading, AahError> {
        let ct = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.as_str());
        let body = &html[..html.len().min(self.options.max_html_bytes)];
        let (text, _) = crate::parse::decode(body, ct, true);
        self.analyze_text(url, headers, &text, links)
    }

    /// Analyses a decoded page: application, level, objects, a verdict per navigation link
    /// (`links` as the parse stage found them; hops other than `L` get no verdict) and a report
    /// per action. Never panics; a page nothing matches costs one pre-filter scan. The one
    /// error is the helper's persisted state that cannot be read or written (a damaged
    /// adoption, host application or content captured on an earlier visit in its store): a
    /// reading without what the store lost would be silently wrong.
    pub fn analyze_text(
        &self,
        url: &Url,
        headers: &[(String, String)],
        text: &str,
        links: &[Link],
    ) -> Result<Reading, AahError> {
        self.read_parsed(url, headers, text, None, links, None)
            .map(|r| self.keep(r))
    }

    /// Reads a page the parse stage decoded and parsed, on its tree (the crawl parses each page
    /// once), changing nothing the helper remembers: what the page taught comes back beside
    /// its reading, for the helper's owner to keep with [`Helper::learn`]. Safe to call from
    /// any number of workers at once. `capture` is the page's archived capture: a page of an
    /// unknown application read before its host's model could judge it is read again later,
    /// and the new reading refers to it ([`Helper::take_revisions`]).
    pub fn read_doc(
        &self,
        url: &Url,
        headers: &[(String, String)],
        doc: &crate::parse::HtmlDoc,
        links: &[Link],
        capture: Option<Capture>,
    ) -> Result<(Reading, Taught), AahError> {
        self.read_parsed(url, headers, &doc.text, Some(&doc.tree), links, capture)
    }

    /// Keeps at once what a reading taught, and files the second readings it made due: a
    /// caller reading pages one by one, as `analyze` does.
    pub fn keep(&self, (reading, taught): (Reading, Taught)) -> Reading {
        if let Some(due) = self.learn(taught) {
            self.reread_done(due.run());
        }
        reading
    }

    /// The reading of a page and what it taught, the helper's memory read only.
    fn read_parsed(
        &self,
        url: &Url,
        headers: &[(String, String)],
        text: &str,
        tree: Option<&scraper::Html>,
        links: &[Link],
        capture: Option<Capture>,
    ) -> Result<(Reading, Taught), AahError> {
        let text = &text[..floor_char(text, self.options.max_html_bytes)];
        let host = crate::uri::host_key(url);
        let mut st = self.host_state(&host)?;
        let mut learned = WriteSet::default();
        let words = self.kb.scan(text);
        let facts = Facts {
            url: url.as_str(),
            headers,
            words: &words,
        };
        // The host's application, once known, is not detected again: one of its own level
        // patterns confirms it. Only a page none of them matches runs the whole detection.
        let cached: Vec<usize> = st.app.map_or_else(Vec::new, |a| {
            (0..self.kb.apps[a].levels.len())
                .filter(|&l| engine::may_detect(&self.kb.apps[a].levels[l].detect, &facts))
                .collect()
        });
        let maybe: Vec<usize> = (0..self.kb.apps.len())
            .filter(|&i| engine::may_detect(&self.kb.apps[i].detect, &facts))
            .collect();
        let looks = self.looks_like(&words);
        let detection_state = st.adoptions.iter().any(|a| a.source == "detection")
            || st.pending.values().any(|p| p.action.ends_with("/detect"));
        let may_relax = !looks.is_empty()
            && (detection_state
                || st.attempts.get(DETECT_KEY).copied().unwrap_or(0) < self.options.max_attempts);
        let mut out = AppMatch::nothing(url.as_str());
        if maybe.is_empty() && cached.is_empty() && !may_relax {
            let mut unknown = self.unknown(&host);
            let views =
                self.read_unknown(&mut unknown, &mut st, url, text, tree, &mut out, capture);
            self.unknown_verdicts(&mut unknown, &mut st, url, &mut out, links, &views);
            let taught = self.taught(host, st, Some(unknown), &mut learned)?;
            return Ok((Reading { app: out, learned }, taught));
        }
        // One parse serves the XPath tree and, if nothing matches, the unknown-page reader.
        let parsed;
        let html = match tree {
            Some(t) => t,
            None => {
                parsed = crate::parse::parse_document(text);
                &parsed
            }
        };
        let package = dom::convert(html);
        let page = Page::new(Dom::new(&package));
        let mut found = st.app.and_then(|a| {
            let levels = &self.kb.apps[a].levels;
            cached
                .iter()
                .find(|&&l| engine::detect(&levels[l].detect, Some(&page), &facts))
                .map(|&l| (a, Some((l, false)), st.app_relaxed))
        });
        if found.is_none() {
            found = maybe
                .iter()
                .copied()
                .find(|&i| engine::detect(&self.kb.apps[i].detect, Some(&page), &facts))
                .map(|i| (i, None, false));
        }
        if found.is_none() && !looks.is_empty() {
            found = self
                .relaxed_detection(
                    &mut st,
                    &page,
                    &host,
                    url.as_str(),
                    None,
                    &looks,
                    &mut out.actions,
                )
                .map(|(a, l)| (a, Some((l, true)), true));
        }
        let Some((ai, preset, app_relaxed)) = found else {
            // A relaxed detection being validated on this page may name an application of the
            // knowledge base once adopted; until then the page is read as unknown, and its
            // report shows the candidate pending.
            let mut unknown = self.unknown(&host);
            let views = self.read_unknown(
                &mut unknown,
                &mut st,
                url,
                text,
                Some(html),
                &mut out,
                capture,
            );
            self.unknown_verdicts(&mut unknown, &mut st, url, &mut out, links, &views);
            let taught = self.taught(host, st, Some(unknown), &mut learned)?;
            return Ok((Reading { app: out, learned }, taught));
        };
        let app = &self.kb.apps[ai];
        if st.app != Some(ai) && self.store.is_some() {
            let (k, v) = RelaxStore::app_entry(&host, &app.id);
            learned.put(k, v);
        }
        st.app = Some(ai);
        st.app_relaxed = app_relaxed;
        out.application = Some(AppInfo {
            name: app.id.clone(),
            category: app.category,
            relaxed: app_relaxed,
        });
        let level = match preset {
            Some(l) => Some(l),
            None => app
                .levels
                .iter()
                .position(|l| engine::detect(&l.detect, Some(&page), &facts))
                .map(|l| (l, false))
                .or_else(|| {
                    self.relaxed_detection(
                        &mut st,
                        &page,
                        &host,
                        url.as_str(),
                        Some(ai),
                        &[app.category],
                        &mut out.actions,
                    )
                    .map(|(_, l)| (l, true))
                }),
        };
        let level = level.map(|(li, relaxed)| {
            let l = &app.levels[li];
            out.level = Some(LevelInfo {
                name: l.id.clone(),
                kind: l.kind,
                relaxed,
            });
            l
        });
        let ctx = Ctx {
            host: &host,
            url: url.as_str(),
            ai,
            app,
            page: &page,
        };
        if let Some(c) = level
            .map(|l| self.extract(&ctx, &mut st, l, &mut out))
            .transpose()?
            .flatten()
        {
            let (k, v) = RelaxStore::capture_entry(&host, url.as_str(), &c)?;
            learned.put(k, v);
        }
        out.links = self.navigate(&ctx, &mut st, level, url, links, &mut out.actions);
        let taught = self.taught(host, st, None, &mut learned)?;
        Ok((Reading { app: out, learned }, taught))
    }

    /// Categories the page looks like (two or more words of their level detection patterns),
    /// most evidence first.
    fn looks_like(&self, words: &PageWords) -> Vec<Category> {
        let mut v: Vec<(usize, Category)> = self
            .category_words
            .iter()
            .map(|(c, ids)| (ids.iter().filter(|&&i| words.present(i)).count(), *c))
            .filter(|(n, _)| *n >= 2)
            .collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.0));
        v.into_iter().map(|(_, c)| c).collect()
    }

    /// What the helper remembers of a host: from memory, else from what earlier runs
    /// committed to the store.
    pub(crate) fn host_state(&self, host: &str) -> Result<HostState, AahError> {
        let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = hosts.get(host) {
            return Ok(s.clone());
        }
        drop(hosts);
        let mut s = HostState::default();
        if let Some(store) = &self.store {
            s.adoptions = store.adoptions(Some(host))?;
            let id = store.app(host)?;
            s.app = id.and_then(|id| self.kb.apps.iter().position(|a| a.id == id));
        }
        Ok(s)
    }

    /// What a page taught about its host, for [`Helper::learn`]; its new adoptions also as
    /// entries in `learned`, for the store.
    fn taught(
        &self,
        host: String,
        mut st: HostState,
        unknown: Option<Unknown>,
        learned: &mut WriteSet,
    ) -> Result<Taught, AahError> {
        for a in std::mem::take(&mut st.new_adoptions) {
            tracing::info!(
                host = %a.host,
                application = %a.application,
                action = %a.action,
                original = %a.original,
                relaxed = %a.relaxed,
                source = %a.source,
                pages = a.validated_on.len(),
                "adopted a relaxed expression"
            );
            if self.store.is_some() {
                let (k, v) = RelaxStore::adoption_entry(&a)?;
                learned.put(k, v);
            }
        }
        Ok(Taught::new(host, st, unknown))
    }
}

/// What the action runners share for one page.
pub(crate) struct Ctx<'a, 'd> {
    pub(crate) host: &'a str,
    pub(crate) url: &'a str,
    pub(crate) ai: usize,
    pub(crate) app: &'a Application,
    pub(crate) page: &'a Page<'d>,
}

/// The first XPath condition of a level's detection.
pub(crate) fn first_xpath(level: &Level) -> Option<String> {
    level.detect.conditions.iter().find_map(|c| match c {
        Condition::XPath(e) => Some(e.src.clone()),
        _ => None,
    })
}

pub(crate) fn report(
    action: &str,
    status: ActionStatus,
    expr: &str,
    original: Option<&str>,
) -> ActionReport {
    ActionReport {
        action: action.to_owned(),
        status,
        expr: expr.to_owned(),
        original: original.map(str::to_owned),
    }
}

/// Follow verdicts for every navigation link (nothing detected).
pub(crate) fn default_verdicts(links: &[Link]) -> Vec<super::output::LinkVerdict> {
    links
        .iter()
        .filter(|l| l.hop == crate::model::Hop::Link)
        .map(|l| super::output::LinkVerdict {
            url: l.url.clone(),
            action: super::output::LinkAction::Follow,
            boost: None,
            rule: super::output::DEFAULT_RULE.into(),
            instead: None,
        })
        .collect()
}

/// The largest char boundary not after `max`.
fn floor_char(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}
