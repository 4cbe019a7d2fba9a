//! Pages no knowledge-base application matches: the helper reads them with `generic` (category
//! from general evidence, list or single item from the layout, title and body), each with the
//! model of its host that `generic` keeps (furniture, site name, evidence summed over the
//! host's pages, kinds per URL template). Once enough pages agree on their own, the category
//! is adopted for the host, stored with the pages that showed it and listed with the other
//! relaxations (API and cockpit).

use std::collections::HashMap;

use url::Url;

use super::generic::{self, Lesson};
use super::helper::default_verdicts;
use super::helper::Helper;
use super::kb::{Category, LevelKind};
use super::memory::Unknown;
use super::output::{
    ActionReport, ActionStatus, AppInfo, AppMatch, LevelInfo, LinkAction, WebObject,
};
use super::relax::adapt::HostState;
use super::relax::store::Adoption;
use super::reread::{summary, Capture, Kept};
use crate::model::Link;

/// Application name reported for a page no knowledge-base application matched.
pub const UNKNOWN_APP: &str = "unknown";
/// Action id of a host's adopted category.
const CATEGORY_ACTION: &str = "*/category";
/// Action id of a page's reading made again, later (see `reread`).
pub(super) const REREAD_ACTION: &str = "*/reread";
/// Action id of a host's learned navigation rules.
const NAVIGATION_ACTION: &str = "*/skip";
/// Navigation rules recorded per host (later ones still apply, unrecorded).
const MAX_NAVIGATION_RULES: usize = 64;
/// Votes kept per host.
const MAX_VOTES: usize = 16;
/// Pages of a host read before reading only now and then a host that shows no category at
/// all: reading costs a parse of the page, which a site that is no blog, forum, wiki or news
/// site should not pay on every page.
const MAX_READS_WITHOUT_CATEGORY: u32 = 10;
/// Past [`MAX_READS_WITHOUT_CATEGORY`], one page in this many is still read: a site whose
/// first pages say nothing (a landing page, a few static pages) may show its category later,
/// and is not given up for good.
const READ_AGAIN_EVERY: u32 = 10;

