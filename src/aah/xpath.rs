//! XPath 1.0 as the knowledge base uses it: a small lexer that checks expressions before sxd-xpath
//! ever sees them (sxd-xpath panics on unbound prefixes), the derivation of cheap pre-filters
//! (substrings a page must contain for a rule to possibly match), and defensive evaluation.

use std::panic::{catch_unwind, AssertUnwindSafe};

use sxd_xpath::nodeset::Node as XNode;
use sxd_xpath::{Context, Factory, Value, XPath};

/// A lexical token of an XPath expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A string literal, without its quotes.
    Lit(String),
    /// A number.
    Num(String),
    /// A name: element or attribute name, function name, axis name or operator word; a
    /// prefixed name keeps its colon (`fb:like`).
    Name(String),
    /// Punctuation and operators.
    Sym(&'static str),
}

const SYMS: [&str; 22] = [
    "//", "::", "..", "!=", "<=", ">=", "/", "[", "]", "(", ")", "@", ",", "|", ".", "*", "=", "<",
    ">", "+", "-", "$",
];

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '\u{b7}')
}

/// Splits an expression into tokens.
pub(crate) fn lex(src: &str) -> Result<Vec<Tok>, String> {
    Ok(lex_spanned(src)?.into_iter().map(|(t, _)| t).collect())
}

/// Splits an expression into tokens, each with its byte range in `src`.
pub(crate) fn lex_spanned(src: &str) -> Result<Vec<(Tok, std::ops::Range<usize>)>, String> {
    let mut out = Vec::new();
    let mut it = src.char_indices().peekable();
    while let Some(&(i, c)) = it.peek() {
        if c.is_whitespace() {
            it.next();
            continue;
        }
        if c == '\'' || c == '"' {
            it.next();
            let start = i + 1;
            let mut end = None;
            for (j, d) in it.by_ref() {
                if d == c {
                    end = Some(j);
                    break;
                }
            }
            let end = end.ok_or_else(|| format!("unterminated string literal at offset {i}"))?;
            out.push((Tok::Lit(src[start..end].to_owned()), i..end + 1));
            continue;
        }
        if c.is_ascii_digit()
            || (c == '.' && src[i + 1..].starts_with(|d: char| d.is_ascii_digit()))
        {
            let mut end = i;
            while let Some(&(j, d)) = it.peek() {
                if d.is_ascii_digit() || d == '.' {
                    end = j + d.len_utf8();
                    it.next();
                } else {
                    break;
                }
            }
            out.push((Tok::Num(src[i..end].to_owned()), i..end));
            continue;
        }
        if is_name_start(c) {
            let mut end = i;
            while let Some(&(j, d)) = it.peek() {
                if is_name_char(d) {
                    end = j + d.len_utf8();
                    it.next();
                } else {
                    break;
                }
            }
            // A prefixed name `p:local` or `p:*` (but not an axis `name::`).
            let rest = &src[end..];
            if rest.starts_with(':') && !rest.starts_with("::") {
                let after = &rest[1..];
                if after.starts_with('*') {
                    it.next();
                    it.next();
                    end += 2;
                } else if after.starts_with(is_name_start) {
                    it.next();
                    end += 1;
                    while let Some(&(j, d)) = it.peek() {
                        if is_name_char(d) {
                            end = j + d.len_utf8();
                            it.next();
                        } else {
                            break;
                        }
                    }
                }
            }
            out.push((Tok::Name(src[i..end].to_owned()), i..end));
            continue;
        }
        let rest = &src[i..];
        match SYMS.iter().find(|s| rest.starts_with(**s)) {
            Some(s) => {
                for _ in 0..s.len() {
                    it.next();
                }
                out.push((Tok::Sym(s), i..i + s.len()));
            }
            None => return Err(format!("unexpected character {c:?} at offset {i}")),
        }
    }
    Ok(out)
}

/// XPath 1.0 core functions that sxd-xpath implements (`id()` and `lang()` are missing).
const FUNCTIONS: [&str; 25] = [
    "last",
    "position",
    "count",
    "local-name",
    "namespace-uri",
    "name",
    "string",
    "concat",
    "starts-with",
    "contains",
    "substring-before",
    "substring-after",
    "substring",
    "string-length",
    "normalize-space",
    "translate",
    "boolean",
    "not",
    "true",
    "false",
    "number",
    "sum",
    "floor",
    "ceiling",
    "round",
];

const NODE_TYPES: [&str; 4] = ["node", "text", "comment", "processing-instruction"];

