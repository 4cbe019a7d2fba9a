//! Copies of a page under other URLs: the variant rules a crawl learns per host, so that URL
//! variants serving the same content (`?ref=sidebar`, `?utm_source=…`, `?sid=…`, `/print/…`)
//! do not cost the page budget twice.
//!
//! A variant differs from another URL of the same host by one query parameter (present in one,
//! absent or with another value in the other) or by one path segment (the first or the last:
//! `/print/a.html` against `/a.html`, `/a/print/` against `/a/`). Every fetched 2xx page is
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
use std::collections::{BTreeMap, HashMap, VecDeque};
use url::Url;

mod variant;
pub use variant::{reductions, Variant};

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
    /// `param:NAME` (a query parameter) or `segment:NAME` (a first or last path segment).
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

/// What the hosts learnt about one rule name, together. Before any host has adopted a rule,
/// every host meets it at once at the start of a crawl and each would fetch its own examples;
/// a name with [`EXAMPLES_TO_ADOPT`] examples over at least two hosts and no counter-example
/// anywhere is *likely*, so the other hosts' variants of it wait last (see [`Copies::suspect`])
/// instead of being fetched as examples. Only adoption on a host skips a URL.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    examples: u32,
    hosts: u32,
    refuted: bool,
}

impl Tally {
    fn likely(self) -> bool {
        !self.refuted && self.examples >= EXAMPLES_TO_ADOPT && self.hosts >= 2
    }
}

/// A fetched page in the window.
struct Seen {
    url: String,
    digest: String,
}

/// The pages fetched last, and which of them are variants of which URL.
#[derive(Default)]
struct Window {
    pages: HashMap<u64, Seen>,
    /// By the fingerprint of the URL copied: the variants fetched, with their rule.
    variants: HashMap<u64, Vec<(Variant, u64)>>,
    /// Oldest first: a page and the URLs it is a variant of.
    order: VecDeque<(u64, Vec<u64>)>,
}