impl Helper {
    /// Reads a page of an unknown application into `out` (application `unknown` with the
    /// category, level `item` or `list`, one `item` object with title and body). `parsed` is the
    /// page's tree when the helper has already built it. A page read before the host's model
    /// could judge it is kept to be read again (`reread`); so are the host's earlier pages
    /// that this one lets the model judge now read again. Returns the links the page offers as
    /// views of itself, with why (`generic::page_views`), for [`Helper::unknown_verdicts`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn read_unknown(
        &self,
        page: &mut Unknown,
        st: &mut HostState,
        url: &Url,
        text: &str,
        parsed: Option<&scraper::Html>,
        out: &mut AppMatch,
        capture: Option<Capture>,
    ) -> HashMap<String, &'static str> {
        let adopted = adopted_category(st);
        let model = &mut page.model;
        let weak = adopted.is_none()
            && model.pages() >= MAX_READS_WITHOUT_CATEGORY
            && model.category().is_none();
        if weak && !model.pass_over(READ_AGAIN_EVERY) {
            // Passed over, not given up: kept unread (where room is left) to be read once a
            // later page shows the host's category, as the pages before it were.
            page.keep.push(Kept {
                url: url.clone(),
                text: text.to_owned(),
                confirmed: capture.is_none(),
                capture,
                read_at: model.pages(),
                first: summary(out),
                level: None,
                objects: Vec::new(),
                had_app: false,
                disputed: false,
                unread: true,
            });
            return HashMap::new();
        }
        page.read = true;
        // The tree the helper already parsed, or a parse of its own (only past the check above).
        let own;
        let html = match parsed {
            Some(html) => html,
            None => {
                own = crate::parse::parse_document(text);
                &own
            }
        };
        let reading = generic::read(html, url, model);
        let views = generic::page_views(html, url, model);
        let early = generic::too_early(url, model);
        let pages = model.pages();
        // The host's own category is the vote, whatever part of a split host the page is in.
        let host_category = model.category();
        if let Some(c) = host_category {
            if st.generic_votes.len() >= MAX_VOTES {
                st.generic_votes.remove(0);
            }
            st.generic_votes.push((c, url.to_string()));
        }
        // The host's evidence decides, the page's own is one vote in it; an adopted category
        // stays, unless the page's section clearly says another.
        let category = match reading.by_section {
            true => reading.category,
            false => adopted.or(reading.category),
        };
        if adopted.is_none() {
            self.adopt_category(&page.host, st);
        }
        fill(out, category, &reading);
        // A page whose own evidence names another category than the one it was given may be
        // of a part of the host its model cannot tell apart yet (documentation beside a blog).
        let disputed = disputes(&reading, category);
        if (early || disputed) && !weak {
            page.keep.push(Kept {
                url: url.clone(),
                text: text.to_owned(),
                confirmed: capture.is_none(),
                capture,
                read_at: pages,
                first: summary(out),
                level: out.level.clone(),
                objects: out.objects.clone(),
                had_app: out.application.is_some(),
                disputed,
                unread: false,
            });
        }
        views
    }

    /// Verdicts on the links of a page no knowledge-base application matched, into
    /// `out.links`: links to views, actions and renderings (`generic::not_worth_on`) are
    /// skipped on a host whose category is known, and deferred (queued last) on one whose
    /// category no page has shown yet: a forum's home page links to `/login` before any page
    /// says it is a forum, and a host that is no forum, wiki, blog, news or docs site still
    /// gets its `.txt` files; each URL template skipped is recorded once per host, with the
    /// page that showed it, like an adopted relaxation (listed by the API and the cockpit's
    /// hosts page, logged), and reported in `out.actions` as learned on this page, so that the
    /// crawl can take URLs of that kind already queued out of the queue
    /// ([`Helper::not_worth_queued`]).
    pub(crate) fn unknown_verdicts(
        &self,
        unknown: &mut Unknown,
        st: &mut HostState,
        page: &Url,
        out: &mut AppMatch,
        links: &[Link],
        views: &HashMap<String, &'static str>,
    ) {
        out.links = default_verdicts(links);
        let host = unknown.host.as_str();
        let model = &mut unknown.model;
        let known = model.category().is_some()
            || out
                .application
                .as_ref()
                .is_some_and(|a| a.name == UNKNOWN_APP);
        let same_host: Vec<(usize, Url)> = out
            .links
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((i, Url::parse(&v.url).ok()?)))
            .filter(|(_, u)| crate::uri::host_key(u) == host)
            .collect();
        let mut linked = std::collections::HashSet::new();
        for (_, u) in &same_host {
            model.teach(Lesson::Link(u.clone()));
            let mut bare = u.clone();
            bare.set_fragment(None);
            linked.insert(bare.to_string());
        }
        for (_, u) in &same_host {
            if generic::among_children(u, &linked) {
                let template = model.nav_template(u);
                model.teach(Lesson::Children(template));
            }
        }
        for (i, u) in same_host {
            let v = &mut out.links[i];
            if let Some(w) = model.with_slash(&u) {
                v.rule = format!("{UNKNOWN_APP}/*/slash {}", model.nav_template(&u));
                v.instead = Some(w.into());
            }
            let found = generic::not_worth_on(&u, page, &linked, model).or_else(|| {
                let why = *views.get(&v.url)?;
                // Another display is learned by its own path (`whistory?name`), which the
                // host's template of it (`*?name=*`) would not tell from the page itself.
                let displayed = (why == generic::REQUERIED)
                    .then(|| generic::display_key(&u))
                    .flatten();
                Some((
                    displayed.unwrap_or_else(|| model.nav_template(&u)),
                    why.to_owned(),
                ))
            });
            let Some((template, why)) = found else {
                // Fetched last: once a page shows places of this shape beside their pages, or
                // pages end their paths with the action word, the host's rule skips them, and
                // the queued ones are taken out.
                if generic::looks_like_a_place(&u, page, &linked) {
                    v.action = LinkAction::Defer;
                    v.rule = format!("{UNKNOWN_APP}/*/defer a place");
                } else if generic::looks_like_an_action(&u) {
                    v.action = LinkAction::Defer;
                    v.rule = format!("{UNKNOWN_APP}/*/defer an action word");
                } else if generic::looks_like_a_slashed_copy(&u, page, &linked) {
                    v.action = LinkAction::Defer;
                    v.rule = format!("{UNKNOWN_APP}/*/defer a slashed copy");
                }
                continue;
            };
            if !known {
                v.action = LinkAction::Defer;
                v.rule = format!("{UNKNOWN_APP}/*/defer {template}");
                continue;
            }
            v.action = LinkAction::Skip;
            v.rule = format!("{UNKNOWN_APP}/*/skip {template}");
            if why.starts_with(generic::PLACE_IN) {
                model.teach(Lesson::Place(template.clone()));
            } else if why == generic::REQUERIED {
                model.teach(Lesson::Display(template.clone()));
            } else if why == generic::PERSON && model.category() == Some(Category::Forum) {
                model.teach(Lesson::Person(template.clone(), u.clone()));
            }
            let rules: Vec<&Adoption> = st
                .adoptions
                .iter()
                .filter(|a| a.action == NAVIGATION_ACTION)
                .collect();
            if rules.len() < MAX_NAVIGATION_RULES && rules.iter().all(|a| a.original != template) {
                out.actions.push(ActionReport {
                    action: NAVIGATION_ACTION.into(),
                    status: ActionStatus::Learned,
                    expr: format!("skip {template}: {why}"),
                    original: None,
                });
                let a = Adoption {
                    host: host.to_owned(),
                    application: UNKNOWN_APP.into(),
                    level: "*".into(),
                    action: NAVIGATION_ACTION.into(),
                    original: template,
                    relaxed: format!("skip: {why}"),
                    source: "navigation".into(),
                    validated_on: vec![page.to_string(), v.url.clone()],
                    adopted_at: chrono::Utc::now()
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                };
                st.adoptions.push(a.clone());
                st.new_adoptions.push(a);
            }
        }
    }

    /// The navigation rule this reading learned for its host, if it learned one (see
    /// [`Helper::not_worth_queued`]).
    pub fn learned_navigation(m: &AppMatch) -> Option<&str> {
        m.actions
            .iter()
            .find(|a| a.action == NAVIGATION_ACTION && a.status == ActionStatus::Learned)
            .map(|a| a.expr.as_str())
    }

    /// Adopts the host's category once the host's evidence gave it on `validate_pages + 1`
    /// pages in a row.
    fn adopt_category(&self, host: &str, st: &mut HostState) {
        let need = self.limits().validate_pages + 1;
        let Some(last) = st.generic_votes.len().checked_sub(need) else {
            return;
        };
        let first = st.generic_votes[last].0;
        if st.generic_votes[last..].iter().any(|(c, _)| *c != first) {
            return;
        }
        let a = Adoption {
            host: host.to_owned(),
            application: UNKNOWN_APP.into(),
            level: "*".into(),
            action: CATEGORY_ACTION.into(),
            original: "no knowledge-base application matched".into(),
            relaxed: format!("category={}", first.as_str()),
            source: "structure".into(),
            validated_on: st.generic_votes[last..]
                .iter()
                .map(|(_, u)| u.clone())
                .collect(),
            adopted_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        };
        st.adoptions.push(a.clone());
        st.new_adoptions.push(a);
    }
}

