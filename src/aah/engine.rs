//! Running knowledge-base rules on one converted page: detection conditions, extraction of web
//! objects and the link sets of navigation rules. Expressions are compiled once per page and
//! cached; every evaluation is defensive (see `xpath::eval`).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use sxd_xpath::nodeset::Node as XNode;
use sxd_xpath::{Context, XPath};
use url::Url;

use super::dom::{node_text, Dom};
use super::kb::{Condition, Detect, ObjectRule, PageWords};
use super::native::{self, Plan};
use super::output::WebObject;
use super::relax::PageVocab;
use super::xpath;

/// A page being analysed: the converted document, an evaluation context and the expressions
/// compiled so far.
pub(crate) struct Page<'d> {
    pub(crate) dom: Dom<'d>,
    ctx: Context<'d>,
    cache: RefCell<HashMap<String, Option<Rc<XPath>>>>,
    plans: RefCell<HashMap<String, Option<Rc<Plan>>>>,
    evaluations: Cell<usize>,
    vocab: RefCell<Option<Rc<PageVocab>>>,
}

impl<'d> Page<'d> {
    pub(crate) fn new(dom: Dom<'d>) -> Page<'d> {
        Page {
            dom,
            ctx: Context::new(),
            cache: RefCell::new(HashMap::new()),
            plans: RefCell::new(HashMap::new()),
            evaluations: Cell::new(0),
            vocab: RefCell::new(None),
        }
    }

    /// The document node.
    pub(crate) fn root(&self) -> XNode<'d> {
        self.dom.doc.root().into()
    }

    /// How many XPath evaluations ran on this page.
    #[cfg(test)]
    pub(crate) fn evaluations(&self) -> usize {
        self.evaluations.get()
    }

    fn compiled(&self, src: &str) -> Option<Rc<XPath>> {
        if let Some(c) = self.cache.borrow().get(src) {
            return c.clone();
        }
        // Knowledge-base expressions were checked at load; relaxed ones are checked here.
        let c = xpath::compile(src).ok().map(Rc::new);
        self.cache.borrow_mut().insert(src.to_owned(), c.clone());
        c
    }

    fn plan(&self, src: &str) -> Option<Rc<Plan>> {
        if let Some(p) = self.plans.borrow().get(src) {
            return p.clone();
        }
        let p = native::plan(src).map(Rc::new);
        self.plans.borrow_mut().insert(src.to_owned(), p.clone());
        p
    }

    /// The nodes an expression selects from `at`, in document order: through the fast path
    /// when the expression has one, else through the XPath engine.
    pub(crate) fn nodes(&self, src: &str, at: XNode<'d>) -> Vec<XNode<'d>> {
        self.evaluations.set(self.evaluations.get() + 1);
        if let Some(v) = self.plan(src).and_then(|p| native::run(&self.dom, &p, at)) {
            return v;
        }
        let Some(x) = self.compiled(src) else {
            return Vec::new();
        };
        let mut v = xpath::nodes(&x, &self.ctx, at);
        self.dom.sort(&mut v);
        v
    }

    /// The boolean value of an expression at `at`.
    pub(crate) fn truthy(&self, src: &str, at: XNode<'d>) -> bool {
        self.evaluations.set(self.evaluations.get() + 1);
        if let Some(v) = self.plan(src).and_then(|p| native::run(&self.dom, &p, at)) {
            return !v.is_empty();
        }
        let Some(x) = self.compiled(src) else {
            return false;
        };
        xpath::truthy(&x, &self.ctx, at)
    }

    /// The nodes an expression selects through the XPath engine only (tests compare it with the
    /// fast path).
    #[cfg(test)]
    pub(crate) fn engine_nodes(&self, src: &str, at: XNode<'d>) -> Vec<XNode<'d>> {
        let Some(x) = self.compiled(src) else {
            return Vec::new();
        };
        let mut v = xpath::nodes(&x, &self.ctx, at);
        self.dom.sort(&mut v);
        v
    }

    /// The page's class tokens and ids with the tags that carry them, and its tag names.
    pub(crate) fn vocab(&self) -> Rc<PageVocab> {
        if let Some(v) = self.vocab.borrow().as_ref() {
            return v.clone();
        }
        let mut v = PageVocab::default();
        for e in self.dom.all_elements() {
            let tag = e.name().local_part().to_owned();
            if let Some(class) = e.attribute_value("class") {
                for t in class.split_whitespace() {
                    v.values
                        .entry(("class".to_owned(), t.to_owned()))
                        .or_default()
                        .insert(tag.clone());
                }
            }
            if let Some(id) = e.attribute_value("id") {
                if !id.trim().is_empty() && !id.contains(char::is_whitespace) {
                    v.values
                        .entry(("id".to_owned(), id.to_owned()))
                        .or_default()
                        .insert(tag.clone());
                }
            }
            v.tags.insert(tag);
        }
        let v = Rc::new(v);
        *self.vocab.borrow_mut() = Some(v.clone());
        v
    }
}

/// The facts about a page that detection reads besides its DOM.
pub(crate) struct Facts<'a> {
    pub(crate) url: &'a str,
    pub(crate) headers: &'a [(String, String)],
    pub(crate) words: &'a PageWords,
}

/// Whether a URL or header condition holds (XPath conditions: false).
fn holds_without_page(c: &Condition, facts: &Facts<'_>) -> bool {
    match c {
        Condition::Url(m) => m.is_match(facts.url),
        Condition::Header { name, value } => facts
            .headers
            .iter()
            .any(|(n, v)| n.eq_ignore_ascii_case(name) && value.is_match(v)),
        Condition::XPath(_) => false,
    }
}

/// Whether a detection rule may hold, decided before the page is parsed: URL and header
/// conditions are evaluated, XPath conditions hold unless the pre-filter rules them out.
pub(crate) fn may_detect(d: &Detect, facts: &Facts<'_>) -> bool {
    let may = |c: &Condition| match c {
        Condition::XPath(e) => facts.words.may_match(e),
        other => holds_without_page(other, facts),
    };
    if d.all {
        d.conditions.iter().all(may)
    } else {
        d.conditions.iter().any(may)
    }
}

/// Whether a detection rule holds. XPath conditions the pre-filter rules out are false without
/// evaluation; without a page, XPath conditions are false.
pub(crate) fn detect(d: &Detect, page: Option<&Page<'_>>, facts: &Facts<'_>) -> bool {
    let mut holds = |c: &Condition| match c {
        Condition::XPath(e) => match page {
            Some(p) if facts.words.may_match(e) => p.truthy(&e.src, p.root()),
            _ => false,
        },
        other => holds_without_page(other, facts),
    };
    if d.all {
        d.conditions.iter().all(&mut holds)
    } else {
        d.conditions.iter().any(&mut holds)
    }
}

/// Whether a value is a plausible field value.
pub(crate) fn plausible(text: &str, min_len: usize) -> bool {
    !text.is_empty() && text.chars().count() >= min_len.max(1)
}

/// The value of a field expression at an object root: the text of its first non-empty node.
pub(crate) fn field_value<'d>(page: &Page<'d>, src: &str, at: XNode<'d>) -> Option<String> {
    page.nodes(src, at)
        .into_iter()
        .map(node_text)
        .find(|t| !t.is_empty())
}

