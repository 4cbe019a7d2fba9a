//! Copies of a page under other URLs: the variant rules a crawl learns per host, so that URL
//! variants serving the same content (`?ref=sidebar`, `?utm_source=…`, `?sid=…`, `/print/…`)
//! do not cost the page budget twice.
//!
//! A variant differs from another URL of the same host by one query parameter (present in one,
//! absent or with another value in the other), by one path segment (the first or the last:
//! `/print/a.html` against `/a.html`, `/a/print/` against `/a/`) or by a final slash
//! (`/a/` against `/a`, both answered with the page). Every fetched 2xx page is
//! compared with the recently fetched pages it is such a variant of: the same payload digest is
//! an example of the rule (`param:ref`, `segment:print`), a different one a counter-example.
//! A rule with [`EXAMPLES_TO_ADOPT`] examples and no counter-example is adopted (one with the
//! same name adopted on another host needs [`EXAMPLES_ELSEWHERE`]); one counter-example refutes
//! a rule for good, even an adopted one. Evidence is only taken, never guessed: a parameter
//! named like a tracker is learnt like any other.
//!
//! An adopted rule skips a URL it matches when the URL it is a variant of (the same URL without
//! the parameter or segment) is queued or fetched already, or when another variant of that URL
//! was let through: the content is archived under that URL, so skipping loses nothing the
//! archive would hold. A variant whose original is unknown is queued as usual, since it may be
//! the only way to its content. Skipped URLs are blacklisted in the frontier, once each.
//!
//! Data flows one way: workers return the payload digest with the records; the engine owns this
//! learner, feeds it every fetched page, asks it about every URL it admits, and stages its rules
//! with the crawl's state (`copy_rules` in the store) when they change. The window of recently
//! fetched pages is not kept: after a restart, learning goes on from the pages fetched then.

use super::CrawlError;
use crate::store::{Entry, Key, Meta};
use crate::uri;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use url::Url;

mod ask;
mod tally;
mod variant;
mod window;
use tally::Tally;
pub use variant::{reductions, Variant};
use window::{Seen, Window};

/// Examples that adopt a rule on a host.
pub const EXAMPLES_TO_ADOPT: u32 = 3;
/// Examples that adopt a rule on a host when a rule of the same name is adopted on another
/// host: fewer, since the site software is likely the same, but more than one, since one
/// page can ignore a parameter that others do not (`?page=2` of a one-page list).
pub const EXAMPLES_ELSEWHERE: u32 = 2;
/// Pages remembered for comparison (URL, digest and variants: about 200 bytes each).
const WINDOW: usize = 32_768;
/// Rules (candidates included) kept per host; further names are not learnt there.
const MAX_RULES_PER_HOST: usize = 64;
/// Example pairs kept per rule as evidence.
const MAX_EVIDENCE: usize = 3;
/// Variants of one URL compared with each new variant of it.
const MAX_SIBLINGS: usize = 4;
/// URLs let through as the one variant of their original (see the module documentation):
/// about 80 bytes each.
const MAX_REPRESENTED: usize = 1 << 18;
/// Longest URL kept as evidence (longer ones are cut, marked `…`).
const MAX_EVIDENCE_URL: usize = 300;

/// Where a rule stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RuleState {
    /// Examples seen, not enough yet.
    Candidate,
    /// In force: URLs it matches are skipped when their original is known.
    Adopted,
    /// A counter-example was seen: never adopted (again) in this crawl.
    Refuted,
}

/// One pair of URLs a rule was judged on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Evidence {
    /// The URL with the parameter or segment.
    pub variant: String,
    /// The URL it was compared with.
    pub original: String,
    /// The variant's payload digest (`sha1:…`); for a counter-example, the two differ.
    pub digest: String,
}

/// A rule's record, as kept with the crawl.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Rule {
    state: RuleState,
    examples: u32,
    counter_examples: u32,
    evidence: Vec<Evidence>,
    counter_evidence: Option<Evidence>,
    skipped: u64,
}

impl Rule {
    fn new() -> Rule {
        Rule {
            state: RuleState::Candidate,
            examples: 0,
            counter_examples: 0,
            evidence: Vec::new(),
            counter_evidence: None,
            skipped: 0,
        }
    }
}

