//! Adapting to templates the knowledge base does not describe exactly: the per-host state of
//! relaxed candidates (pending until they work on further pages of the same level, then adopted
//! and stored), and the relearning of an extraction action against content captured on an
//! earlier crawl of the same page.

use std::collections::{HashMap, HashSet};

use sxd_document::dom::Element;
use sxd_xpath::nodeset::Node as XNode;

use super::store::Adoption;
use super::Candidate;
use crate::aah::dom::node_text;
use crate::aah::engine::Page;

/// A candidate that worked on the page it was found on and is being validated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pending {
    pub(crate) host: String,
    pub(crate) application: String,
    pub(crate) level: String,
    pub(crate) action: String,
    pub(crate) original: String,
    pub(crate) candidate: String,
    pub(crate) source: &'static str,
    /// Distinct pages it worked on, first the page it was found on.
    pub(crate) pages: Vec<String>,
}

/// What the helper remembers about one host.
#[derive(Debug, Clone, Default)]
pub(crate) struct HostState {
    /// Index of the application detected on the host: its levels are tried first, and the
    /// whole detection runs only on pages none of them matches (kept in the store).
    pub(crate) app: Option<usize>,
    /// That application was recognised by relaxed patterns.
    pub(crate) app_relaxed: bool,
    /// Adopted relaxations of the host (all applications).
    pub(crate) adoptions: Vec<Adoption>,
    /// Candidates being validated, by `app/action`.
    pub(crate) pending: HashMap<String, Pending>,
    /// Candidates that failed validation, as `app/action` + `\u{1}` + expression.
    pub(crate) rejected: HashSet<String>,
    /// Relaxation attempts so far, by `app/action`.
    pub(crate) attempts: HashMap<String, u32>,
    /// Adoptions made while analysing the current page (to be stored).
    pub(crate) new_adoptions: Vec<Adoption>,
    /// Pages that on their own evidence read as a category, with it (the first few).
    pub(crate) generic_votes: Vec<(crate::aah::Category, String)>,
    /// Readings of the host the helper had kept when this state was: a reading's state made
    /// from the one kept last replaces it, one made from an older state is merged into it
    /// (see `Helper::learn`).
    pub(crate) kept: u64,
}

/// Tuning of adaptation.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    pub(crate) validate_pages: usize,
    pub(crate) max_attempts: u32,
    pub(crate) max_tries: usize,
}

/// Where a failing action stands after recovery.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Recovery {
    /// An adopted relaxation works: use this expression.
    Adopted(String),
    /// A candidate works here and awaits validation on further pages.
    Pending(String),
    /// Nothing works.
    Failed,
}

/// Identity of an action for adaptation.
pub(crate) struct ActionId<'a> {
    pub(crate) host: &'a str,
    pub(crate) url: &'a str,
    pub(crate) application: &'a str,
    pub(crate) level: &'a str,
    pub(crate) action: &'a str,
    pub(crate) original: &'a str,
}

impl ActionId<'_> {
    fn key(&self) -> String {
        format!("{}/{}", self.application, self.action)
    }
}

impl HostState {
    /// The state a page's reading left, with what another page of the host, read at the same
    /// time from the same earlier state, taught (`older`, kept already): both readings' adopted
    /// relaxations, rejected candidates and attempts count. Candidates pending and the votes
    /// are the newer reading's: a pending candidate it no longer holds was settled by it.
    pub(crate) fn merged(mut self, older: &HostState) -> HostState {
        for a in &older.adoptions {
            let same = |b: &Adoption| {
                (&b.application, &b.action, &b.original) == (&a.application, &a.action, &a.original)
            };
            if !self.adoptions.iter().any(same) {
                self.adoptions.push(a.clone());
            }
        }
        self.rejected.extend(older.rejected.iter().cloned());
        for (k, &n) in &older.attempts {
            let mine = self.attempts.entry(k.clone()).or_default();
            *mine = (*mine).max(n);
        }
        self.app = self.app.or(older.app);
        self
    }

    /// The adopted relaxation of an action, if any.
    pub(crate) fn adopted(&self, application: &str, action: &str) -> Option<&Adoption> {
        self.adoptions
            .iter()
            .find(|a| a.application == application && a.action == action)
    }

