//! A structural view of the location paths the knowledge base uses, so they can be relaxed step
//! by step: `//div[contains(@class,'post')]//h2[@class='posttitle']` becomes steps with a tag
//! and typed predicates (attribute equality, `contains`, `starts-with`, the exact-class idiom,
//! attribute presence, anything else kept verbatim), and back.

use std::ops::Range;

use crate::aah::xpath::{lex_spanned, Tok};

/// How a predicate tests an attribute.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Test {
    /// `@a='v'`
    Eq,
    /// `contains(@a,'v')`
    Contains,
    /// `starts-with(@a,'v')`
    Starts,
    /// `contains(concat(' ',normalize-space(@a),' '),' v ')`
    Token,
}

/// A predicate.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pred {
    /// An attribute compared with a literal.
    Attr {
        /// Attribute name.
        attr: String,
        /// How.
        test: Test,
        /// The literal.
        value: String,
    },
    /// `@a` (present).
    Has(String),
    /// Anything else, as source text.
    Other(String),
}

/// One location step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Step {
    /// Separator before the step: `/` or `//` (empty for the first step of a relative path).
    pub(crate) sep: &'static str,
    /// `axis::` prefix, if written.
    pub(crate) axis: Option<String>,
    /// Node test: a name, `*`, `@name`, `.`, `..`, `text()`, `node()`.
    pub(crate) test: String,
    /// Predicates.
    pub(crate) preds: Vec<Pred>,
}

impl Step {
    /// Whether the node test is an element name (or `*`), i.e. a tag that relaxation may change.
    pub(crate) fn is_element(&self) -> bool {
        let t = self.test.as_str();
        !t.starts_with('@')
            && !t.ends_with(')')
            && t != "."
            && t != ".."
            && self.axis.as_deref().is_none_or(|a| a != "attribute")
    }
}

/// A location path (one branch of a union).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Path {
    /// Starts with `.` (relative to the context node, written `.//x`).
    pub(crate) dot: bool,
    /// The steps.
    pub(crate) steps: Vec<Step>,
}

fn quote(v: &str) -> Option<String> {
    if !v.contains('\'') {
        Some(format!("'{v}'"))
    } else if !v.contains('"') {
        Some(format!("\"{v}\""))
    } else {
        None
    }
}

impl Pred {
    fn render(&self) -> Option<String> {
        Some(match self {
            Pred::Attr { attr, test, value } => {
                let q = quote(value)?;
                match test {
                    Test::Eq => format!("@{attr}={q}"),
                    Test::Contains => format!("contains(@{attr},{q})"),
                    Test::Starts => format!("starts-with(@{attr},{q})"),
                    Test::Token => format!(
                        "contains(concat(' ',normalize-space(@{attr}),' '),{})",
                        quote(&format!(" {value} "))?
                    ),
                }
            }
            Pred::Has(a) => format!("@{a}"),
            Pred::Other(s) => s.clone(),
        })
    }

    /// Parses the tokens of a predicate; `text` is its source, kept for predicates of no
    /// known shape.
    fn parse(toks: &[Tok], text: &str) -> Option<Pred> {
        use Tok::*;
        let s = |x: &'static str| Sym(x);
        match toks {
            [Sym("@"), Name(a), Sym("="), Lit(v)] | [Lit(v), Sym("="), Sym("@"), Name(a)] => {
                Some(Pred::Attr {
                    attr: a.clone(),
                    test: Test::Eq,
                    value: v.clone(),
                })
            }
            [Name(f), o, Sym("@"), Name(a), c, Lit(v), e]
                if *o == s("(") && *c == s(",") && *e == s(")") =>
            {
                let test = match f.as_str() {
                    "contains" => Test::Contains,
                    "starts-with" => Test::Starts,
                    _ => return None,
                };
                Some(Pred::Attr {
                    attr: a.clone(),
                    test,
                    value: v.clone(),
                })
            }
            [Name(f), Sym("("), Name(cc), Sym("("), Lit(l1), Sym(","), Name(ns), Sym("("), Sym("@"), Name(a), Sym(")"), Sym(","), Lit(l2), Sym(")"), Sym(","), Lit(v), Sym(")")]
                if f == "contains"
                    && cc == "concat"
                    && ns == "normalize-space"
                    && l1 == " "
                    && l2 == " "
                    && v.starts_with(' ')
                    && v.ends_with(' ')
                    && v.trim().len() + 2 == v.len() =>
            {
                Some(Pred::Attr {
                    attr: a.clone(),
                    test: Test::Token,
                    value: v.trim().to_owned(),
                })
            }
            [Sym("@"), Name(a)] => Some(Pred::Has(a.clone())),
            _ => Some(Pred::Other(text.trim().to_owned())),
        }
    }
}