/// A rule as the cockpit, the API and `--json` show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CopyRule {
    /// The host it applies to.
    pub host: String,
    /// `param:NAME` (a query parameter), `segment:NAME` (a first or last path segment) or
    /// `slash:final` (a final slash).
    pub rule: String,
    /// `candidate`, `adopted` or `refuted`.
    pub state: RuleState,
    /// Fetched pairs with the same payload.
    pub examples: u32,
    /// Fetched pairs with different payloads.
    pub counter_examples: u32,
    /// Examples that adopt it on this host.
    pub needed: u32,
    /// URLs it kept from being fetched.
    pub skipped: u64,
    /// Example pairs (the first few).
    pub evidence: Vec<Evidence>,
    /// The first counter-example.
    pub counter_evidence: Option<Evidence>,
}

/// What one fetched page taught, for the crawl log and the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The page is a copy of another fetched page under this rule.
    Example(Variant),
    /// The rule was adopted, with this page as its last example.
    Adopted(Variant),
    /// A pair with different payloads refuted a rule in force.
    Refuted(Variant),
    /// The rule's name became likely crawl-wide (see [`Tally`]), with this page's example.
    Likely(Variant),
}

/// The crawl's variant rules, per host, and the window they are learnt from.
#[derive(Default)]
pub struct Copies {
    hosts: BTreeMap<String, BTreeMap<Variant, Rule>>,
    window: Window,
    /// Originals (fingerprints) a variant was let through for, with the rule.
    represented: HashMap<u64, Variant>,
    /// Rules in force, over all hosts.
    adopted: usize,
    /// Hosts each rule name is in force on.
    adopted_names: HashMap<Variant, usize>,
    /// Each rule name's evidence over all hosts.
    names: HashMap<Variant, Tally>,
    /// Names likely crawl-wide.
    likely_names: usize,
    /// Rules changed since they were last staged.
    dirty: bool,
}

/// The form kept in the store.
type Stored = BTreeMap<String, BTreeMap<String, Rule>>;

fn cut(url: &str) -> String {
    if url.len() <= MAX_EVIDENCE_URL {
        return url.to_string();
    }
    let mut end = MAX_EVIDENCE_URL;
    while !url.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &url[..end])
}

fn fingerprint(url: &Url) -> u64 {
    uri::fingerprint(&uri::canonical(url))
}

impl Copies {
    /// The rules stored by earlier runs; a value that does not decode, or names a rule this
    /// module would not learn, is damage, named.
    pub(super) fn load(store: &crate::store::Store) -> Result<Copies, CrawlError> {
        let what = "the learned copy rules";
        let stored: Stored =
            super::state::read_json(store, &Key::Meta(Meta::CopyRules).bytes(), what)?
                .unwrap_or_default();
        let mut hosts = BTreeMap::new();
        for (host, rules) in stored {
            let mut m = BTreeMap::new();
            for (name, rule) in rules {
                let v = Variant::parse(&name).ok_or_else(|| {
                    store.damaged(format!("{what}: host {host:?} has a rule named {name:?}"))
                })?;
                m.insert(v, rule);
            }
            hosts.insert(host, m);
        }
        let mut adopted_names: HashMap<Variant, usize> = HashMap::new();
        let mut names: HashMap<Variant, Tally> = HashMap::new();
        for rules in hosts.values() {
            for (v, r) in rules {
                if r.state == RuleState::Adopted {
                    *adopted_names.entry(v.clone()).or_default() += 1;
                }
                if !v.crawl_wide() {
                    continue;
                }
                let t = names.entry(v.clone()).or_default();
                t.examples += r.examples;
                t.hosts += u32::from(r.examples > 0);
                t.refuted |= r.counter_examples > 0;
            }
        }
        Ok(Copies {
            hosts,
            adopted: adopted_names.values().sum(),
            adopted_names,
            likely_names: names.values().filter(|t| t.likely()).count(),
            names,
            ..Copies::default()
        })
    }

    /// Whether a rule named `v` is in force on a host other than `host` (see
    /// [`Variant::crawl_wide`]).
    fn adopted_elsewhere(&self, host: &str, v: &Variant) -> bool {
        if !v.crawl_wide() {
            return false;
        }
        let here = self
            .hosts
            .get(host)
            .and_then(|r| r.get(v))
            .is_some_and(|r| r.state == RuleState::Adopted);
        self.adopted_names.get(v).copied().unwrap_or(0) > usize::from(here)
    }

    /// Whether `v` is in force on another host, or likely crawl-wide (see [`Tally`]).
    fn in_force_elsewhere(&self, host: &str, v: &Variant) -> bool {
        self.adopted_elsewhere(host, v) || self.likely(v)
    }