/// What one object rule found on a page.
pub(crate) struct ObjectResult {
    /// Objects found (possibly without some fields).
    pub(crate) objects: Vec<WebObject>,
    /// Number of roots found (1 for a rule without a root expression).
    pub(crate) roots: usize,
    /// Per field (rule order): number of objects with a plausible value.
    pub(crate) found: Vec<usize>,
}

/// Applies an object rule with the given expressions (the root, then one per field, which may be
/// adopted relaxations instead of the knowledge base's).
pub(crate) fn extract<'d>(
    page: &Page<'d>,
    rule: &ObjectRule,
    root: Option<&str>,
    fields: &[&str],
) -> ObjectResult {
    let mut roots: Vec<XNode<'d>> = match root {
        Some(r) => page.nodes(r, page.root()),
        None => vec![page.root()],
    };
    if !rule.repeat {
        roots.truncate(1);
    }
    let mut found = vec![0usize; rule.fields.len()];
    let mut objects = Vec::new();
    for at in &roots {
        let mut values = Vec::new();
        for (i, (f, src)) in rule.fields.iter().zip(fields).enumerate() {
            if let Some(v) = field_value(page, src, *at) {
                if plausible(&v, f.min_len) {
                    found[i] += 1;
                    values.push((f.name.clone(), v));
                }
            }
        }
        if !values.is_empty() {
            objects.push(WebObject {
                kind: rule.kind.clone(),
                fields: values,
            });
        }
    }
    ObjectResult {
        objects,
        roots: roots.len(),
        found,
    }
}

/// The page's base URL: the first `<base href>` in `<head>`, resolved, or the page URL.
pub(crate) fn base_url(page: &Page<'_>, url: &Url) -> Url {
    page.nodes("/html/head/base/@href", page.root())
        .into_iter()
        .map(node_text)
        .find_map(|h| url.join(&h).ok())
        .unwrap_or_else(|| url.clone())
}

/// The absolute URLs (fragment removed) of the links a navigation expression selects: `@href`
/// attributes as such, elements through their own `href` (or their first descendant's).
pub(crate) fn link_urls(page: &Page<'_>, src: &str, base: &Url) -> HashSet<String> {
    let mut out = HashSet::new();
    for n in page.nodes(src, page.root()) {
        let href = match n {
            XNode::Attribute(a) => Some(a.value().to_owned()),
            XNode::Element(e) => e.attribute_value("href").map(str::to_owned).or_else(|| {
                page.nodes(".//*[@href][1]/@href", n)
                    .into_iter()
                    .next()
                    .map(node_text)
            }),
            _ => None,
        };
        if let Some(h) = href {
            if let Ok(mut u) = base.join(h.trim()) {
                u.set_fragment(None);
                out.insert(String::from(u));
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
