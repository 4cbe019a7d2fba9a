//! Detection through relaxed level patterns (ARCOMEM §4.1, "Web application level not
//! detected"): an adopted relaxed pattern of the host, the pending one (validated or rejected by
//! this page), or, within the attempt budget, the first matching candidate built from the
//! knowledge base's level patterns.

use super::engine::Page;
use super::helper::{first_xpath, report, Helper, DETECT_KEY};
use super::kb::Category;
use super::output::{ActionReport, ActionStatus};
use super::relax;
use super::relax::adapt::{HostState, Pending, Recovery};

impl Helper {
    /// Detection through relaxed level patterns: an adopted one, the pending one (validated or
    /// rejected by this page), or a new candidate within the attempt budget. Returns the
    /// (application, level) once adopted.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn relaxed_detection(
        &self,
        st: &mut HostState,
        page: &Page<'_>,
        host: &str,
        url: &str,
        app_filter: Option<usize>,
        order: &[Category],
        actions: &mut Vec<ActionReport>,
    ) -> Option<(usize, usize)> {
        let index = |app: &str, level: &str| {
            let ai = self.kb.apps.iter().position(|a| a.id == app)?;
            if app_filter.is_some_and(|f| f != ai) {
                return None;
            }
            let li = self.kb.apps[ai].levels.iter().position(|l| l.id == level)?;
            Some((ai, li))
        };
        for a in st.adoptions.iter().filter(|a| a.source == "detection") {
            if let Some(ix) = index(&a.application, &a.level) {
                if page.truthy(&a.relaxed, page.root()) {
                    actions.push(report(
                        &a.action,
                        ActionStatus::Relaxed,
                        &a.relaxed,
                        Some(&a.original),
                    ));
                    return Some(ix);
                }
            }
        }
        let limits = self.limits();
        let pending: Vec<(String, Pending)> = st
            .pending
            .iter()
            .filter(|(_, p)| p.action.ends_with("/detect"))
            .map(|(k, p)| (k.clone(), p.clone()))
            .collect();
        for (key, p) in pending {
            let Some(ix) = index(&p.application, &p.level) else {
                continue;
            };
            if page.truthy(&p.candidate, page.root()) {
                return match st.validate(&key, url, &limits) {
                    Recovery::Adopted(e) => {
                        actions.push(report(
                            &p.action,
                            ActionStatus::Relaxed,
                            &e,
                            Some(&p.original),
                        ));
                        Some(ix)
                    }
                    _ => {
                        actions.push(report(
                            &p.action,
                            ActionStatus::Pending,
                            &p.candidate,
                            Some(&p.original),
                        ));
                        None
                    }
                };
            }
            st.reject(&key);
        }
        let key = match app_filter {
            Some(ai) => format!("{}/*/detect", self.kb.apps[ai].id),
            None => DETECT_KEY.to_owned(),
        };
        if !st.try_attempt(&key, &limits) {
            return None;
        }
        let vocab = page.vocab();
        let cands = relax::detection_candidates(&self.vocab, order, app_filter, &vocab);
        for (ai, li, c) in cands.into_iter().take(self.options.max_tries) {
            let app = &self.kb.apps[ai];
            let level = &app.levels[li];
            let action = format!("{}/detect", level.id);
            let pkey = format!("{}/{}", app.id, action);
            if st.is_rejected(&pkey, &c.expr) || !page.truthy(&c.expr, page.root()) {
                continue;
            }
            let original = first_xpath(level).unwrap_or_default();
            let p = Pending {
                host: host.to_owned(),
                application: app.id.clone(),
                level: level.id.clone(),
                action: action.clone(),
                original: original.clone(),
                candidate: c.expr.clone(),
                source: "detection",
                pages: vec![url.to_owned()],
            };
            return match st.start(&pkey, p, &limits) {
                Recovery::Adopted(e) => {
                    actions.push(report(&action, ActionStatus::Relaxed, &e, Some(&original)));
                    Some((ai, li))
                }
                _ => {
                    actions.push(report(
                        &action,
                        ActionStatus::Pending,
                        &c.expr,
                        Some(&original),
                    ));
                    None
                }
            };
        }
        None
    }
}