const AXES: [&str; 13] = [
    "ancestor",
    "ancestor-or-self",
    "attribute",
    "child",
    "descendant",
    "descendant-or-self",
    "following",
    "following-sibling",
    "namespace",
    "parent",
    "preceding",
    "preceding-sibling",
    "self",
];

/// Longest expression accepted, in bytes (knowledge-base rules are a few hundred at most).
pub const MAX_EXPR_BYTES: usize = 4096;
/// Deepest nesting accepted: parentheses, predicates and function calls inside each other,
/// plus a run of unary minus signs.
pub const MAX_DEPTH: usize = 64;
/// Most binary operators (`or`, `and`, comparisons, arithmetic, `|`) accepted in one expression.
pub const MAX_OPERATORS: usize = 256;

/// Checks the size and shape of an expression before any parser sees it. sxd-xpath parses
/// nested expressions and unary minus recursively, and evaluates an operator chain as a tree as
/// deep as the chain is long: 1,500 nested parentheses overflowed a thread's stack and aborted
/// the whole process. Within these bounds the recursion stays shallow on any thread.
pub(crate) fn check_shape(src: &str, toks: &[Tok]) -> Result<(), String> {
    if src.len() > MAX_EXPR_BYTES {
        return Err(format!(
            "the expression has {} bytes; at most {MAX_EXPR_BYTES} are accepted",
            src.len()
        ));
    }
    let (mut depth, mut deepest, mut minus_run, mut operators) = (0usize, 0usize, 0usize, 0usize);
    for (i, t) in toks.iter().enumerate() {
        minus_run = if *t == Tok::Sym("-") {
            minus_run + 1
        } else {
            0
        };
        match t {
            Tok::Sym("(" | "[") => depth += 1,
            Tok::Sym(")" | "]") => depth = depth.saturating_sub(1),
            Tok::Sym("=" | "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "|") => operators += 1,
            // A name is an operator word only after an operand (`a or b`, not `or/x`).
            Tok::Name(n)
                if matches!(n.as_str(), "or" | "and" | "div" | "mod")
                    && i > 0
                    && matches!(
                        toks[i - 1],
                        Tok::Name(_) | Tok::Lit(_) | Tok::Num(_) | Tok::Sym(")" | "]" | "*" | ".")
                    ) =>
            {
                operators += 1
            }
            _ => {}
        }
        deepest = deepest.max(depth + minus_run);
    }
    if deepest > MAX_DEPTH {
        return Err(format!(
            "the expression nests {deepest} levels deep (parentheses, predicates, function calls, unary minus); at most {MAX_DEPTH} are accepted"
        ));
    }
    if operators > MAX_OPERATORS {
        return Err(format!(
            "the expression has {operators} operators; at most {MAX_OPERATORS} are accepted"
        ));
    }
    Ok(())
}

/// Checks what sxd-xpath would mishandle: size and nesting beyond [`check_shape`]'s bounds,
/// prefixed names (no namespace is ever bound, and sxd-xpath panics on them), variables,
/// unknown functions and axes. `src` is the expression `toks` were lexed from.
pub(crate) fn check(src: &str, toks: &[Tok]) -> Result<(), String> {
    check_shape(src, toks)?;
    for (i, t) in toks.iter().enumerate() {
        let next = toks.get(i + 1);
        match t {
            Tok::Name(n) if n.contains(':') => {
                let prefix = n.split(':').next().unwrap_or_default();
                return Err(format!(
                    "unbound namespace prefix `{prefix}` in `{n}` (no namespace is bound; match such names with *[name()='{n}'] or @*[name()='{n}'])"
                ));
            }
            Tok::Name(n) if next == Some(&Tok::Sym("::")) && !AXES.contains(&n.as_str()) => {
                return Err(format!("unknown axis `{n}::`"));
            }
            Tok::Name(n)
                if next == Some(&Tok::Sym("("))
                    && !FUNCTIONS.contains(&n.as_str())
                    && !NODE_TYPES.contains(&n.as_str()) =>
            {
                let hint = if n == "id" || n == "lang" {
                    " (not implemented by the XPath engine; use @id or @lang)"
                } else {
                    ""
                };
                return Err(format!("unknown function `{n}()`{hint}"));
            }
            Tok::Sym("$") => return Err("variables ($name) are not supported".into()),
            _ => {}
        }
    }
    Ok(())
}

/// Lexes, checks and compiles an expression.
pub(crate) fn compile(src: &str) -> Result<XPath, String> {
    if src.len() > MAX_EXPR_BYTES {
        // Refused before lexing, so a megabyte of input costs nothing.
        check_shape(src, &[])?;
    }
    let toks = lex(src)?;
    check(src, &toks)?;
    build(src)
}

/// Names whose presence in a predicate may make its value a number (a position test).
const NUMERIC: [&str; 11] = [
    "position",
    "last",
    "count",
    "sum",
    "string-length",
    "number",
    "floor",
    "ceiling",
    "round",
    "div",
    "mod",
];

/// Rewrites `//name[…]` as `/descendant::name[…]` where that means the same thing, because
/// sxd-xpath evaluates `//` literally (every node of the page, then the children of each), which
/// is several times slower than one walk of the descendants. The two differ only when a predicate
/// is positional (`//li[1]` is the first `li` of each parent), so steps whose predicates may be
/// numbers keep their `//`.
pub(crate) fn optimized(src: &str) -> String {
    let Ok(toks) = lex_spanned(src) else {
        return src.to_owned();
    };
    let mut out = String::with_capacity(src.len() + 32);
    let mut last = 0;
    for (i, (t, span)) in toks.iter().enumerate() {
        if *t != Tok::Sym("//") {
            continue;
        }
        let name_test = match (toks.get(i + 1), toks.get(i + 2)) {
            (Some((Tok::Name(_), _)), Some((Tok::Sym("(" | "::"), _))) => false,
            (Some((Tok::Name(_), _)), _) | (Some((Tok::Sym("*"), _)), _) => true,
            _ => false,
        };
        if !name_test || !predicates_are_boolean(&toks[i + 2..]) {
            continue;
        }
        out.push_str(&src[last..span.start]);
        out.push_str("/descendant::");
        last = span.end;
    }
    out.push_str(&src[last..]);
    out
}

/// Whether the predicates at the start of `toks` (if any) can only be booleans or node sets.
fn predicates_are_boolean(toks: &[(Tok, std::ops::Range<usize>)]) -> bool {
    let mut i = 0;
    while toks.get(i).map(|(t, _)| t) == Some(&Tok::Sym("[")) {
        let mut depth = 0i32;
        loop {
            let Some((t, _)) = toks.get(i) else {
                return false;
            };
            match t {
                Tok::Sym("[") => depth += 1,
                Tok::Sym("]") => depth -= 1,
                Tok::Num(_) | Tok::Sym("+" | "-" | "$") => return false,
                Tok::Name(n) if NUMERIC.contains(&n.as_str()) => return false,
                Tok::Sym("*") => {
                    // A wildcard follows a path or axis separator; anything else multiplies.
                    let wildcard = i > 0
                        && matches!(
                            toks[i - 1].0,
                            Tok::Sym("/" | "//" | "::" | "@" | "[" | "(" | "," | "|")
                        );
                    if !wildcard {
                        return false;
                    }
                }
                _ => {}
            }
            i += 1;
            if depth == 0 {
                break;
            }
        }
    }
    true
}

/// Compiles an expression already checked with [`check`] (in its [`optimized`] form).
pub(crate) fn build(src: &str) -> Result<XPath, String> {
    let factory = Factory::new();
    let src = optimized(src);
    match catch_unwind(AssertUnwindSafe(|| factory.build(&src))) {
        Ok(Ok(Some(x))) => Ok(x),
        Ok(Ok(None)) => Err("empty expression".into()),
        Ok(Err(e)) => Err(format!("not XPath 1.0: {e}")),
        Err(_) => Err("the XPath engine rejected this expression".into()),
    }
}

/// What a page must contain (as raw text) for an expression to possibly match: any one of the
/// alternatives, each a list of substrings that must all be present. `None` when nothing can be
/// said safely (the rule is then always evaluated).
pub(crate) type Requirement = Option<Vec<Vec<String>>>;

/// Function names and operators after which literals say nothing about the raw page.
const UNSAFE_NAMES: [&str; 16] = [
    "or",
    "not",
    "count",
    "translate",
    "substring",
    "substring-before",
    "substring-after",
    "string-length",
    "sum",
    "number",
    "boolean",
    "false",
    "true",
    "floor",
    "ceiling",
    "round",
];

/// Derives the pre-filter of an expression.
///
/// Only literals compared with attribute values count (`@a='v'`, `contains(@a,'v')`,
/// `starts-with(@a,'v')`, also through `normalize-space()` and the `concat(' ',…,' ')` class
/// idiom): an attribute value is written out in the page's source, whereas text compared through
/// `.` can be split by markup. Each literal contributes its runs of `[A-Za-z0-9_-]` of three or
/// more characters, which survive entity escaping of the other characters. The top level may be
/// a union or an `or` of branches; a branch that negates, counts, compares numbers or
/// transforms strings gets no requirement, and then neither does the whole expression.
pub(crate) fn requirement(toks: &[Tok]) -> Requirement {
    let mut branches: Vec<&[Tok]> = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Sym("(") | Tok::Sym("[") => depth += 1,
            Tok::Sym(")") | Tok::Sym("]") => depth -= 1,
            Tok::Sym("|") if depth == 0 => {
                branches.push(&toks[start..i]);
                start = i + 1;
            }
            Tok::Name(n) if depth == 0 && n == "or" && i > start => {
                branches.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    branches.push(&toks[start..]);
    let mut out = Vec::new();
    for b in branches {
        let unsafe_tok = b.iter().any(|t| match t {
            Tok::Name(n) => UNSAFE_NAMES.contains(&n.as_str()),
            Tok::Sym(s) => matches!(*s, "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "|" | "$"),
            _ => false,
        });
        if unsafe_tok {
            return None;
        }
        let words = attribute_words(b);
        if words.is_empty() {
            return None;
        }
        out.push(words);
    }
    Some(out)
}

/// Words of the literals compared with attribute values in a branch.
fn attribute_words(toks: &[Tok]) -> Vec<String> {
    let mut words = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Tok::Lit(lit) = t else { continue };
        let attr_eq = (i >= 3
            && toks[i - 1] == Tok::Sym("=")
            && matches!(toks[i - 2], Tok::Name(_))
            && toks[i - 3] == Tok::Sym("@"))
            || (toks.get(i + 1) == Some(&Tok::Sym("="))
                && toks.get(i + 2) == Some(&Tok::Sym("@"))
                && matches!(toks.get(i + 3), Some(Tok::Name(_))));
        if attr_eq || second_arg_of_attr_test(toks, i) {
            for w in lit
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .filter(|w| w.len() >= 3)
            {
                if !words.iter().any(|x: &String| x == w) {
                    words.push(w.to_owned());
                }
            }
        }
    }
    words
}

/// Whether the literal at `i` is the second argument of `contains(ATTR, lit)` or
/// `starts-with(ATTR, lit)` where ATTR only reads an attribute.
fn second_arg_of_attr_test(toks: &[Tok], i: usize) -> bool {
    if i == 0 || toks[i - 1] != Tok::Sym(",") || toks.get(i + 1) != Some(&Tok::Sym(")")) {
        return false;
    }
    // Walk back over the first argument to its opening parenthesis.
    let mut depth = 0i32;
    let mut j = i - 1;
    let mut saw_attr = false;
    while j > 0 {
        j -= 1;
        match &toks[j] {
            Tok::Sym(")") => depth += 1,
            Tok::Sym("(") if depth == 0 => break,
            Tok::Sym("(") => depth -= 1,
            Tok::Sym("@") => saw_attr = true,
            Tok::Sym(",") if depth == 0 => return false,
            Tok::Sym(",") | Tok::Name(_) => {}
            Tok::Lit(l) if l.trim().is_empty() => {}
            _ => return false,
        }
        if let Tok::Name(n) = &toks[j] {
            let is_fn = toks.get(j + 1) == Some(&Tok::Sym("("));
            if is_fn && !matches!(n.as_str(), "concat" | "normalize-space") {
                return false;
            }
            if !is_fn && j > 0 && toks[j - 1] != Tok::Sym("@") {
                return false;
            }
        }
    }
    saw_attr
        && j >= 1
        && matches!(&toks[j - 1], Tok::Name(f) if f == "contains" || f == "starts-with")
}

/// Evaluates an expression on a node and returns its value, never panicking: an evaluation
/// error or a panic inside the engine is reported as `Err` with a reason.
pub(crate) fn eval<'d>(
    xpath: &XPath,
    ctx: &Context<'d>,
    node: XNode<'d>,
) -> Result<Value<'d>, String> {
    match catch_unwind(AssertUnwindSafe(|| xpath.evaluate(ctx, node))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(format!("{e:?}")),
        Err(_) => Err("the XPath engine failed on this expression".into()),
    }
}

/// Evaluates to the matched nodes (empty for a non-node-set value).
pub(crate) fn nodes<'d>(xpath: &XPath, ctx: &Context<'d>, node: XNode<'d>) -> Vec<XNode<'d>> {
    match eval(xpath, ctx, node) {
        Ok(Value::Nodeset(ns)) => ns.into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Evaluates to a boolean as XPath's `boolean()` would (non-empty node set, non-empty string,
/// non-zero number, true); errors count as false.
pub(crate) fn truthy<'d>(xpath: &XPath, ctx: &Context<'d>, node: XNode<'d>) -> bool {
    eval(xpath, ctx, node).map(|v| v.boolean()).unwrap_or(false)
}

#[cfg(test)]
#[path = "xpath_tests.rs"]
mod tests;