    /// Examples that adopt `v` on `host`.
    fn needed(&self, host: &str, v: &Variant) -> u32 {
        if self.adopted_elsewhere(host, v) {
            EXAMPLES_ELSEWHERE
        } else {
            EXAMPLES_TO_ADOPT
        }
    }

    /// Learns from a fetched page: a complete 2xx response of `host` at `url` with the payload
    /// digest `digest`. Returns what it taught (nothing for a URL fetched before).
    pub fn observe(&mut self, host: &str, url: &Url, digest: &str) -> Vec<Change> {
        let mut changes = self.adopt_confirmed_elsewhere(host);
        let fp = fingerprint(url);
        if self.window.pages.contains_key(&fp) {
            return changes;
        }
        let mut pairs: Vec<(Variant, String, String)> = Vec::new();
        let mut originals = Vec::new();
        for (v, orig) in reductions(url) {
            let ofp = fingerprint(&orig);
            if let Some(o) = self.window.pages.get(&ofp) {
                pairs.push((v.clone(), o.url.clone(), o.digest.clone()));
            }
            let siblings = self.window.variants.entry(ofp).or_default();
            for (sv, sfp) in siblings
                .iter()
                .filter(|(sv, _)| *sv == v)
                .take(MAX_SIBLINGS)
            {
                if let Some(s) = self.window.pages.get(sfp) {
                    pairs.push((sv.clone(), s.url.clone(), s.digest.clone()));
                }
            }
            siblings.push((v, fp));
            originals.push(ofp);
        }
        for (v, other, other_digest) in pairs {
            let same = other_digest == digest;
            let ev = Evidence {
                variant: cut(url.as_str()),
                original: cut(&other),
                digest: digest.to_string(),
            };
            self.judge(host, v, same, ev, &mut changes);
        }
        // Earlier variants of this page.
        if let Some(list) = self.window.variants.get(&fp) {
            let earlier: Vec<(Variant, String, String)> = list
                .iter()
                .filter_map(|(v, vfp)| {
                    let s = self.window.pages.get(vfp)?;
                    Some((v.clone(), s.url.clone(), s.digest.clone()))
                })
                .collect();
            for (v, vurl, vdigest) in earlier {
                let same = vdigest == digest;
                let ev = Evidence {
                    variant: cut(&vurl),
                    original: cut(url.as_str()),
                    digest: vdigest,
                };
                self.judge(host, v, same, ev, &mut changes);
            }
        }
        self.window.pages.insert(
            fp,
            Seen {
                url: url.as_str().to_string(),
                digest: digest.to_string(),
            },
        );
        self.window.order.push_back((fp, originals));
        self.window.evict();
        changes
    }

    /// Adopts the candidates of `host` that have the examples they need now that a rule of
    /// their name was adopted on another host since their last example (told with the host's
    /// next fetch, so that its crawl log line says so).
    fn adopt_confirmed_elsewhere(&mut self, host: &str) -> Vec<Change> {
        let Some(rules) = self.hosts.get(host) else {
            return vec![];
        };
        let ready: Vec<Variant> = rules
            .iter()
            .filter(|(v, r)| {
                r.state == RuleState::Candidate
                    && r.examples >= EXAMPLES_ELSEWHERE
                    && self.adopted_elsewhere(host, v)
            })
            .map(|(v, _)| v.clone())
            .collect();
        let mut out = Vec::new();
        for v in ready {
            if let Some(r) = self.hosts.get_mut(host).and_then(|r| r.get_mut(&v)) {
                r.state = RuleState::Adopted;
                self.adopted += 1;
                *self.adopted_names.entry(v.clone()).or_default() += 1;
                self.dirty = true;
                out.push(Change::Adopted(v));
            }
        }
        out
    }

