//! Pages no knowledge-base application matches: the helper reads them with `generic` (category
//! from general evidence, list or single item from the layout, title and body), and learns the
//! host's category: evidence is averaged over the host's pages, and once enough pages agree on
//! their own, the category is adopted for the host, stored with the pages that showed it and
//! listed with the other relaxations (API and cockpit).

use url::Url;

use super::generic::{self, best_category};
use super::helper::Helper;
use super::kb::{Category, LevelKind};
use super::output::{ActionReport, ActionStatus, AppInfo, AppMatch, LevelInfo, WebObject};
use super::relax::adapt::HostState;
use super::relax::store::Adoption;

/// Application name reported for a page no knowledge-base application matched.
pub const UNKNOWN_APP: &str = "unknown";
/// Action id of a host's adopted category.
const CATEGORY_ACTION: &str = "*/category";
/// Votes kept per host.
const MAX_VOTES: usize = 16;
/// Pages of a host read before giving up on a host that shows no category at all: reading
/// costs a parse of the page, which a site that is no blog, forum, wiki or news site should
/// not pay on every page.
const MAX_READS_WITHOUT_CATEGORY: u32 = 5;

impl Helper {
    /// Reads a page of an unknown application into `out` (application `unknown` with the
    /// category, level `item` or `list`, one `item` object with title and body). `parsed` is the
    /// page's tree when the helper has already built it.
    pub(crate) fn read_unknown(
        &self,
        host: &str,
        st: &mut HostState,
        url: &Url,
        text: &str,
        parsed: Option<&scraper::Html>,
        out: &mut AppMatch,
    ) {
        let adopted = adopted_category(st);
        let hopeless = adopted.is_none()
            && st.generic_reads >= MAX_READS_WITHOUT_CATEGORY
            && host_category(st).is_none();
        if hopeless {
            return;
        }
        st.generic_reads = st.generic_reads.saturating_add(1);
        // The tree the helper already parsed, or a parse of its own (only past the check above).
        let reading = match parsed {
            Some(html) => generic::read(html, url),
            None => generic::read_html(text, url),
        };
        for (sum, e) in st.generic_evidence.iter_mut().zip(reading.evidence) {
            *sum = sum.saturating_add(e);
        }
        let own = reading.category();
        if let Some(c) = own {
            if st.generic_votes.len() < MAX_VOTES {
                st.generic_votes.push((c, url.to_string()));
            }
        }
        let category = own.or(adopted).or_else(|| host_category(st));
        if adopted.is_none() {
            self.adopt_category(host, st);
        }
        let Some(category) = category else {
            return;
        };
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
            let fields: Vec<(String, String)> = [("title", reading.title), ("body", reading.body)]
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
                .collect();
            if !fields.is_empty() {
                out.objects.push(WebObject {
                    kind: "item".into(),
                    fields,
                });
            }
        }
    }

    /// Adopts the host's category once `validate_pages + 1` pages read as it on their own
    /// evidence, and no page read as another.
    fn adopt_category(&self, host: &str, st: &mut HostState) {
        let need = self.limits().validate_pages + 1;
        let Some((first, _)) = st.generic_votes.first().cloned() else {
            return;
        };
        if st.generic_votes.iter().any(|(c, _)| *c != first) || st.generic_votes.len() < need {
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
            validated_on: st
                .generic_votes
                .iter()
                .take(need)
                .map(|(_, u)| u.clone())
                .collect(),
            adopted_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        };
        st.adoptions.push(a.clone());
        st.new_adoptions.push(a);
    }
}

/// The category of the host's pages on average: the same weak signal on every page (one class
/// name) does not add up to a category.
fn host_category(st: &HostState) -> Option<Category> {
    let reads = st.generic_reads.max(1);
    best_category(&st.generic_evidence.map(|e| e / reads))
}

/// The category adopted for the host, if any.
fn adopted_category(st: &HostState) -> Option<Category> {
    st.adoptions
        .iter()
        .filter(|a| a.application == UNKNOWN_APP && a.action == CATEGORY_ACTION)
        .find_map(|a| {
            let name = a.relaxed.strip_prefix("category=")?;
            Category::ALL.into_iter().find(|c| c.as_str() == name)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_without_any_category_is_read_five_times_only() {
        let helper = Helper::from_kb(crate::aah::builtin().unwrap());
        let page = "<html><head><title>Opening hours</title></head><body><h1>Opening hours</h1>\
                    <p>We are open from nine to five on weekdays, and closed on public holidays \
                    all through the year, as the sign on the door says.</p></body></html>";
        for i in 0..8 {
            let url = Url::parse(&format!("http://shop.example/p{i}")).unwrap();
            let m = helper.analyze(&url, &[], page.as_bytes(), &[]);
            assert!(m.application.is_none(), "{m:?}");
        }
        assert_eq!(
            helper.host_state("shop.example").generic_reads,
            MAX_READS_WITHOUT_CATEGORY
        );
    }
}
