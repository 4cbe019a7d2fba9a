//! `magpie kb check` and `magpie kb detect`: the knowledge-base tools, as functions returning the
//! text to print, so `main.rs` stays a thin dispatcher.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use url::Url;

use super::error::AahError;
use super::kb::{Condition, KnowledgeBase, LevelKind};
use super::output::{ActionStatus, AppMatch, LinkAction};
use super::Helper;
use crate::parse::ParseLimits;

/// The folder `kb` tools read when `--kb` is not given, if it exists.
pub const DEFAULT_KB_DIR: &str = "kb";

/// The knowledge base a `kb` tool works on: the folder given, else `./kb` when there is one (a
/// source checkout), else the knowledge base built into the program (as a crawl uses), so the
/// tools work from any folder. Returns the knowledge base and how to name it.
pub fn resolve_kb(dir: Option<&Path>) -> Result<(KnowledgeBase, String), AahError> {
    let local = PathBuf::from(DEFAULT_KB_DIR);
    match dir {
        Some(d) => Ok((KnowledgeBase::load(d)?, d.display().to_string())),
        None if local.is_dir() => Ok((KnowledgeBase::load(&local)?, DEFAULT_KB_DIR.into())),
        None => Ok((super::builtin()?, "built-in knowledge base".into())),
    }
}

/// Validates a knowledge base (see [`resolve_kb`]); returns a summary (one line per
/// application, then notes on expressions the pre-filter cannot skip). Errors name file, line
/// and reason.
pub fn check(dir: Option<&Path>) -> Result<String, AahError> {
    let (kb, name) = resolve_kb(dir)?;
    let mut out = String::new();
    let mut notes = Vec::new();
    for app in &kb.apps {
        let objects: usize = app.levels.iter().map(|l| l.objects.len()).sum();
        let fields: usize = app
            .levels
            .iter()
            .flat_map(|l| &l.objects)
            .map(|o| o.fields.len())
            .sum();
        let nav: usize = app.nav.len() + app.levels.iter().map(|l| l.nav.len()).sum::<usize>();
        let terminal = app
            .levels
            .iter()
            .filter(|l| l.kind == LevelKind::Terminal)
            .count();
        let _ = writeln!(
            out,
            "{} ({}, {}): {} levels ({} terminal), {} object rules with {} fields, {} navigation rules, {} skipped URL patterns",
            app.id,
            app.category.as_str(),
            app.file.display(),
            app.levels.len(),
            terminal,
            objects,
            fields,
            nav,
            app.skip_urls.len()
        );
        let unfiltered = app
            .detect
            .conditions
            .iter()
            .any(|c| matches!(c, Condition::XPath(e) if e.req.is_none()));
        if unfiltered {
            notes.push(format!(
                "note: {}: an application detection expression has no pre-filter words, so it runs on every page",
                app.file.display()
            ));
        }
        let all_exprs = app
            .levels
            .iter()
            .flat_map(|l| {
                l.objects
                    .iter()
                    .flat_map(|o| o.root.iter().chain(o.fields.iter().map(|f| &f.expr)))
                    .chain(l.nav.iter().map(|n| &n.expr))
            })
            .chain(app.nav.iter().map(|n| &n.expr));
        for e in all_exprs {
            if e.src.contains("table/tr") {
                notes.push(format!(
                    "note: {}:{}: `table/tr` never matches (browsers insert <tbody>); write `table//tr`",
                    app.file.display(),
                    e.line
                ));
            }
        }
    }
    let _ = writeln!(out, "{name}: {} applications: ok", kb.apps.len());
    for n in notes {
        let _ = writeln!(out, "{n}");
    }
    Ok(out)
}

/// Runs detection and extraction on a saved page, as if fetched from `url`, with the knowledge
/// base of [`resolve_kb`]; returns the report (text, or the JSON contract with `json`).
pub fn detect(kb: Option<&Path>, file: &Path, url: &str, json: bool) -> Result<String, AahError> {
    let helper = Helper::from_kb(resolve_kb(kb)?.0);
    let url = parse_url(url, "--url")?;
    detect_one(&helper, file, &url, json)
}

/// Runs detection and extraction on the pages a list names (lines `URL FILE`, files relative
/// to the list), in order and with one helper, as a crawl reads them: each page with what the
/// earlier pages of its host taught. With `settled`, every page is read once first and the
/// reports are of a second reading (what a crawl's re-reading of a host's first pages gives).
/// JSON contracts come one per line.
pub fn detect_pages(
    kb: Option<&Path>,
    list: &Path,
    settled: bool,
    json: bool,
) -> Result<String, AahError> {
    let helper = Helper::from_kb(resolve_kb(kb)?.0);
    let text = std::fs::read_to_string(list).map_err(|e| AahError::Input {
        what: list.display().to_string(),
        reason: e.to_string(),
    })?;
    let base = list.parent().unwrap_or(Path::new("."));
    let mut pages = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{}:{}", list.display(), i + 1);
        let (url, file) = line
            .split_once(char::is_whitespace)
            .ok_or_else(|| AahError::Input {
                what: at.clone(),
                reason: "expected `URL FILE`".into(),
            })?;
        pages.push((parse_url(url, &at)?, base.join(file.trim())));
    }
    if settled {
        for (url, file) in &pages {
            analyze_file(&helper, file, url)?;
        }
        helper.settle()?;
    }
    // Each page's last reading, as a crawl leaves it in the archive: a page read before its
    // host's model could judge it is read again later (`Helper::take_revisions`).
    let mut found: Vec<AppMatch> = Vec::with_capacity(pages.len());
    let revise = |found: &mut Vec<AppMatch>, revisions: Vec<crate::aah::Revision>| {
        for r in revisions {
            if let Some(m) = found.iter_mut().rev().find(|m| m.url == r.reading.url) {
                m.application = r.reading.application;
                m.level = r.reading.level;
                m.objects = r.reading.objects;
                m.actions.extend(r.reading.actions);
            }
        }
    };
    for (url, file) in &pages {
        found.push(analyze_file(&helper, file, url)?);
        revise(&mut found, helper.take_revisions());
    }
    revise(&mut found, helper.settle()?);
    let mut out = String::new();
    for m in &found {
        if json {
            let s = serde_json::to_string(&m.contract()).unwrap_or_default();
            out.push_str(&s);
        } else {
            out.push_str(&text_report(m));
        }
        out.push('\n');
    }
    Ok(out)
}

