//! Relaxation (ARCOMEM §4.1): when a detected application's action fails, or no application is
//! detected on a page that looks like a known category, relaxed versions of the knowledge-base
//! expressions are generated and tested on the page:
//! equality becomes `contains()`, `@class` and `@id` are swapped, attribute values and tag names
//! are substituted (from the same application, then the same category of the knowledge base,
//! then the page's own DOM, then other categories), `/` becomes `//`, and predicates are dropped
//! one at a time. Candidates are ordered by a cost that encodes that preference.
//!
//! - `path`: the structural view of expressions that the operators work on;
//! - `adapt`: the pending/adopted state machine and the relearning of actions on recrawls;
//! - `store`: the typed wrapper over the crawl store.

pub(crate) mod adapt;
pub(crate) mod path;
pub(crate) mod store;

use std::collections::{HashMap, HashSet};

use path::{Path, Pred, Step, Test};

use super::kb::{Category, Condition, KnowledgeBase};

/// Most candidates generated for one expression.
pub(crate) const MAX_CANDIDATES: usize = 400;

/// A relaxed expression and how far it strays from the original.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    /// The expression.
    pub(crate) expr: String,
    /// Lower is preferred.
    pub(crate) cost: u32,
}

/// One (tag, attribute, value) use in the knowledge base, with the role it plays.
#[derive(Debug, Clone)]
pub(crate) struct VocabEntry {
    pub(crate) app: usize,
    pub(crate) level: Option<usize>,
    pub(crate) category: Category,
    /// `field:<name>`, `object:<type>`, `nav:<name>` or `detect`.
    pub(crate) role: String,
    pub(crate) tag: String,
    pub(crate) attr: String,
    pub(crate) value: String,
}

/// Every (tag, attribute, value) the knowledge base uses, by role.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vocab {
    pub(crate) entries: Vec<VocabEntry>,
}

fn last_element_step(p: &Path) -> Option<&Step> {
    p.steps.iter().rev().find(|s| s.is_element())
}

impl Vocab {
    /// Collects the vocabulary of a knowledge base.
    pub(crate) fn build(kb: &KnowledgeBase) -> Vocab {
        let mut v = Vocab::default();
        for (ai, app) in kb.apps.iter().enumerate() {
            let mut add = |level: Option<usize>, role: String, src: &str, all_steps: bool| {
                let Some(paths) = path::parse(src) else {
                    return;
                };
                for p in &paths {
                    let steps: Vec<&Step> = if all_steps {
                        p.steps.iter().filter(|s| s.is_element()).collect()
                    } else {
                        last_element_step(p).into_iter().collect()
                    };
                    for st in steps {
                        for pr in &st.preds {
                            if let Pred::Attr { attr, value, .. } = pr {
                                v.entries.push(VocabEntry {
                                    app: ai,
                                    level,
                                    category: app.category,
                                    role: role.clone(),
                                    tag: st.test.clone(),
                                    attr: attr.clone(),
                                    value: value.clone(),
                                });
                            }
                        }
                    }
                }
            };
            for (li, level) in app.levels.iter().enumerate() {
                for c in &level.detect.conditions {
                    if let Condition::XPath(e) = c {
                        add(Some(li), "detect".into(), &e.src, true);
                    }
                }
                for o in &level.objects {
                    if let Some(r) = &o.root {
                        add(Some(li), format!("object:{}", o.kind), &r.src, false);
                    }
                    for f in &o.fields {
                        add(Some(li), format!("field:{}", f.name), &f.expr.src, false);
                    }
                }
                for n in &level.nav {
                    add(Some(li), format!("nav:{}", n.name), &n.expr.src, false);
                }
            }
            for n in &app.nav {
                add(None, format!("nav:{}", n.name), &n.expr.src, false);
            }
        }
        v
    }

    /// (tag, attr, value, cost) substitutes for a role, preferring the same application, then
    /// the same category, then the rest.
    pub(crate) fn sources(
        &self,
        role: &str,
        app: usize,
        category: Category,
    ) -> Vec<(String, String, String, u32)> {
        let mut out: Vec<(String, String, String, u32)> = Vec::new();
        for e in self.entries.iter().filter(|e| e.role == role) {
            let cost = if e.app == app {
                2
            } else if e.category == category {
                3
            } else {
                5
            };
            if !out
                .iter()
                .any(|(t, a, v, _)| *t == e.tag && *a == e.attr && *v == e.value)
            {
                out.push((e.tag.clone(), e.attr.clone(), e.value.clone(), cost));
            }
        }
        out.sort_by_key(|x| x.3);
        out
    }
}

/// The page's own vocabulary: class tokens and ids, each with the tags that carry it.
#[derive(Debug, Default)]
pub(crate) struct PageVocab {
    pub(crate) values: HashMap<(String, String), HashSet<String>>,
    pub(crate) tags: HashSet<String>,
}