impl Window {
    fn evict(&mut self) {
        while self.order.len() > WINDOW {
            let Some((fp, originals)) = self.order.pop_front() else {
                return;
            };
            self.pages.remove(&fp);
            for o in originals {
                if let Some(list) = self.variants.get_mut(&o) {
                    list.retain(|(_, v)| *v != fp);
                    if list.is_empty() {
                        self.variants.remove(&o);
                    }
                }
            }
        }
    }
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
    pub(super) fn load(frontier: &crate::frontier::Frontier) -> Result<Copies, CrawlError> {
        let what = "the learned copy rules";
        let stored: Stored =
            super::state::read_json(frontier, &Key::Meta(Meta::CopyRules).bytes(), what)?
                .unwrap_or_default();
        let mut hosts = BTreeMap::new();
        for (host, rules) in stored {
            let mut m = BTreeMap::new();
            for (name, rule) in rules {
                let v = Variant::parse(&name).ok_or_else(|| {
                    frontier.damaged(format!("{what}: host {host:?} has a rule named {name:?}"))
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

    /// Whether a rule named `v` is in force on a host other than `host`.
    fn adopted_elsewhere(&self, host: &str, v: &Variant) -> bool {
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
        let tally = self.names.entry(v.clone()).or_default();
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

    /// Whether `url`, about to be queued on `host`, is a copy to skip: the rule that makes it
    /// one, when an adopted rule matches it and its original is known (`known` is asked with
    /// the original's fingerprint: queued or fetched) or another variant of it was let through;
    /// or when `url` is itself the original of a variant, under a rule in force, that was let
    /// through or fetched (the page is archived under that variant). A matching URL that is let
    /// through stands for its original from then on.
    pub fn skip(&mut self, host: &str, url: &Url, known: impl Fn(u64) -> bool) -> Option<Variant> {
        let rules = self.hosts.get_mut(host)?;
        let fp = fingerprint(url);
        let fetched = self.window.variants.get(&fp).into_iter().flatten();
        let standing = fetched
            .map(|(v, _)| v)
            .chain(self.represented.get(&fp))
            .find(|v| rules.get(*v).is_some_and(|r| r.state == RuleState::Adopted))
            .cloned();
        if let Some(v) = standing {
            if let Some(rule) = rules.get_mut(&v) {
                rule.skipped += 1;
            }
            self.dirty = true;
            return Some(v);
        }
        let adopted_here: Vec<Variant> = rules
            .iter()
            .filter(|(_, r)| r.state == RuleState::Adopted)
            .map(|(v, _)| v.clone())
            .collect();
        let mut through = None;
        for (v, rule) in rules.iter_mut() {
            if rule.state != RuleState::Adopted {
                continue;
            }
            let Some(orig) = v.original(url) else {
                continue;
            };
            let ofp = fingerprint(&orig);
            // A variant of the original fetched under a rule in force also holds its page.
            let held = self
                .window
                .variants
                .get(&ofp)
                .is_some_and(|l| l.iter().any(|(w, _)| w != v && adopted_here.contains(w)));
            if known(ofp) || held || self.represented.contains_key(&ofp) {
                rule.skipped += 1;
                self.dirty = true;
                return Some(v.clone());
            }
            through.get_or_insert((ofp, v.clone()));
        }
        if let Some((ofp, v)) = through {
            if self.represented.len() < MAX_REPRESENTED {
                self.represented.insert(ofp, v);
            }
        }
        None
    }

    /// Whether `url`, about to be queued on `host` (or queued there), is likely a copy: a rule
    /// of its name is in force on another host, not yet decided on this one, and the URL it
    /// would copy is queued or fetched here; or `url` is the original of a variant fetched
    /// here under such a rule. Such a URL is queued at the lowest priority: fetched when its
    /// host has nothing better, where it serves as an example, so a rule other hosts confirmed
    /// costs this host its examples only when its better URLs are fetched.
    pub fn suspect(&self, host: &str, url: &Url, known: impl Fn(u64) -> bool) -> bool {
        if !self.any() {
            return false;
        }
        let rules = self.hosts.get(host);
        let undecided_here = |v: &Variant| {
            rules
                .and_then(|r| r.get(v))
                .is_none_or(|r| r.state == RuleState::Candidate)
        };
        // The page was fetched under a variant: likely archived already.
        let held = self
            .window
            .variants
            .get(&fingerprint(url))
            .is_some_and(|l| {
                l.iter()
                    .any(|(v, _)| undecided_here(v) && self.in_force_elsewhere(host, v))
            });
        if held {
            return true;
        }
        // A variant, under a rule in force here, of a page fetched only under a variant of
        // another kind, still undecided here: it waits, in case that rule is adopted (then it
        // is dropped from the queue as a copy).
        let in_force = |v: &Variant| {
            rules
                .and_then(|r| r.get(v))
                .is_some_and(|r| r.state == RuleState::Adopted)
        };
        let waits = rules.is_some_and(|r| r.values().any(|r| r.state == RuleState::Adopted))
            && reductions(url).into_iter().any(|(v, orig)| {
                in_force(&v)
                    && self
                        .window
                        .variants
                        .get(&fingerprint(&orig))
                        .is_some_and(|l| l.iter().any(|(w, _)| *w != v && !in_force(w)))
            });
        if waits {
            return true;
        }
        reductions(url).into_iter().any(|(v, orig)| {
            undecided_here(&v) && self.in_force_elsewhere(host, &v) && known(fingerprint(&orig))
        })
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

    /// Whether `host` has a rule in force.
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
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn reductions_drop_one_parameter_or_an_end_segment() {
        let r = reductions(&u("http://h/a/b.html?ref=side&id=7"));
        let names: Vec<(String, String)> =
            r.iter().map(|(v, u)| (v.name(), u.to_string())).collect();
        assert!(names.contains(&("param:ref".into(), "http://h/a/b.html?id=7".into())));
        assert!(names.contains(&("param:id".into(), "http://h/a/b.html?ref=side".into())));
        assert!(names.contains(&("segment:a".into(), "http://h/b.html?ref=side&id=7".into())));
        // `b.html` is a file name, not a word: never a segment rule.
        assert_eq!(names.len(), 3, "{names:?}");
        let p = reductions(&u("http://h/story/x/print/"));
        assert!(p
            .iter()
            .any(|(v, o)| v.name() == "segment:print" && o.as_str() == "http://h/story/x/"));
        assert_eq!(
            Variant::Param("ref".into())
                .original(&u("http://h/a?ref=1"))
                .unwrap()
                .as_str(),
            "http://h/a"
        );
        assert_eq!(
            Variant::Segment("print".into())
                .original(&u("http://h/print/a/b.html"))
                .unwrap()
                .as_str(),
            "http://h/a/b.html"
        );
        assert_eq!(
            Variant::Param("x".into()).original(&u("http://h/a?y=1")),
            None
        );
        assert_eq!(Variant::parse("param:a,b"), None);
        assert_eq!(
            Variant::parse("param:utm_source").unwrap().name(),
            "param:utm_source"
        );
    }

    #[test]
    fn a_rule_is_adopted_after_three_examples_and_then_skips_known_originals() {
        let mut c = Copies::default();
        let mut adopted = vec![];
        for i in 0..3 {
            let orig = u(&format!("http://h/s/{i}.html"));
            let copy = u(&format!("http://h/s/{i}.html?ref=sidebar"));
            assert!(c.observe("h", &orig, &format!("sha1:{i}")).is_empty());
            let ch = c.observe("h", &copy, &format!("sha1:{i}"));
            assert!(ch.contains(&Change::Example(Variant::Param("ref".into()))));
            adopted.extend(ch.into_iter().filter(|c| matches!(c, Change::Adopted(_))));
        }
        assert_eq!(adopted, vec![Change::Adopted(Variant::Param("ref".into()))]);
        let views = c.views();
        assert_eq!(views.len(), 1);
        assert_eq!((views[0].state, views[0].examples), (RuleState::Adopted, 3));
        assert_eq!(views[0].evidence.len(), 3);
        // The original is known: skipped. Unknown: let through once, then its other variants
        // are skipped. Other hosts are not affected.
        let known = fingerprint(&u("http://h/s/9.html"));
        let is_known = |fp| fp == known;
        let v = c.skip("h", &u("http://h/s/9.html?ref=top"), is_known);
        assert_eq!(v, Some(Variant::Param("ref".into())));
        assert_eq!(c.skip("h", &u("http://h/s/8.html?ref=a"), is_known), None);
        assert!(c
            .skip("h", &u("http://h/s/8.html?ref=b"), is_known)
            .is_some());
        assert_eq!(c.skip("h", &u("http://h/s/7.html"), is_known), None);
        // The original of a variant let through, or of one fetched, is the copy now.
        assert!(c.skip("h", &u("http://h/s/8.html"), is_known).is_some());
        c.observe("h", &u("http://h/s/6.html?ref=x"), "sha1:6");
        assert!(c.skip("h", &u("http://h/s/6.html"), is_known).is_some());
        assert_eq!(c.skip("g", &u("http://g/s/9.html?ref=top"), |_| true), None);
        assert_eq!(c.views()[0].skipped, 4);
        // Another host with the same parameter needs two examples.
        for i in 0..2 {
            c.observe("g", &u(&format!("http://g/{i}")), &format!("sha1:g{i}"));
            let ch = c.observe(
                "g",
                &u(&format!("http://g/{i}?ref=x")),
                &format!("sha1:g{i}"),
            );
            assert_eq!(ch.len(), 1 + usize::from(i == 1), "{ch:?}");
        }
        assert!(c.any_adopted("g"));
        // Two examples on a third host before the rule was adopted anywhere: adopted with that
        // host's next fetch once it is.
        let mut c = Copies::default();
        for i in 0..2 {
            c.observe("k", &u(&format!("http://k/{i}")), &format!("sha1:k{i}"));
            c.observe(
                "k",
                &u(&format!("http://k/{i}?ref=x")),
                &format!("sha1:k{i}"),
            );
        }
        for i in 0..3 {
            c.observe("h", &u(&format!("http://h/{i}")), &format!("sha1:{i}"));
            c.observe(
                "h",
                &u(&format!("http://h/{i}?ref=x")),
                &format!("sha1:{i}"),
            );
        }
        assert!(!c.any_adopted("k"));
        let ch = c.observe("k", &u("http://k/other"), "sha1:o");
        assert_eq!(ch, vec![Change::Adopted(Variant::Param("ref".into()))]);
        assert!(c.any_adopted("k"));
    }

    #[test]
    fn a_counter_example_refutes_a_rule_in_either_order_and_for_good() {
        let mut c = Copies::default();
        // The variant first, then its original with another payload.
        c.observe("h", &u("http://h/list?page=2"), "sha1:P2");
        let ch = c.observe("h", &u("http://h/list"), "sha1:P1");
        assert!(ch.is_empty(), "{ch:?}");
        for i in 0..5 {
            c.observe("h", &u(&format!("http://h/{i}?page=2")), "sha1:same");
            c.observe("h", &u(&format!("http://h/{i}")), "sha1:same");
        }
        assert!(!c.any_adopted("h"));
        let v = &c.views()[0];
        assert_eq!(
            (v.state, v.examples, v.counter_examples),
            (RuleState::Refuted, 5, 1)
        );
        assert_eq!(
            v.counter_evidence.as_ref().unwrap().variant,
            "http://h/list?page=2"
        );
        // An adopted rule refuted later stops skipping.
        let mut c = Copies::default();
        for i in 0..3 {
            c.observe("h", &u(&format!("http://h/{i}")), "sha1:a");
            c.observe("h", &u(&format!("http://h/{i}?sid=1")), "sha1:a");
        }
        assert!(c.any_adopted("h"));
        c.observe("h", &u("http://h/x?sid=1"), "sha1:b");
        let ch = c.observe("h", &u("http://h/x"), "sha1:c");
        assert_eq!(ch, vec![Change::Refuted(Variant::Param("sid".into()))]);
        assert_eq!(c.skip("h", &u("http://h/y?sid=1"), |_| true), None);
    }

    #[test]
    fn a_rule_in_force_elsewhere_makes_suspects_until_decided_here() {
        let mut c = Copies::default();
        let url = u("http://g/x?ref=a");
        assert!(!c.suspect("g", &url, |_| true), "no rule anywhere");
        for i in 0..3 {
            c.observe("h", &u(&format!("http://h/{i}")), &format!("sha1:{i}"));
            c.observe(
                "h",
                &u(&format!("http://h/{i}?ref=a")),
                &format!("sha1:{i}"),
            );
        }
        assert!(c.suspect("g", &url, |_| true));
        assert!(!c.suspect("g", &url, |_| false), "its original is unknown");
        assert!(
            !c.suspect("h", &u("http://h/y?ref=a"), |_| true),
            "decided there"
        );
        // Refuted on g: no longer a suspect there.
        c.observe("g", &u("http://g/z?ref=a"), "sha1:1");
        c.observe("g", &u("http://g/z"), "sha1:2");
        assert!(!c.suspect("g", &url, |_| true));
    }

    #[test]
    fn examples_on_two_hosts_make_a_name_likely_until_a_counter_example() {
        let mut c = Copies::default();
        let mut likely = vec![];
        for (host, i) in [("h", 0), ("h", 1), ("k", 2)] {
            c.observe(
                host,
                &u(&format!("http://{host}/{i}")),
                &format!("sha1:{i}"),
            );
            let ch = c.observe(
                host,
                &u(&format!("http://{host}/{i}?ref=a")),
                &format!("sha1:{i}"),
            );
            likely.extend(ch.into_iter().filter(|c| matches!(c, Change::Likely(_))));
        }
        assert_eq!(likely, vec![Change::Likely(Variant::Param("ref".into()))]);
        assert!(c.any() && !c.any_adopted("h") && !c.any_adopted("k"));
        // On a third host: a variant of a known page waits last, and so does the original
        // of a variant fetched there; nothing is skipped before a host adopts the rule.
        assert!(c.suspect("g", &u("http://g/x?ref=b"), |_| true));
        assert!(!c.suspect("g", &u("http://g/x"), |_| true));
        c.observe("g", &u("http://g/y?ref=b"), "sha1:y");
        assert!(c.suspect("g", &u("http://g/y"), |_| false));
        assert_eq!(c.skip("g", &u("http://g/x?ref=b"), |_| true), None);
        // Examples on one host alone do not make a name likely.
        let mut one = Copies::default();
        for i in 0..2 {
            one.observe("h", &u(&format!("http://h/{i}")), "sha1:a");
            one.observe("h", &u(&format!("http://h/{i}?ref=a")), "sha1:a");
        }
        assert!(!one.any());
        // A counter-example on any host ends it.
        c.observe("k", &u("http://k/z?ref=a"), "sha1:1");
        c.observe("k", &u("http://k/z"), "sha1:2");
        assert!(!c.any());
        assert!(!c.suspect("g", &u("http://g/x?ref=b"), |_| true));
    }

    #[test]
    fn a_page_fetched_under_one_kind_of_variant_is_not_fetched_under_another() {
        let mut c = Copies::default();
        for i in 0..3 {
            for v in ["?ref=a", "", "/print"] {
                let (path, q) = if v.starts_with('?') { ("", v) } else { (v, "") };
                c.observe(
                    "h",
                    &u(&format!("http://h{path}/s/{i}.html{q}")),
                    &format!("sha1:{i}"),
                );
            }
        }
        assert!(c.any_adopted("h"));
        // `x` fetched only as `?ref=`; both rules in force: its print view is a copy.
        c.observe("h", &u("http://h/s/x.html?ref=b"), "sha1:x");
        let print = u("http://h/print/s/x.html");
        assert!(c.skip("h", &print, |_| false).is_some());
        // With `ref` undecided on another host, the print view waits instead.
        c.observe("g", &u("http://g/s/y.html?ref=b"), "sha1:y");
        for i in 0..3 {
            c.observe(
                "g",
                &u(&format!("http://g/s/{i}.html")),
                &format!("sha1:g{i}"),
            );
            c.observe(
                "g",
                &u(&format!("http://g/print/s/{i}.html")),
                &format!("sha1:g{i}"),
            );
        }
        let print = u("http://g/print/s/y.html");
        assert_eq!(c.skip("g", &print, |_| false), None);
        assert!(c.suspect("g", &print, |_| false));
    }

    #[test]
    fn variants_of_one_url_are_compared_with_each_other() {
        // Session parameters on every link: the bare URL is never fetched.
        let mut c = Copies::default();
        for i in 0..3 {
            c.observe(
                "h",
                &u(&format!("http://h/{i}?sid=A")),
                &format!("sha1:{i}"),
            );
            c.observe(
                "h",
                &u(&format!("http://h/{i}?sid=B")),
                &format!("sha1:{i}"),
            );
        }
        assert!(c.any_adopted("h"));
    }

    #[test]
    fn a_refutation_of_a_likely_name_survives_a_restart() {
        let spec = crate::spec::Spec::from_json(r#"{"name":"t","seeds":["http://h/"]}"#).unwrap();
        let store = crate::store::Store::temporary().unwrap();
        let open =
            || crate::frontier::Frontier::open(store.clone(), spec.frontier.clone()).unwrap();
        let mut c = Copies::load(&open()).unwrap();
        for (host, i) in [("h", 0), ("h", 1), ("k", 2)] {
            c.observe(host, &u(&format!("http://{host}/{i}")), "sha1:x");
            c.observe(host, &u(&format!("http://{host}/{i}?ref=a")), "sha1:x");
        }
        assert!(c.any());
        // Refuted on a host where it had no example: the name is no longer likely, and stays so.
        c.observe("g", &u("http://g/z?ref=a"), "sha1:1");
        c.observe("g", &u("http://g/z"), "sha1:2");
        assert!(!c.any());
        let (k, v) = c.entry().unwrap().unwrap();
        let mut ws = crate::store::WriteSet::default();
        ws.put(k, v);
        store.commit(ws).unwrap();
        let again = Copies::load(&open()).unwrap();
        assert!(!again.any(), "the refutation on g was kept");
    }

    #[test]
    fn the_rules_survive_a_restart_and_damage_is_named() {
        let spec = crate::spec::Spec::from_json(r#"{"name":"t","seeds":["http://h/"]}"#).unwrap();
        let store = crate::store::Store::temporary().unwrap();
        let open =
            || crate::frontier::Frontier::open(store.clone(), spec.frontier.clone()).unwrap();
        let mut c = Copies::load(&open()).unwrap();
        for i in 0..3 {
            c.observe("h", &u(&format!("http://h/p/{i}")), "sha1:x");
            c.observe("h", &u(&format!("http://h/print/p/{i}")), "sha1:x");
        }
        // Segment candidates refuted without an example are not written.
        c.observe("h", &u("http://h/a/b"), "sha1:1");
        c.observe("h", &u("http://h/a"), "sha1:2");
        let (k, v) = c.entry().unwrap().unwrap();
        assert!(c.entry().unwrap().is_none(), "written once per change");
        assert!(!String::from_utf8_lossy(&v).contains("segment:b"));
        let mut ws = crate::store::WriteSet::default();
        ws.put(k.clone(), v);
        store.commit(ws).unwrap();
        let again = Copies::load(&open()).unwrap();
        assert!(again.any_adopted("h"));
        assert_eq!(again.views(), c.views());
        let mut ws = crate::store::WriteSet::default();
        ws.put(k, br#"{"h":{"query:x":{}}}"#.to_vec());
        store.commit(ws).unwrap();
        let frontier = open();
        let err = Copies::load(&frontier).err().unwrap().to_string();
        assert!(err.contains("copy rules"), "{err}");
    }
}
