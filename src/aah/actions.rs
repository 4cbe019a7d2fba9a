//! The crawling actions of a detected level: extraction of web objects (with recovery of failed
//! roots and fields through adopted relaxations, pending candidates, relearning from captured
//! content, or new candidates) and navigation verdicts for the page's links.

use std::collections::HashSet;

use sxd_xpath::nodeset::Node as XNode;
use url::Url;

use super::engine::{self, Page};
use super::error::AahError;
use super::helper::{report, Ctx, Helper};
use super::kb::{Level, NavAction, NavRule, ObjectRule};
use super::output::{ActionReport, ActionStatus, AppMatch, LinkAction, LinkVerdict};
use super::relax::adapt::{relearn_field, ActionId, HostState, Recovery};
use super::relax::path;
use super::relax::store::{Captured, CAPTURE_BYTES, CAPTURE_OBJECTS};
use super::relax::{self, Candidate};
use crate::model::{Hop, Link};

/// Index of the first step of `p` that selects nothing from any of `at` (all steps work: the
/// last step).
fn first_failing<'d>(page: &Page<'d>, p: &path::Path, at: &[XNode<'d>]) -> usize {
    for n in 1..=p.steps.len() {
        let Some(src) = p.prefix(n).render() else {
            return n - 1;
        };
        if at.iter().take(5).all(|a| page.nodes(&src, *a).is_empty()) {
            return n - 1;
        }
    }
    p.steps.len().saturating_sub(1)
}

fn candidates<'d>(
    helper: &Helper,
    ctx: &Ctx<'_, 'd>,
    original: &str,
    role: &str,
    at: &[XNode<'d>],
) -> Vec<Candidate> {
    let sources = helper.vocab.sources(role, ctx.ai, ctx.app.category);
    let vocab = ctx.page.vocab();
    relax::candidates(
        original,
        |p| first_failing(ctx.page, p, at),
        &sources,
        &vocab,
    )
}

fn status_of(r: &Recovery) -> ActionStatus {
    match r {
        Recovery::Adopted(_) => ActionStatus::Relaxed,
        Recovery::Pending(_) => ActionStatus::Pending,
        Recovery::Failed => ActionStatus::Failed,
    }
}