/// Similarity of two attribute values in [0, 1]: shared `-`/`_`-separated words, or the
/// longest common prefix plus suffix, relative to the longer value; a common stem of four or
/// more characters scores at least 0.5.
pub(crate) fn similarity(a: &str, b: &str) -> f32 {
    if a == b {
        return 1.0;
    }
    let wa: HashSet<&str> = a.split(['-', '_', ' ']).filter(|w| !w.is_empty()).collect();
    let wb: HashSet<&str> = b.split(['-', '_', ' ']).filter(|w| !w.is_empty()).collect();
    let shared = wa.intersection(&wb).count() as f32;
    let words = shared / wa.len().max(wb.len()).max(1) as f32;
    let pre = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let suf = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let longest = a.len().max(b.len()).max(1);
    let ends = ((pre + suf).min(longest)) as f32 / longest as f32;
    // A shared stem of four or more characters (`posttitle`, `posthead`) is a family
    // resemblance worth testing.
    let stem = if pre >= 4 { 0.5 } else { 0.0 };
    words.max(ends).max(stem)
}

/// Generic tags worth trying in place of a tag that vanished.
const GENERIC_TAGS: [&str; 10] = [
    "div", "article", "section", "li", "span", "h1", "h2", "h3", "p", "td",
];

/// Generates relaxed candidates for one expression.
///
/// `first_failing` is the index of the first step that no longer matches (steps from there on
/// are relaxed; earlier steps still work and are kept). `sources` come from
/// [`Vocab::sources`]. Candidates are unique, differ from the original, and come sorted by cost.
pub(crate) fn candidates(
    original: &str,
    first_failing: impl Fn(&Path) -> usize,
    sources: &[(String, String, String, u32)],
    page: &PageVocab,
) -> Vec<Candidate> {
    let Some(paths) = path::parse(original) else {
        return Vec::new();
    };
    let mut out: Vec<Candidate> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    seen.insert(original.to_owned());
    for (bi, branch) in paths.iter().enumerate() {
        let k = first_failing(branch).min(branch.steps.len().saturating_sub(1));
        let mut variants: Vec<(Path, u32)> = Vec::new();
        for s in k..branch.steps.len() {
            if !branch.steps[s].is_element() {
                continue;
            }
            step_variants(branch, s, sources, page, &mut variants);
        }
        // A trailing attribute or text() step keeps its element step relaxable.
        for (p, cost) in variants {
            let mut union = paths.clone();
            union[bi] = p;
            if let Some(expr) = path::render(&union) {
                if seen.insert(expr.clone()) {
                    out.push(Candidate { expr, cost });
                }
            }
        }
    }
    out.sort_by_key(|c| c.cost);
    out.truncate(MAX_CANDIDATES);
    out
}

fn with_step(p: &Path, s: usize, step: Step) -> Path {
    let mut q = p.clone();
    q.steps[s] = step;
    q
}

