//! The vocabularies relaxation draws substitutes from: every (tag, attribute, value) the
//! knowledge base uses, by the role it plays (a field, an object, a rule, a detection), and the
//! page's own class tokens and ids; plus the detection candidates built from them.

use std::collections::{HashMap, HashSet};

use super::path::{self, Path, Pred, Step, Test};
use super::{Candidate, GENERIC_TAGS, MAX_CANDIDATES};
use crate::aah::kb::{Category, Condition, KnowledgeBase};

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

/// Shortest attribute value a detection candidate may test. A relaxed detection claims a whole
/// host for an application, so its one test must be specific to that application: `page`,
/// `archive`, `post` or `content` are classes of any theme (a Nikola blog was WordPress by
/// `//article[contains(@class,'page')]`, a Hexo blog by its sidebar's `archive` widget), where
/// `forumposts` or `mw-content-text` are not. Checked on the recorded applications the
/// knowledge base does not know (`tests/it/aah_real.rs`): no page of them is claimed.
pub(crate) const MIN_SPECIFIC_VALUE: usize = 8;

/// Words any theme names its classes with: a value made of these only (`forum-title`,
/// `entry-content`, `post-list`) says nothing about which application wrote the page.
const GENERIC_WORDS: &[&str] = &[
    "archive",
    "article",
    "author",
    "block",
    "blog",
    "body",
    "box",
    "categories",
    "category",
    "col",
    "comment",
    "comments",
    "container",
    "content",
    "date",
    "description",
    "entry",
    "footer",
    "forum",
    "forums",
    "header",
    "heading",
    "home",
    "index",
    "info",
    "item",
    "link",
    "links",
    "list",
    "main",
    "menu",
    "message",
    "meta",
    "name",
    "nav",
    "page",
    "panel",
    "post",
    "posts",
    "reply",
    "row",
    "section",
    "sidebar",
    "summary",
    "tag",
    "tags",
    "text",
    "thread",
    "threads",
    "title",
    "topic",
    "topics",
    "user",
    "widget",
    "wrapper",
];

/// Whether an attribute value may identify an application: long enough, and not made of
/// [`GENERIC_WORDS`] only.
pub(crate) fn is_specific(value: &str) -> bool {
    value.chars().count() >= MIN_SPECIFIC_VALUE
        && value
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .any(|w| !GENERIC_WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Candidates for detecting a level when nothing in the knowledge base matched: every
/// (tag, attribute, value) of a level detection pattern specific enough (see
/// [`is_specific`]), tried as `//tag[contains(@attr,'v')]` with its own tag and generic
/// ones, cheapest (same category as the evidence) first. Each candidate names the application
/// and level it came from.
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
            || !is_specific(&e.value)
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