fn truncate(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

impl Helper {
    /// Runs the extraction actions of a terminal level, recovering failed ones; returns the
    /// content to capture for a later recrawl, when the helper keeps a store and found some.
    /// Fails when the content captured on an earlier visit, read to relearn a failed field,
    /// is in the store but cannot be read or does not decode: relearning without it would
    /// silently forget it.
    pub(crate) fn extract(
        &self,
        ctx: &Ctx<'_, '_>,
        st: &mut HostState,
        level: &Level,
        out: &mut AppMatch,
    ) -> Result<Option<Captured>, AahError> {
        let page = ctx.page;
        let limits = self.limits();
        // Read once, when a field first needs relearning.
        let captured: std::cell::OnceCell<Result<Option<Captured>, AahError>> =
            std::cell::OnceCell::new();
        let mut capture = Captured {
            application: ctx.app.id.clone(),
            level: level.id.clone(),
            ..Captured::default()
        };
        for obj in &level.objects {
            let obj_action = format!("{}/{}", level.id, obj.kind);
            let mut root_src = obj.root.as_ref().map(|e| e.src.clone());
            let mut fields: Vec<String> = obj.fields.iter().map(|f| f.expr.src.clone()).collect();
            let mut res = engine::extract(page, obj, root_src.as_deref(), &refs(&fields));
            if let Some(orig) = obj.root.as_ref().map(|e| e.src.as_str()) {
                if res.roots == 0 && obj.required {
                    let id = self.action_id(ctx, level, &obj_action, orig);
                    let works = |c: &str| root_works(page, obj, c, &fields);
                    let r = st.recover(&id, &limits, &works, &|| None, &|| {
                        candidates(
                            self,
                            ctx,
                            orig,
                            &format!("object:{}", obj.kind),
                            &[page.root()],
                        )
                    });
                    out.actions.push(recovery_report(&obj_action, &r, orig));
                    if let Recovery::Adopted(e) = &r {
                        root_src = Some(e.clone());
                        res = engine::extract(page, obj, root_src.as_deref(), &refs(&fields));
                    }
                } else if res.roots > 0 {
                    out.actions
                        .push(report(&obj_action, ActionStatus::Ok, orig, None));
                }
            }
            let roots: Vec<XNode<'_>> = match &root_src {
                Some(r) => page.nodes(r, page.root()),
                None => vec![page.root()],
            };
            let roots: Vec<XNode<'_>> = if obj.repeat {
                roots
            } else {
                roots.into_iter().take(1).collect()
            };
            if roots.is_empty() {
                // No object (a post without comments): nothing to extract, nothing failed.
                continue;
            }
            let mut changed = false;
            for (i, f) in obj.fields.iter().enumerate() {
                let action = format!("{obj_action}/{}", f.name);
                if res.found[i] > 0 {
                    out.actions
                        .push(report(&action, ActionStatus::Ok, &f.expr.src, None));
                    continue;
                }
                if !f.required {
                    out.actions
                        .push(report(&action, ActionStatus::Failed, &f.expr.src, None));
                    continue;
                }
                let id = self.action_id(ctx, level, &action, &f.expr.src);
                let works = |c: &str| {
                    roots.iter().take(5).any(|r| {
                        engine::field_value(page, c, *r)
                            .is_some_and(|v| engine::plausible(&v, f.min_len))
                    })
                };
                let relearn = || {
                    let cap = captured
                        .get_or_init(|| self.captured(ctx.host, ctx.url))
                        .as_ref()
                        .ok()?
                        .as_ref()?;
                    let value = cap.fields.get(&action)?.first()?;
                    let len = cap
                        .lengths
                        .get(&action)
                        .and_then(|l| l.first().copied())
                        .unwrap_or(value.len());
                    relearn_field(page, &roots, value, len, f.expr.src.starts_with('.'))
                };
                let generate =
                    || candidates(self, ctx, &f.expr.src, &format!("field:{}", f.name), &roots);
                let r = st.recover(&id, &limits, &works, &relearn, &generate);
                out.actions.push(recovery_report(&action, &r, &f.expr.src));
                if let Recovery::Adopted(e) = r {
                    fields[i] = e;
                    changed = true;
                }
            }
            if changed {
                res = engine::extract(page, obj, root_src.as_deref(), &refs(&fields));
            }
            for f in obj.fields.iter() {
                let values: Vec<String> = res
                    .objects
                    .iter()
                    .filter_map(|o| o.field(&f.name))
                    .take(CAPTURE_OBJECTS)
                    .map(|v| truncate(v, CAPTURE_BYTES))
                    .collect();
                if !values.is_empty() {
                    capture
                        .fields
                        .insert(format!("{obj_action}/{}", f.name), values);
                }
            }
            out.objects.extend(res.objects);
        }
        if let Some(Err(e)) = captured.into_inner() {
            return Err(e);
        }
        Ok((self.store.is_some() && !capture.fields.is_empty()).then_some(capture))
    }

    fn action_id<'a>(
        &self,
        ctx: &'a Ctx<'a, '_>,
        level: &'a Level,
        action: &'a str,
        original: &'a str,
    ) -> ActionId<'a> {
        ActionId {
            host: ctx.host,
            url: ctx.url,
            application: &ctx.app.id,
            level: &level.id,
            action,
            original,
        }
    }

    fn captured(&self, host: &str, url: &str) -> Result<Option<Captured>, AahError> {
        match self.store.as_ref() {
            Some(store) => store.captured(host, url),
            None => Ok(None),
        }
    }

    /// Verdicts for the page's navigation links, recovering required navigation rules that
    /// select nothing.
    pub(crate) fn navigate(
        &self,
        ctx: &Ctx<'_, '_>,
        st: &mut HostState,
        level: Option<&Level>,
        url: &Url,
        links: &[Link],
        actions: &mut Vec<ActionReport>,
    ) -> Vec<LinkVerdict> {
        let page = ctx.page;
        let base = engine::base_url(page, url);
        let limits = self.limits();
        let mut rules: Vec<(&NavRule, String, String, HashSet<String>)> = Vec::new();
        let level_rules = level
            .into_iter()
            .flat_map(|l| l.nav.iter().map(move |r| (r, l.id.as_str())));
        let app_rules = ctx.app.nav.iter().map(|r| (r, "*"));
        for (rule, lid) in level_rules.chain(app_rules) {
            let label = format!("{}/{lid}/{}", ctx.app.id, rule.name);
            let action = format!("{lid}/{}", rule.name);
            let mut urls = engine::link_urls(page, &rule.expr.src, &base);
            if urls.is_empty() && rule.required {
                let lvl = level.filter(|_| lid != "*");
                let id = ActionId {
                    host: ctx.host,
                    url: ctx.url,
                    application: &ctx.app.id,
                    level: lvl.map(|l| l.id.as_str()).unwrap_or("*"),
                    action: &action,
                    original: &rule.expr.src,
                };
                let works = |c: &str| !engine::link_urls(page, c, &base).is_empty();
                let r = st.recover(&id, &limits, &works, &|| None, &|| {
                    candidates(
                        self,
                        ctx,
                        &rule.expr.src,
                        &format!("nav:{}", rule.name),
                        &[page.root()],
                    )
                });
                actions.push(recovery_report(&action, &r, &rule.expr.src));
                if let Recovery::Adopted(e) = r {
                    urls = engine::link_urls(page, &e, &base);
                }
            } else if !urls.is_empty() {
                actions.push(report(&action, ActionStatus::Ok, &rule.expr.src, None));
            }
            rules.push((rule, label, action, urls));
        }
        let others_skip = level.is_some_and(|l| l.others_skip);
        links
            .iter()
            .filter(|l| l.hop == Hop::Link)
            .map(|l| {
                let verdict = |action, boost, rule: String| LinkVerdict {
                    url: l.url.clone(),
                    action,
                    boost,
                    rule,
                    instead: None,
                };
                if let Some(r) = ctx
                    .app
                    .skip_urls
                    .iter()
                    .find(|r| r.pattern.is_match(&l.url))
                {
                    return verdict(
                        LinkAction::Skip,
                        None,
                        format!("{}/*/{}", ctx.app.id, r.name),
                    );
                }
                for (rule, label, _, urls) in &rules {
                    if rule.action == NavAction::Skip && urls.contains(&l.url) {
                        return verdict(LinkAction::Skip, None, label.clone());
                    }
                }
                for (rule, label, _, urls) in &rules {
                    if let NavAction::Follow(boost) = rule.action {
                        if urls.contains(&l.url) {
                            return match boost {
                                Some(b) => verdict(LinkAction::Boost, Some(b), label.clone()),
                                None => verdict(LinkAction::Follow, None, label.clone()),
                            };
                        }
                    }
                }
                match level.filter(|_| others_skip) {
                    Some(lv) => verdict(
                        LinkAction::Skip,
                        None,
                        format!("{}/{}/other-links", ctx.app.id, lv.id),
                    ),
                    None => verdict(LinkAction::Follow, None, super::output::DEFAULT_RULE.into()),
                }
            })
            .collect()
    }
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn recovery_report(action: &str, r: &Recovery, original: &str) -> ActionReport {
    match r {
        Recovery::Adopted(e) | Recovery::Pending(e) => {
            report(action, status_of(r), e, Some(original))
        }
        Recovery::Failed => report(action, ActionStatus::Failed, original, None),
    }
}

/// Whether a candidate root expression finds plausible objects: some roots (not absurdly many
/// for a single object) under which a required field (or, without one, any field) has a value.
fn root_works(page: &Page<'_>, obj: &ObjectRule, candidate: &str, fields: &[String]) -> bool {
    let roots = page.nodes(candidate, page.root());
    if roots.is_empty() || (!obj.repeat && roots.len() > 20) {
        return false;
    }
    let any_required = obj.fields.iter().any(|f| f.required);
    roots.iter().take(5).any(|r| {
        obj.fields
            .iter()
            .zip(fields)
            .filter(|(f, _)| f.required || !any_required)
            .any(|(f, src)| {
                engine::field_value(page, src, *r).is_some_and(|v| engine::plausible(&v, f.min_len))
            })
    })
}