fn step_variants(
    p: &Path,
    s: usize,
    sources: &[(String, String, String, u32)],
    page: &PageVocab,
    out: &mut Vec<(Path, u32)>,
) {
    let st = &p.steps[s];
    // Equality (and the exact-class idiom, starts-with) to contains.
    let loosened: Vec<Pred> = st.preds.iter().map(loosen).collect();
    if loosened != st.preds {
        out.push((
            with_step(
                p,
                s,
                Step {
                    preds: loosened.clone(),
                    ..st.clone()
                },
            ),
            1,
        ));
    }
    // `/` to `//` (an extra wrapper element, an inserted tbody).
    if st.sep == "/" {
        out.push((
            with_step(
                p,
                s,
                Step {
                    sep: "//",
                    preds: loosened.clone(),
                    ..st.clone()
                },
            ),
            1,
        ));
    }
    for (j, pr) in loosened.iter().enumerate() {
        let Pred::Attr { attr, value, .. } = pr else {
            continue;
        };
        // Swap @class and @id.
        let other = match attr.as_str() {
            "class" => Some("id"),
            "id" => Some("class"),
            _ => None,
        };
        if let Some(o) = other {
            let mut preds = loosened.clone();
            preds[j] = Pred::Attr {
                attr: o.to_owned(),
                test: Test::Contains,
                value: value.clone(),
            };
            out.push((
                with_step(
                    p,
                    s,
                    Step {
                        preds,
                        ..st.clone()
                    },
                ),
                2,
            ));
        }
        // Substitute values from the knowledge base.
        for (tag, a, v, cost) in sources {
            if v == value && a == attr && *tag == st.test {
                continue;
            }
            let mut preds = loosened.clone();
            preds[j] = Pred::Attr {
                attr: a.clone(),
                test: Test::Contains,
                value: v.clone(),
            };
            out.push((
                with_step(
                    p,
                    s,
                    Step {
                        preds: preds.clone(),
                        ..st.clone()
                    },
                ),
                *cost,
            ));
            if *tag != st.test {
                out.push((
                    with_step(
                        p,
                        s,
                        Step {
                            test: tag.clone(),
                            preds,
                            ..st.clone()
                        },
                    ),
                    *cost + 1,
                ));
            }
        }
        // Substitute similar values found in the page itself, with the tags that carry them.
        let mut similar: Vec<(f32, &(String, String), &HashSet<String>)> = page
            .values
            .iter()
            .filter(|((a, _), _)| a == "class" || a == "id")
            .map(|(k, tags)| (similarity(value, &k.1), k, tags))
            .filter(|(score, (_, v), _)| *score >= 0.5 && v != value)
            .collect();
        similar.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        for (score, (a, v), tags) in similar.into_iter().take(8) {
            let cost = 3 + ((1.0 - score) * 4.0) as u32;
            let mut preds = loosened.clone();
            preds[j] = Pred::Attr {
                attr: a.clone(),
                test: Test::Contains,
                value: v.clone(),
            };
            if tags.contains(&st.test) || st.test == "*" {
                out.push((
                    with_step(
                        p,
                        s,
                        Step {
                            preds: preds.clone(),
                            ..st.clone()
                        },
                    ),
                    cost,
                ));
            }
            let mut tags: Vec<&String> = tags.iter().collect();
            tags.sort();
            for t in tags.into_iter().take(3) {
                if *t != st.test {
                    out.push((
                        with_step(
                            p,
                            s,
                            Step {
                                test: t.clone(),
                                preds: preds.clone(),
                                ..st.clone()
                            },
                        ),
                        cost + 1,
                    ));
                }
            }
        }
        // Drop this predicate.
        let mut preds = loosened.clone();
        preds.remove(j);
        out.push((
            with_step(
                p,
                s,
                Step {
                    preds,
                    ..st.clone()
                },
            ),
            4,
        ));
    }
    // Substitute the tag (the page's tags first, then generic ones), keeping the predicates.
    if st.test != "*" && st.preds.iter().any(|p| matches!(p, Pred::Attr { .. })) {
        out.push((
            with_step(
                p,
                s,
                Step {
                    test: "*".into(),
                    preds: loosened.clone(),
                    ..st.clone()
                },
            ),
            3,
        ));
        for t in GENERIC_TAGS {
            if t != st.test && page.tags.contains(t) {
                out.push((
                    with_step(
                        p,
                        s,
                        Step {
                            test: t.into(),
                            preds: loosened.clone(),
                            ..st.clone()
                        },
                    ),
                    4,
                ));
            }
        }
    }
    if st.preds.len() > 1 {
        out.push((
            with_step(
                p,
                s,
                Step {
                    preds: Vec::new(),
                    ..st.clone()
                },
            ),
            6,
        ));
    }
}

fn loosen(p: &Pred) -> Pred {
    match p {
        Pred::Attr {
            attr,
            test: Test::Eq | Test::Token | Test::Starts,
            value,
        } => Pred::Attr {
            attr: attr.clone(),
            test: Test::Contains,
            value: value.clone(),
        },
        other => other.clone(),
    }
}

/// Candidates for detecting a level when nothing in the knowledge base matched: every
/// (tag, attribute, value) of a level detection pattern, tried as `//tag[contains(@attr,'v')]`
/// with its own tag and generic ones, cheapest (same category as the evidence) first. Each
/// candidate names the application and level it came from.
pub(crate) fn detection_candidates(
    vocab: &Vocab,
    order: &[Category],
    app_filter: Option<usize>,
    page: &PageVocab,
) -> Vec<(usize, usize, Candidate)> {
    let mut out: Vec<(usize, usize, Candidate)> = Vec::new();
    let mut seen = HashSet::new();
    for e in vocab.entries.iter().filter(|e| e.role == "detect") {
        let Some(level) = e.level else { continue };
        if app_filter.is_some_and(|a| a != e.app)
            || e.attr == "content"
            || e.attr == "src"
            || e.attr == "href"
        {
            continue;
        }
        let rank = order
            .iter()
            .position(|c| *c == e.category)
            .unwrap_or(order.len()) as u32;
        let mut tags: Vec<&str> = vec![e.tag.as_str()];
        tags.extend(GENERIC_TAGS.iter().copied().filter(|t| *t != e.tag));
        for (ti, t) in tags.into_iter().enumerate() {
            if t != "*" && !page.tags.contains(t) {
                continue;
            }
            let Some(q) = path::Path {
                dot: false,
                steps: vec![Step {
                    sep: "//",
                    axis: None,
                    test: t.to_owned(),
                    preds: vec![Pred::Attr {
                        attr: e.attr.clone(),
                        test: Test::Contains,
                        value: e.value.clone(),
                    }],
                }],
            }
            .render() else {
                continue;
            };
            if seen.insert((e.app, level, q.clone())) {
                let cost = rank * 10 + if ti == 0 { 0 } else { 2 };
                out.push((e.app, level, Candidate { expr: q, cost }));
            }
        }
    }
    out.sort_by_key(|(_, _, c)| c.cost);
    out.truncate(MAX_CANDIDATES);
    out
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