fn parse_url(url: &str, what: &str) -> Result<Url, AahError> {
    Url::parse(url).map_err(|e| AahError::Input {
        what: format!("{what} {url}"),
        reason: e.to_string(),
    })
}

/// Reads a saved page as fetched from `url`.
fn analyze_file(helper: &Helper, file: &Path, url: &Url) -> Result<AppMatch, AahError> {
    let body = std::fs::read(file).map_err(|e| AahError::Input {
        what: file.display().to_string(),
        reason: e.to_string(),
    })?;
    let parsed = crate::parse::html(&body, None, None, url, &ParseLimits::default());
    let mut m = helper.analyze(url, &[], &body, &parsed.links)?.app;
    mark_discovery_links(&mut m, &parsed.links);
    Ok(m)
}

fn detect_one(helper: &Helper, file: &Path, url: &Url, json: bool) -> Result<String, AahError> {
    let m = analyze_file(helper, file, url)?;
    if json {
        let mut s = serde_json::to_string_pretty(&m.contract()).unwrap_or_default();
        s.push('\n');
        return Ok(s);
    }
    Ok(text_report(&m))
}

/// Shows discovery links of the page head (shortlink, RSD, feeds, ...) as a crawl with the
/// default spec treats them: skipped (`scope.discovery_links`), unless a rule asked for them.
fn mark_discovery_links(m: &mut AppMatch, links: &[crate::model::Link]) {
    let discovery: std::collections::HashSet<&str> = links
        .iter()
        .filter(|l| l.context == crate::parse::DISCOVERY_CONTEXT)
        .map(|l| l.url.as_str())
        .collect();
    for v in &mut m.links {
        if v.rule == super::output::DEFAULT_RULE && discovery.contains(v.url.as_str()) {
            v.action = LinkAction::Skip;
            v.boost = None;
            v.rule = "discovery".into();
        }
    }
}

fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let cut: String = s.chars().take(max).collect();
    format!("{cut}…")
}

/// The human-readable report of `kb detect`.
pub fn text_report(m: &AppMatch) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "url: {}", m.url);
    match &m.application {
        Some(a) => {
            let _ = writeln!(
                out,
                "application: {} ({}){}",
                a.name,
                a.category.as_str(),
                if a.relaxed { " [relaxed]" } else { "" }
            );
        }
        None => {
            let _ = writeln!(out, "application: none");
        }
    }
    match &m.level {
        Some(l) => {
            let _ = writeln!(
                out,
                "level: {} ({}){}",
                l.name,
                l.kind.as_str(),
                if l.relaxed { " [relaxed]" } else { "" }
            );
        }
        None => {
            let _ = writeln!(out, "level: none");
        }
    }
    let _ = writeln!(out, "objects: {}", m.objects.len());
    for o in &m.objects {
        let _ = writeln!(out, "  {}", o.kind);
        for (k, v) in &o.fields {
            let _ = writeln!(out, "    {k}: {}", short(v, 100));
        }
    }
    let count = |a: LinkAction| m.links.iter().filter(|l| l.action == a).count();
    let _ = writeln!(
        out,
        "links: {} follow, {} boost, {} skip, {} defer",
        count(LinkAction::Follow),
        count(LinkAction::Boost),
        count(LinkAction::Skip),
        count(LinkAction::Defer)
    );
    for l in &m.links {
        let action = match (l.action, l.boost) {
            (LinkAction::Boost, Some(b)) => format!("boost(+{b})"),
            (LinkAction::Boost, None) => "boost".into(),
            (LinkAction::Follow, _) => "follow".into(),
            (LinkAction::Skip, _) => "skip".into(),
            (LinkAction::Defer, _) => "defer".into(),
        };
        let _ = writeln!(out, "  {action:<11} {}  [{}]", l.url, l.rule);
    }
    if !m.actions.is_empty() {
        let _ = writeln!(out, "actions:");
        for a in &m.actions {
            let status = match a.status {
                ActionStatus::Ok => "ok",
                ActionStatus::Relaxed => "relaxed",
                ActionStatus::Pending => "pending",
                ActionStatus::Failed => "failed",
                ActionStatus::Learned => "learned",
            };
            let _ = write!(out, "  {status:<8} {}  {}", a.action, a.expr);
            if let Some(o) = &a.original {
                let _ = write!(out, "  (instead of {o})");
            }
            out.push('\n');
        }
    }
    out
}