impl Path {
    /// Renders the path as XPath.
    pub(crate) fn render(&self) -> Option<String> {
        let mut s = String::new();
        if self.dot {
            s.push('.');
        }
        for st in &self.steps {
            s.push_str(st.sep);
            if let Some(a) = &st.axis {
                s.push_str(a);
                s.push_str("::");
            }
            s.push_str(&st.test);
            for p in &st.preds {
                s.push('[');
                s.push_str(&p.render()?);
                s.push(']');
            }
        }
        Some(s)
    }

    /// The path made of the first `n` steps.
    pub(crate) fn prefix(&self, n: usize) -> Path {
        Path {
            dot: self.dot,
            steps: self.steps[..n].to_vec(),
        }
    }
}

/// Parses an expression that is a union of location paths; `None` for anything else (function
/// calls at the top, arithmetic, comparisons), which relaxation leaves alone.
pub(crate) fn parse(src: &str) -> Option<Vec<Path>> {
    let spanned = lex_spanned(src).ok()?;
    let toks: Vec<Tok> = spanned.iter().map(|(t, _)| t.clone()).collect();
    let spans: Vec<Range<usize>> = spanned.into_iter().map(|(_, r)| r).collect();
    let mut paths = Vec::new();
    let mut start = 0;
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Sym("[") | Tok::Sym("(") => depth += 1,
            Tok::Sym("]") | Tok::Sym(")") => depth -= 1,
            Tok::Sym("|") if depth == 0 => {
                paths.push(parse_path(&toks[start..i], &spans[start..i], src)?);
                start = i + 1;
            }
            _ => {}
        }
    }
    paths.push(parse_path(&toks[start..], &spans[start..], src)?);
    Some(paths)
}

/// Renders a union of paths.
pub(crate) fn render(paths: &[Path]) -> Option<String> {
    let parts: Option<Vec<String>> = paths.iter().map(Path::render).collect();
    Some(parts?.join(" | "))
}

fn parse_path(toks: &[Tok], spans: &[Range<usize>], src: &str) -> Option<Path> {
    let mut i = 0;
    let mut dot = false;
    if toks.first() == Some(&Tok::Sym(".")) && matches!(toks.get(1), Some(Tok::Sym("/" | "//"))) {
        dot = true;
        i = 1;
    }
    let mut steps = Vec::new();
    while i < toks.len() {
        let sep = match &toks[i] {
            Tok::Sym("/") => {
                i += 1;
                "/"
            }
            Tok::Sym("//") => {
                i += 1;
                "//"
            }
            _ if steps.is_empty() && !dot => "",
            _ => return None,
        };
        let mut axis = None;
        if let (Some(Tok::Name(a)), Some(Tok::Sym("::"))) = (toks.get(i), toks.get(i + 1)) {
            axis = Some(a.clone());
            i += 2;
        }
        let test = match (toks.get(i), toks.get(i + 1), toks.get(i + 2)) {
            (Some(Tok::Sym("@")), Some(Tok::Name(n)), _) => {
                i += 2;
                format!("@{n}")
            }
            (Some(Tok::Sym("@")), Some(Tok::Sym("*")), _) => {
                i += 2;
                "@*".to_owned()
            }
            (Some(Tok::Name(n)), Some(Tok::Sym("(")), Some(Tok::Sym(")"))) => {
                i += 3;
                format!("{n}()")
            }
            (Some(Tok::Name(n)), _, _) => {
                i += 1;
                n.clone()
            }
            (Some(Tok::Sym("*")), _, _) => {
                i += 1;
                "*".to_owned()
            }
            (Some(Tok::Sym(".")), _, _) => {
                i += 1;
                ".".to_owned()
            }
            (Some(Tok::Sym("..")), _, _) => {
                i += 1;
                "..".to_owned()
            }
            _ => return None,
        };
        let mut preds = Vec::new();
        while toks.get(i) == Some(&Tok::Sym("[")) {
            let mut depth = 0i32;
            let start = i + 1;
            let mut end = None;
            for (j, t) in toks.iter().enumerate().skip(i) {
                match t {
                    Tok::Sym("[") => depth += 1,
                    Tok::Sym("]") => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(j);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let end = end?;
            let text = if start < end {
                src.get(spans[start].start..spans[end - 1].end)?
            } else {
                ""
            };
            preds.push(Pred::parse(&toks[start..end], text)?);
            i = end + 1;
        }
        steps.push(Step {
            sep,
            axis,
            test,
            preds,
        });
    }
    if steps.is_empty() {
        return None;
    }
    Some(Path { dot, steps })
}
