//! Relaxation (ARCOMEM §4.1): when a detected application's action fails, or no application is
//! detected on a page that looks like a known category, relaxed versions of the knowledge-base
//! expressions are generated and tested on the page:
//! equality becomes `contains()`, `@class` and `@id` are swapped, attribute values and tag names
//! are substituted (from the same application, then the same category of the knowledge base,
//! then the page's own DOM, then other categories), `/` becomes `//`, and predicates are dropped
//! one at a time. Candidates are ordered by a cost that encodes that preference.
//!
//! - `path`: the structural view of expressions that the operators work on;
//! - `vocab`: where substitute values and tags come from (knowledge base, page);
//! - `adapt`: the pending/adopted state machine and the relearning of actions on recrawls;
//! - `store`: the typed wrapper over the crawl store.

pub(crate) mod adapt;
pub(crate) mod path;
pub(crate) mod store;
mod vocab;

pub(crate) use vocab::{detection_candidates, similarity, PageVocab, Vocab};

use std::collections::HashSet;

use path::{Path, Pred, Step, Test};

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

/// Generic tags worth trying in place of a tag that vanished.
pub(crate) const GENERIC_TAGS: [&str; 10] = [
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

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