    /// Counts one judged pair for rule `v` on `host`.
    fn judge(&mut self, host: &str, v: Variant, same: bool, ev: Evidence, out: &mut Vec<Change>) {
        let needed = self.needed(host, &v);
        let rules = self.hosts.entry(host.to_string()).or_default();
        if !rules.contains_key(&v) && rules.len() >= MAX_RULES_PER_HOST {
            return;
        }
        let rule = rules.entry(v.clone()).or_insert_with(Rule::new);
        // A name that is no evidence for other hosts is tallied apart, and never read.
        let mut apart = Tally::default();
        let tally = if v.crawl_wide() {
            self.names.entry(v.clone()).or_default()
        } else {
            &mut apart
        };
        let was_likely = tally.likely();
        if same {
            tally.examples += 1;
            tally.hosts += u32::from(rule.examples == 0);
            if !was_likely && tally.likely() {
                self.likely_names += 1;
                // Told only when no host has it in force: adoption moved the suspects then.
                if self.adopted_names.get(&v).is_none_or(|n| *n == 0) {
                    out.push(Change::Likely(v.clone()));
                }
            }
            rule.examples += 1;
            if rule.evidence.len() < MAX_EVIDENCE {
                rule.evidence.push(ev);
            }
            out.push(Change::Example(v.clone()));
            if rule.state == RuleState::Candidate && rule.examples >= needed {
                rule.state = RuleState::Adopted;
                self.adopted += 1;
                *self.adopted_names.entry(v.clone()).or_default() += 1;
                out.push(Change::Adopted(v));
            }
            self.dirty = true;
        } else {
            tally.refuted = true;
            self.likely_names -= usize::from(was_likely);
            rule.counter_examples += 1;
            if rule.counter_evidence.is_none() {
                rule.counter_evidence = Some(ev);
            }
            if rule.state == RuleState::Adopted {
                self.adopted -= 1;
                if let Some(n) = self.adopted_names.get_mut(&v) {
                    *n = n.saturating_sub(1);
                }
                out.push(Change::Refuted(v));
            }
            rule.state = RuleState::Refuted;
            // Candidates without examples are not kept with the crawl (see `entry`), unless
            // their name has examples elsewhere: the refutation keeps that name from being
            // likely after a restart.
            self.dirty |= rule.examples > 0 || tally.examples > 0;
        }
    }

    /// Whether the name `v` is likely over the hosts (see [`Tally`]).
    pub fn likely(&self, v: &Variant) -> bool {
        self.names.get(v).is_some_and(|t| t.likely())
    }

    /// Whether `v` is in force on exactly one host: just adopted for the first time.
    pub fn first_of_its_name(&self, v: &Variant) -> bool {
        self.adopted_names.get(v) == Some(&1)
    }

    /// Whether any host has a rule in force, or a rule name is likely crawl-wide (most
    /// crawls: none, and nothing to ask).
    pub fn any(&self) -> bool {
        self.adopted > 0 || self.likely_names > 0
    }

    /// Whether `host` has a rule in force (for the tests: the crawl asks per URL).
    #[cfg(test)]
    pub fn any_adopted(&self, host: &str) -> bool {
        self.hosts
            .get(host)
            .is_some_and(|r| r.values().any(|r| r.state == RuleState::Adopted))
    }

    /// The rules worth showing: those with examples, adopted ones first, then by host.
    pub fn views(&self) -> Vec<CopyRule> {
        let mut out: Vec<CopyRule> = self
            .hosts
            .iter()
            .flat_map(|(host, rules)| {
                rules
                    .iter()
                    .filter(|(_, r)| r.examples > 0)
                    .map(|(v, r)| CopyRule {
                        host: host.clone(),
                        rule: v.name(),
                        state: r.state,
                        examples: r.examples,
                        counter_examples: r.counter_examples,
                        needed: self.needed(host, v),
                        skipped: r.skipped,
                        evidence: r.evidence.clone(),
                        counter_evidence: r.counter_evidence.clone(),
                    })
            })
            .collect();
        out.sort_by_key(|r| r.state != RuleState::Adopted);
        out
    }

    /// When the rules changed since the last call: the store key and value that keep them
    /// (rules with examples only; candidates refuted without one are not worth a write).
    pub(super) fn entry(&mut self) -> Result<Option<Entry>, CrawlError> {
        if !std::mem::take(&mut self.dirty) {
            return Ok(None);
        }
        let stored: Stored = self
            .hosts
            .iter()
            .map(|(h, rules)| {
                let names = &self.names;
                let kept: BTreeMap<String, Rule> = rules
                    .iter()
                    .filter(|(v, r)| {
                        r.examples > 0
                            || (r.counter_examples > 0
                                && names.get(*v).is_some_and(|t| t.examples > 0))
                    })
                    .map(|(v, r)| (v.name(), r.clone()))
                    .collect();
                (h.clone(), kept)
            })
            .filter(|(_, r)| !r.is_empty())
            .collect();
        let v = super::state::to_json(&stored, "the learned copy rules")?;
        Ok(Some((Key::Meta(Meta::CopyRules).bytes(), v)))
    }
}

#[cfg(test)]
mod tests;