    /// Recovers a failing action: an adopted relaxation first; then the pending candidate, which
    /// this page validates or rejects; then, within the attempt budget, a relearned expression
    /// (`relearn`, already checked against captured content) or the first generated candidate
    /// that `works` on this page.
    pub(crate) fn recover(
        &mut self,
        id: &ActionId<'_>,
        limits: &Limits,
        works: &dyn Fn(&str) -> bool,
        relearn: &dyn Fn() -> Option<String>,
        generate: &dyn Fn() -> Vec<Candidate>,
    ) -> Recovery {
        if let Some(a) = self.adopted(id.application, id.action) {
            if works(&a.relaxed) {
                return Recovery::Adopted(a.relaxed.clone());
            }
        }
        let key = id.key();
        if let Some(p) = self.pending.get(&key).cloned() {
            if works(&p.candidate) {
                return self.validate(&key, id.url, limits);
            }
            self.reject(&key);
        }
        if !self.try_attempt(&key, limits) {
            return Recovery::Failed;
        }
        let found = relearn().map(|c| (c, "relearn")).or_else(|| {
            generate()
                .into_iter()
                .filter(|c| !self.is_rejected(&key, &c.expr))
                .take(limits.max_tries)
                .find(|c| works(&c.expr))
                .map(|c| (c.expr, "relaxation"))
        });
        match found {
            Some((candidate, source)) => self.start(
                &key,
                Pending {
                    host: id.host.to_owned(),
                    application: id.application.to_owned(),
                    level: id.level.to_owned(),
                    action: id.action.to_owned(),
                    original: id.original.to_owned(),
                    candidate,
                    source,
                    pages: vec![id.url.to_owned()],
                },
                limits,
            ),
            None => Recovery::Failed,
        }
    }

    /// Counts a relaxation attempt for `key`; false when the budget is spent.
    pub(crate) fn try_attempt(&mut self, key: &str, limits: &Limits) -> bool {
        let attempts = self.attempts.entry(key.to_owned()).or_insert(0);
        if *attempts >= limits.max_attempts {
            return false;
        }
        *attempts += 1;
        true
    }

    /// Whether a candidate failed validation for `key` before.
    pub(crate) fn is_rejected(&self, key: &str, expr: &str) -> bool {
        self.rejected.contains(&format!("{key}\u{1}{expr}"))
    }

    /// Drops the pending candidate of `key`, which failed on a page of its level.
    pub(crate) fn reject(&mut self, key: &str) {
        if let Some(p) = self.pending.remove(key) {
            tracing::debug!(key, candidate = %p.candidate, "relaxed candidate rejected");
            self.rejected.insert(format!("{key}\u{1}{}", p.candidate));
        }
    }

    /// Starts validating a candidate found on its first page.
    pub(crate) fn start(&mut self, key: &str, p: Pending, limits: &Limits) -> Recovery {
        self.pending.insert(key.to_owned(), p);
        self.validate_now(key, limits)
    }

    /// Records that the pending candidate of `key` worked on `url`.
    pub(crate) fn validate(&mut self, key: &str, url: &str, limits: &Limits) -> Recovery {
        if let Some(p) = self.pending.get_mut(key) {
            if !p.pages.iter().any(|u| u == url) {
                p.pages.push(url.to_owned());
            }
        }
        self.validate_now(key, limits)
    }

    /// Adopts the pending candidate of `key` if it worked on enough pages.
    fn validate_now(&mut self, key: &str, limits: &Limits) -> Recovery {
        let Some(p) = self.pending.get(key) else {
            return Recovery::Failed;
        };
        if p.pages.len() <= limits.validate_pages {
            return Recovery::Pending(p.candidate.clone());
        }
        let Some(p) = self.pending.remove(key) else {
            return Recovery::Failed;
        };
        self.adopt(p)
    }

    /// Adopts a validated candidate: remembered for the host and queued for storage.
    pub(crate) fn adopt(&mut self, p: Pending) -> Recovery {
        let a = Adoption {
            host: p.host,
            application: p.application,
            level: p.level,
            action: p.action,
            original: p.original,
            relaxed: p.candidate.clone(),
            source: p.source.to_owned(),
            validated_on: p.pages,
            adopted_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        };
        self.adoptions
            .retain(|x| !(x.application == a.application && x.action == a.action));
        self.adoptions.push(a.clone());
        self.new_adoptions.push(a);
        Recovery::Adopted(p.candidate)
    }
}

