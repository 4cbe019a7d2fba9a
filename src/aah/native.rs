//! A fast path for the expressions knowledge bases mostly consist of: unions of child/descendant
//! location paths over element names (or `*`), whose predicates all test attributes
//! (`@a='v'`, `contains(@a,'v')`, `starts-with(@a,'v')`, the exact-class idiom, `@a`), ending on an
//! element or an attribute. Such a path is run directly on the page's flat element index
//! (`Dom`), without the XPath engine's per-node sets and allocations; anything else (positions,
//! other axes, functions, text tests) goes to sxd-xpath. Results are the same nodes, in document
//! order (the tests compare both on every fixture).

use sxd_xpath::nodeset::Node as XNode;

use super::dom::{Dom, NONE};
use super::relax::path::{self, Pred, Test};

/// A predicate on an element.
#[derive(Debug, Clone)]
enum Cond {
    Eq(String, String),
    Contains(String, String),
    Starts(String, String),
    Token(String, String),
    Has(String),
}

#[derive(Debug, Clone)]
struct StepPlan {
    /// `//` (descendants) rather than `/` (children).
    desc: bool,
    /// Element name; `None` for `*`.
    name: Option<String>,
    conds: Vec<Cond>,
}

#[derive(Debug, Clone)]
struct PathPlan {
    /// Starts at the document (`/…`, `//…`) rather than at the context node.
    absolute: bool,
    steps: Vec<StepPlan>,
    /// A final `@name` step.
    attr: Option<String>,
}

/// A compiled fast-path expression: a union of paths.
#[derive(Debug, Clone)]
pub(crate) struct Plan(Vec<PathPlan>);

/// The fast-path plan of an expression, if it has one.
pub(crate) fn plan(src: &str) -> Option<Plan> {
    let paths = path::parse(src)?;
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let absolute = !p.dot && p.steps.first().is_some_and(|s| !s.sep.is_empty());
        let mut steps = Vec::new();
        let mut attr = None;
        let n = p.steps.len();
        for (i, st) in p.steps.iter().enumerate() {
            if st.axis.is_some() {
                return None;
            }
            if let Some(a) = st.test.strip_prefix('@') {
                // Only a last `/@name` (not `//@name`, not `@*`) with no predicates.
                if i + 1 != n || st.sep != "/" || a == "*" || !st.preds.is_empty() {
                    return None;
                }
                attr = Some(a.to_owned());
                continue;
            }
            let name = match st.test.as_str() {
                "*" => None,
                t if t.ends_with(')') || t == "." || t == ".." => return None,
                t => Some(t.to_owned()),
            };
            let mut conds = Vec::new();
            for pr in &st.preds {
                conds.push(match pr {
                    Pred::Attr { attr, test, value } => match test {
                        Test::Eq => Cond::Eq(attr.clone(), value.clone()),
                        Test::Contains => Cond::Contains(attr.clone(), value.clone()),
                        Test::Starts => Cond::Starts(attr.clone(), value.clone()),
                        Test::Token => Cond::Token(attr.clone(), value.clone()),
                    },
                    Pred::Has(a) => Cond::Has(a.clone()),
                    Pred::Other(_) => return None,
                });
            }
            steps.push(StepPlan {
                // A relative first step (`h1/a`) selects children of the context node.
                desc: st.sep == "//",
                name,
                conds,
            });
        }
        if steps.is_empty() {
            return None;
        }
        out.push(PathPlan {
            absolute,
            steps,
            attr,
        });
    }
    Some(Plan(out))
}

/// XPath's `normalize-space()` (XML whitespace only).
fn normalize(s: &str) -> String {
    s.split([' ', '\t', '\n', '\r'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn holds(dom: &Dom<'_>, i: u32, c: &Cond) -> bool {
    match c {
        Cond::Eq(a, v) => dom.attr(i, a) == Some(v.as_str()),
        Cond::Contains(a, v) => {
            v.is_empty() || dom.attr(i, a).is_some_and(|x| x.contains(v.as_str()))
        }
        Cond::Starts(a, v) => {
            v.is_empty() || dom.attr(i, a).is_some_and(|x| x.starts_with(v.as_str()))
        }
        Cond::Token(a, v) => {
            let norm = normalize(dom.attr(i, a).unwrap_or(""));
            format!(" {norm} ").contains(&format!(" {v} "))
        }
        Cond::Has(a) => dom.attr(i, a).is_some(),
    }
}

fn matches(dom: &Dom<'_>, i: u32, st: &StepPlan) -> bool {
    st.name
        .as_deref()
        .is_none_or(|n| dom.names[i as usize] == n)
        && st.conds.iter().all(|c| holds(dom, i, c))
}

/// Runs a plan from a context node. `None` when the context is not the document or an element
/// of the page (the caller then falls back to the XPath engine).
pub(crate) fn run<'d>(dom: &Dom<'d>, plan: &Plan, at: XNode<'d>) -> Option<Vec<XNode<'d>>> {
    let ctx = match at {
        XNode::Root(_) => NONE,
        XNode::Element(e) => dom.index(e)?,
        _ => return None,
    };
    let n = dom.els.len() as u32;
    let mut elements: Vec<u32> = Vec::new();
    // (element, index into `dom.attrs`)
    let mut attrs: Vec<(u32, u32)> = Vec::new();
    for p in &plan.0 {
        let mut current = vec![if p.absolute { NONE } else { ctx }];
        for st in &p.steps {
            let mut next = Vec::new();
            let mut last_end = 0u32;
            for &c in &current {
                let (start, end) = if c == NONE {
                    (0, n)
                } else {
                    (c + 1, dom.end[c as usize])
                };
                if st.desc {
                    // Context nodes are in document order: skip subtrees already walked.
                    let from = start.max(last_end);
                    next.extend((from..end).filter(|&i| matches(dom, i, st)));
                    last_end = last_end.max(end);
                } else {
                    let mut i = start;
                    while i < end {
                        if matches(dom, i, st) {
                            next.push(i);
                        }
                        i = dom.end[i as usize];
                    }
                }
            }
            next.sort_unstable();
            next.dedup();
            current = next;
            if current.is_empty() {
                break;
            }
        }
        match &p.attr {
            None => elements.extend(current),
            Some(a) => {
                for i in current {
                    let (s, e) = dom.attr_range[i as usize];
                    if let Some(k) =
                        (s..e).find(|&k| dom.attrs[k as usize].name().local_part() == a)
                    {
                        attrs.push((i, k));
                    }
                }
            }
        }
    }
    elements.sort_unstable();
    elements.dedup();
    attrs.sort_unstable();
    attrs.dedup();
    // Merge in document order: an element comes before its attributes.
    let mut out = Vec::with_capacity(elements.len() + attrs.len());
    let (mut ei, mut ai) = (0, 0);
    while ei < elements.len() || ai < attrs.len() {
        let take_element = match (elements.get(ei), attrs.get(ai)) {
            (Some(&e), Some(&(a, _))) => e <= a,
            (Some(_), None) => true,
            _ => false,
        };
        if take_element {
            out.push(XNode::Element(dom.els[elements[ei] as usize]));
            ei += 1;
        } else {
            out.push(XNode::Attribute(dom.attrs[attrs[ai].1 as usize]));
            ai += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
#[path = "native_tests.rs"]
mod tests;