/// Fills `out` with a reading: application `unknown` with `category`, the category's evidence,
/// the level and, for a single item, its title and body. Without a category (an issue
/// tracker, a CMS without a generator tag), the level, title and body alone, no application
/// claimed.
pub(super) fn fill(out: &mut AppMatch, category: Option<Category>, reading: &generic::Reading) {
    if let Some(category) = category {
        out.application = Some(AppInfo {
            name: UNKNOWN_APP.into(),
            category,
            relaxed: true,
        });
        out.actions.push(ActionReport {
            action: CATEGORY_ACTION.into(),
            status: ActionStatus::Relaxed,
            expr: if reading.signals.is_empty() {
                format!("category of the host: {}", category.as_str())
            } else {
                reading.signals.join("; ")
            },
            original: None,
        });
    }
    let Some(kind) = reading.kind else {
        return;
    };
    out.level = Some(LevelInfo {
        name: match kind {
            LevelKind::Terminal => "item",
            LevelKind::Intermediate => "list",
        }
        .into(),
        kind,
        relaxed: true,
    });
    if kind == LevelKind::Terminal {
        let fields: Vec<(String, String)> = [("title", &reading.title), ("body", &reading.body)]
            .into_iter()
            .filter_map(|(k, v)| v.clone().map(|v| (k.to_string(), v)))
            .collect();
        if !fields.is_empty() {
            out.objects.push(WebObject {
                kind: "item".into(),
                fields,
            });
        }
    }
}

/// The category adopted for the host, if any.
pub(super) fn adopted_category(st: &HostState) -> Option<Category> {
    st.adoptions
        .iter()
        .filter(|a| a.application == UNKNOWN_APP && a.action == CATEGORY_ACTION)
        .find_map(|a| {
            let name = a.relaxed.strip_prefix("category=")?;
            Category::ALL.into_iter().find(|c| c.as_str() == name)
        })
}

/// Whether a page's own evidence names another category than the one it is given.
pub(super) fn disputes(reading: &generic::Reading, given: Option<Category>) -> bool {
    reading
        .own_category()
        .is_some_and(|own| given.is_some_and(|c| c != own))
}

#[cfg(test)]
#[path = "unknown_tests.rs"]
mod tests;