/// Relearns a field against the value captured on an earlier visit (`captured`, a prefix of a
/// text of `length` bytes): finds the element (or attribute) under one of `roots` whose text is
/// that value, describes it by tag and class (or a stable id, or its parent's class), and returns
/// the expression if it yields the value again. `relative` makes a `.//` expression for fields
/// evaluated under object roots.
pub(crate) fn relearn_field<'d>(
    page: &Page<'d>,
    roots: &[XNode<'d>],
    captured: &str,
    length: usize,
    relative: bool,
) -> Option<String> {
    let prefix_only = length > captured.len();
    let matches = |text: &str| {
        !text.is_empty()
            && if prefix_only {
                text.starts_with(captured)
            } else {
                text == captured
            }
    };
    for root in roots {
        let elements: Vec<Element<'d>> = match root {
            XNode::Element(e) => descendants(*e),
            XNode::Root(r) => r
                .children()
                .into_iter()
                .filter_map(|c| c.element())
                .flat_map(descendants)
                .collect(),
            _ => continue,
        };
        // The element whose text is the value and whose length is closest to the captured
        // length; among equals the outermost (document order visits it first): the container
        // an archivist would name, not its first paragraph. Failing that, an attribute holding
        // the value (a date in @datetime).
        let best = elements
            .iter()
            .filter_map(|e| {
                let t = node_text(XNode::Element(*e));
                matches(&t).then(|| (t.len().abs_diff(length), *e))
            })
            .min_by_key(|(d, _)| *d)
            .map(|(_, e)| (e, None))
            .or_else(|| {
                elements.iter().find_map(|e| {
                    e.attributes()
                        .into_iter()
                        .find(|a| matches(a.value().trim()))
                        .map(|a| (*e, Some(a.name().local_part().to_owned())))
                })
            });
        let Some((e, attr)) = best else { continue };
        let step = describe(e)?;
        let mut expr = format!("{}{step}", if relative { ".//" } else { "//" });
        if let Some(a) = attr {
            expr.push_str(&format!("/@{a}"));
        }
        let got = page
            .nodes(&expr, *root)
            .into_iter()
            .map(node_text)
            .find(|t| !t.is_empty());
        if got.as_deref().is_some_and(|t| matches(t.trim())) {
            return Some(expr);
        }
    }
    None
}

fn descendants(root: Element<'_>) -> Vec<Element<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        out.push(e);
        stack.extend(e.children().into_iter().rev().filter_map(|c| c.element()));
    }
    out
}

/// A location step that names an element: `tag[class token]`, `tag[@id]` for ids without
/// digits, `tag[starts-with(@id,…)]` for numbered ids, or `ptag[class]/tag`.
fn describe(e: Element<'_>) -> Option<String> {
    let tag = e.name().local_part();
    if let Some(class) = e.attribute_value("class") {
        if let Some(t) = class
            .split_whitespace()
            .filter(|t| !t.contains(['\'', '"']))
            .max_by_key(|t| t.len())
        {
            return Some(format!(
                "{tag}[contains(concat(' ',normalize-space(@class),' '),' {t} ')]"
            ));
        }
    }
    if let Some(id) = e.attribute_value("id").filter(|i| !i.contains(['\'', '"'])) {
        let stem: String = id.chars().take_while(|c| !c.is_ascii_digit()).collect();
        if stem.len() == id.len() && !id.is_empty() {
            return Some(format!("{tag}[@id='{id}']"));
        }
        if stem.len() >= 2 {
            return Some(format!("{tag}[starts-with(@id,'{stem}')]"));
        }
    }
    let parent = e.parent().and_then(|p| p.element())?;
    let pclass = parent.attribute_value("class")?;
    let t = pclass
        .split_whitespace()
        .filter(|t| !t.contains(['\'', '"']))
        .max_by_key(|t| t.len())?;
    Some(format!(
        "{}[contains(concat(' ',normalize-space(@class),' '),' {t} ')]/{tag}",
        parent.name().local_part()
    ))
}
