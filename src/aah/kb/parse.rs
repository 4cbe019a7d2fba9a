//! Interpreting one knowledge-base file (read into an element tree by `xml`) as a checked
//! [`Application`]: every attribute validated, every XPath and regex compiled. Unknown elements
//! and attributes are errors, so a typo never silently disables a rule.

use std::path::Path;

use regex::Regex;

use super::xml::{tree, El};
use super::{
    Application, Category, Condition, Detect, Expr, FieldRule, Level, LevelKind, NavAction,
    NavRule, ObjectRule, TextMatch, UrlRule,
};
use crate::aah::error::AahError;
use crate::aah::xpath;

/// Attribute access that remembers what was read, so unknown attributes can be reported.
struct Attrs<'a> {
    el: &'a El,
    file: &'a Path,
    used: Vec<&'static str>,
}

impl<'a> Attrs<'a> {
    fn new(el: &'a El, file: &'a Path) -> Attrs<'a> {
        Attrs {
            el,
            file,
            used: Vec::new(),
        }
    }

    fn err(&self, reason: impl Into<String>) -> AahError {
        AahError::kb(self.file, self.el.line, reason)
    }

    fn opt(&mut self, name: &'static str) -> Option<&'a str> {
        self.used.push(name);
        self.el
            .attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn req(&mut self, name: &'static str) -> Result<&'a str, AahError> {
        match self.opt(name) {
            Some(v) if !v.trim().is_empty() => Ok(v),
            _ => Err(self.err(format!("<{}> needs a `{name}` attribute", self.el.name))),
        }
    }

    fn flag(&mut self, name: &'static str, default: bool) -> Result<bool, AahError> {
        match self.opt(name) {
            None => Ok(default),
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(v) => Err(self.err(format!(
                "`{name}` of <{}> must be true or false, not {v:?}",
                self.el.name
            ))),
        }
    }

    /// Fails on attributes that were never read (typos), except schema bookkeeping ones.
    fn done(self) -> Result<(), AahError> {
        for (k, _) in &self.el.attrs {
            let bookkeeping = k.starts_with("xmlns") || k.starts_with("xsi:");
            if !bookkeeping && !self.used.contains(&k.as_str()) {
                return Err(self.err(format!("unknown attribute `{k}` on <{}>", self.el.name)));
            }
        }
        Ok(())
    }
}

fn unknown_child(el: &El, child: &El, file: &Path) -> AahError {
    AahError::kb(
        file,
        child.line,
        format!("unknown element <{}> inside <{}>", child.name, el.name),
    )
}

fn ident_ok(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn expr(src: &str, line: usize, file: &Path, detection: bool) -> Result<Expr, AahError> {
    let toks =
        xpath::lex(src).map_err(|e| AahError::kb(file, line, format!("bad XPath `{src}`: {e}")))?;
    xpath::check(src, &toks)
        .map_err(|e| AahError::kb(file, line, format!("bad XPath `{src}`: {e}")))?;
    xpath::build(src).map_err(|e| AahError::kb(file, line, format!("bad XPath `{src}`: {e}")))?;
    Ok(Expr {
        src: src.to_owned(),
        line,
        req: if detection {
            xpath::requirement(&toks)
        } else {
            None
        },
        req_ids: None,
    })
}

fn text_match(a: &mut Attrs<'_>) -> Result<TextMatch, AahError> {
    match (a.opt("matches"), a.opt("contains")) {
        (Some(re), None) => Regex::new(re).map(TextMatch::Regex).map_err(|e| {
            let text = e.to_string();
            let msg: Vec<&str> = text.lines().map(str::trim).collect();
            a.err(format!("bad regular expression {re:?}: {}", msg.join(" ")))
        }),
        (None, Some(s)) if !s.is_empty() => Ok(TextMatch::Contains(s.to_owned())),
        _ => Err(a.err(format!(
            "<{}> needs exactly one of `matches` (a regular expression) or `contains` (plain text)",
            a.el.name
        ))),
    }
}

fn detect(el: &El, file: &Path) -> Result<Detect, AahError> {
    let mut a = Attrs::new(el, file);
    let all = match a.opt("match") {
        None | Some("any") => false,
        Some("all") => true,
        Some(v) => return Err(a.err(format!("`match` of <detect> must be any or all, not {v:?}"))),
    };
    a.done()?;
    let mut conditions = Vec::new();
    for c in &el.children {
        let mut ca = Attrs::new(c, file);
        let cond = match c.name.as_str() {
            "xpath" => Condition::XPath(expr(ca.req("expr")?, c.line, file, true)?),
            "url" => Condition::Url(text_match(&mut ca)?),
            "header" => Condition::Header {
                name: ca.req("name")?.to_ascii_lowercase(),
                value: text_match(&mut ca)?,
            },
            _ => return Err(unknown_child(el, c, file)),
        };
        ca.done()?;
        conditions.push(cond);
    }
    if conditions.is_empty() {
        return Err(AahError::kb(
            file,
            el.line,
            "<detect> needs at least one <xpath>, <url> or <header>",
        ));
    }
    Ok(Detect { all, conditions })
}

fn nav(el: &El, file: &Path) -> Result<NavRule, AahError> {
    let mut a = Attrs::new(el, file);
    let name = a.req("name")?.to_owned();
    let e = expr(a.req("xpath")?, el.line, file, false)?;
    let action = if el.name == "skip" {
        NavAction::Skip
    } else {
        let boost = match a.opt("boost") {
            None => None,
            Some(b) => match b.parse::<f32>() {
                Ok(v) if v > 0.0 && v <= 1.0 => Some(v),
                _ => return Err(a.err(format!("`boost` must be a number in (0, 1], not {b:?}"))),
            },
        };
        NavAction::Follow(boost)
    };
    let required = if el.name == "follow" {
        a.flag("required", false)?
    } else {
        false
    };
    a.done()?;
    Ok(NavRule {
        name,
        expr: e,
        action,
        required,
    })
}

fn skip_url(el: &El, file: &Path) -> Result<UrlRule, AahError> {
    let mut a = Attrs::new(el, file);
    let name = a.req("name")?.to_owned();
    let pattern = text_match(&mut a)?;
    a.done()?;
    Ok(UrlRule { name, pattern })
}

fn object(el: &El, file: &Path) -> Result<ObjectRule, AahError> {
    let mut a = Attrs::new(el, file);
    let kind = a.req("type")?.to_owned();
    if !ident_ok(&kind) {
        return Err(a.err(format!(
            "object type {kind:?}: use lowercase letters, digits, '-' or '_'"
        )));
    }
    let root = a
        .opt("root")
        .map(|r| expr(r, el.line, file, false))
        .transpose()?;
    let repeat = a.flag("repeat", false)?;
    let required = a.flag("required", !repeat)?;
    a.done()?;
    let mut fields: Vec<FieldRule> = Vec::new();
    for c in &el.children {
        if c.name != "field" {
            return Err(unknown_child(el, c, file));
        }
        let mut fa = Attrs::new(c, file);
        let name = fa.req("name")?.to_owned();
        if !ident_ok(&name) {
            return Err(fa.err(format!(
                "field name {name:?}: use lowercase letters, digits, '-' or '_'"
            )));
        }
        if fields.iter().any(|f| f.name == name) {
            return Err(fa.err(format!("field `{name}` appears twice in object `{kind}`")));
        }
        let e = expr(fa.req("xpath")?, c.line, file, false)?;
        let required = fa.flag("required", false)?;
        let min_len = match fa.opt("min-length") {
            None => 1,
            Some(v) => v
                .parse::<usize>()
                .map_err(|_| fa.err(format!("`min-length` must be a whole number, not {v:?}")))?,
        };
        fa.done()?;
        fields.push(FieldRule {
            name,
            expr: e,
            required,
            min_len,
        });
    }
    if fields.is_empty() {
        return Err(AahError::kb(
            file,
            el.line,
            format!("object `{kind}` has no <field>"),
        ));
    }
    Ok(ObjectRule {
        kind,
        root,
        repeat,
        required,
        fields,
    })
}

fn level(el: &El, file: &Path) -> Result<Level, AahError> {
    let mut a = Attrs::new(el, file);
    let id = a.req("id")?.to_owned();
    if !ident_ok(&id) {
        return Err(a.err(format!(
            "level id {id:?}: use lowercase letters, digits, '-' or '_'"
        )));
    }
    let kind = match a.req("kind")? {
        "intermediate" => LevelKind::Intermediate,
        "terminal" => LevelKind::Terminal,
        v => {
            return Err(a.err(format!(
                "`kind` must be intermediate or terminal, not {v:?}"
            )))
        }
    };
    let others_skip = match a.opt("other-links") {
        None | Some("follow") => false,
        Some("skip") => true,
        Some(v) => return Err(a.err(format!("`other-links` must be follow or skip, not {v:?}"))),
    };
    a.done()?;
    let mut det = None;
    let mut objects = Vec::new();
    let mut navs = Vec::new();
    for c in &el.children {
        match c.name.as_str() {
            "detect" if det.is_none() => det = Some(detect(c, file)?),
            "detect" => return Err(AahError::kb(file, c.line, "a level has one <detect>")),
            "object" if kind == LevelKind::Intermediate => {
                return Err(AahError::kb(
                    file,
                    c.line,
                    format!("level `{id}` is intermediate: intermediate levels only navigate, so <object> is not allowed"),
                ))
            }
            "object" => objects.push(object(c, file)?),
            "follow" | "skip" => navs.push(nav(c, file)?),
            _ => return Err(unknown_child(el, c, file)),
        }
    }
    let detect =
        det.ok_or_else(|| AahError::kb(file, el.line, format!("level `{id}` has no <detect>")))?;
    Ok(Level {
        id,
        kind,
        detect,
        objects,
        nav: navs,
        others_skip,
        line: el.line,
    })
}

/// Reads and checks one application file.
pub(super) fn application(src: &str, file: &Path) -> Result<Application, AahError> {
    let root = tree(src, file)?;
    if root.name != "application" {
        return Err(AahError::kb(
            file,
            root.line,
            format!(
                "the root element must be <application>, not <{}>",
                root.name
            ),
        ));
    }
    let mut a = Attrs::new(&root, file);
    let id = a.req("id")?.to_owned();
    if !ident_ok(&id) {
        return Err(a.err(format!(
            "application id {id:?}: use lowercase letters, digits, '-' or '_'"
        )));
    }
    let name = a.req("name")?.to_owned();
    let cat = a.req("category")?;
    let category = Category::parse(cat).ok_or_else(|| {
        a.err(format!(
            "unknown category {cat:?}: use one of blog, wiki, forum, cms, news, docs"
        ))
    })?;
    let _version = a.opt("format");
    a.done()?;
    let mut description = String::new();
    let mut det = None;
    let mut levels: Vec<Level> = Vec::new();
    let mut navs = Vec::new();
    let mut skip_urls = Vec::new();
    for c in &root.children {
        match c.name.as_str() {
            "description" => description = c.text.split_whitespace().collect::<Vec<_>>().join(" "),
            "detect" if det.is_none() => det = Some(detect(c, file)?),
            "detect" => {
                return Err(AahError::kb(
                    file,
                    c.line,
                    "an application has one <detect>",
                ))
            }
            "level" => {
                let l = level(c, file)?;
                if levels.iter().any(|x| x.id == l.id) {
                    return Err(AahError::kb(
                        file,
                        c.line,
                        format!("level id `{}` appears twice", l.id),
                    ));
                }
                levels.push(l);
            }
            "follow" | "skip" => navs.push(nav(c, file)?),
            "skip-url" => skip_urls.push(skip_url(c, file)?),
            _ => return Err(unknown_child(&root, c, file)),
        }
    }
    let detect =
        det.ok_or_else(|| AahError::kb(file, root.line, "<application> has no <detect>"))?;
    Ok(Application {
        id,
        name,
        category,
        description,
        detect,
        levels,
        nav: navs,
        skip_urls,
        file: file.to_path_buf(),
    })
}
