//! The helper's memory of hosts, and the one way it changes. Reading a page reads copies of
//! what the helper remembers and returns what the page taught as a value, [`Taught`]; the
//! helper's owner (the crawl's engine, or a tool reading pages one by one) keeps it with
//! [`Helper::learn`]. That hands back the host's kept pages its model can judge now, a
//! [`Rereading`] to run on any worker, whose result the owner files with
//! [`Helper::reread_done`]. So readers on many workers never write what another reads, and
//! the owner decides the order in which lessons land.

use std::sync::Arc;

use url::Url;

use super::error::AahError;
use super::generic::{self, HostModel, Learning, Lesson, NoPage};
use super::helper::Helper;
use super::kb::Category;
use super::output::{ActionReport, ActionStatus, AppMatch};
use super::relax::adapt::HostState;
use super::reread::{summary, Kept, Revision, REREAD_AFTER};
use super::unknown::{adopted_category, disputes, fill, REREAD_ACTION};

/// What reading one page taught the helper about its host: the host's new state, the
/// lessons of its unknown-page model, and the page kept to be read again, if it is.
pub struct Taught {
    host: String,
    state: HostState,
    /// `None` for a page of a knowledge-base application: no model was read.
    lessons: Option<Vec<Lesson>>,
    keep: Vec<Kept>,
    /// The page was read, not passed over: the host's kept pages may be due.
    read: bool,
}

/// A page of an unknown application being read: a copy of its host's model, what the reading
/// taught it, and the pages to keep to be read again.
pub(crate) struct Unknown {
    pub(crate) host: String,
    pub(crate) model: Learning,
    pub(crate) keep: Vec<Kept>,
    /// Read, not passed over (see `Helper::read_unknown`).
    pub(crate) read: bool,
}

impl Taught {
    pub(crate) fn new(host: String, state: HostState, unknown: Option<Unknown>) -> Taught {
        let (lessons, keep, read) = match unknown {
            Some(u) => (Some(u.model.into_lessons()), u.keep, u.read),
            None => (None, Vec::new(), false),
        };
        Taught {
            host,
            state,
            lessons,
            keep,
            read,
        }
    }
}

/// Kept pages of one host due to be read again, with the host's model as it was when they
/// came due: reading them needs nothing else, and may run on any thread.
pub struct Rereading {
    host: String,
    model: Arc<HostModel>,
    /// The host's category: adopted, else its model's.
    category: Option<Category>,
    /// Every kept page, at the crawl's end: none waits for more of the host.
    all: bool,
    pages: Vec<Kept>,
}

/// The result of a [`Rereading`], to file with [`Helper::reread_done`].
pub struct Reread {
    host: String,
    revisions: Vec<Revision>,
    /// Pages still given another category than their own evidence names, kept again.
    disputed: Vec<Kept>,
}

impl Rereading {
    /// Reads the pages again with the host's model, and makes a revision of each whose
    /// reading changed.
    pub fn run(self) -> Reread {
        let pages = self.model.pages();
        let (mut revisions, mut disputed) = (Vec::new(), Vec::new());
        for k in self.pages {
            let doc = crate::parse::parse_document(&k.text);
            let reading = generic::reread(&doc, &k.url, &self.model);
            let mut m = AppMatch::nothing(k.url.as_str());
            let category = match reading.by_section {
                true => reading.category,
                false => self.category.or(reading.category),
            };
            // Still given another category than its own evidence names: it waits for more of
            // the host, once, rather than being revised twice.
            if !self.all
                && pages < k.read_at.saturating_add(REREAD_AFTER)
                && disputes(&reading, category)
            {
                disputed.push(Kept {
                    disputed: true,
                    ..k
                });
                continue;
            }
            fill(&mut m, category, &reading);
            // A kind is changed only by the page's own layout, read with what the host taught:
            // a later model is not always a better one for a weak reading (a list whose
            // entries repeat on the host's other lists). The page keeps its first kind, and
            // what it extracted, then.
            let first_kind = k.level.as_ref().map(|l| l.kind);
            if first_kind.is_some() && reading.kind != first_kind && !reading.settled {
                m.level = k.level;
                m.objects = k.objects;
            }
            if summary(&m) == k.first || (k.had_app && m.application.is_none()) {
                continue;
            }
            m.actions.push(ActionReport {
                action: REREAD_ACTION.into(),
                status: ActionStatus::Relaxed,
                expr: format!(
                    "read again with {pages} pages of the host read (it was read as page {})",
                    k.read_at
                ),
                original: None,
            });
            revisions.push(Revision {
                capture: k.capture,
                reading: m,
            });
        }
        Reread {
            host: self.host,
            revisions,
            disputed,
        }
    }
}

impl Helper {
    /// Keeps what a page taught about its host, and hands back the host's kept pages its
    /// model can judge now, to be read again ([`Rereading::run`]).
    pub fn learn(&self, taught: Taught) -> Option<Rereading> {
        let Taught {
            host,
            state,
            lessons,
            keep,
            read,
        } = taught;
        let category = {
            let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
            if hosts.len() >= self.options.max_hosts && !hosts.contains_key(&host) {
                if let Some(k) = hosts.keys().next().cloned() {
                    hosts.remove(&k);
                }
            }
            // Another page of the host may have been kept since this one was read: the states
            // are merged then, and only then (merging costs the whole state each time).
            let older = hosts.remove(&host);
            let mut state = match &older {
                Some(o) if o.kept != state.kept => state.merged(o),
                _ => state,
            };
            state.kept = older.map_or(state.kept, |o| o.kept) + 1;
            let category = adopted_category(&state);
            hosts.insert(host.clone(), state);
            category
        };
        let lessons = lessons?;
        let model = {
            let mut models = self.models.lock().unwrap_or_else(|p| p.into_inner());
            if models.len() >= self.options.max_hosts && !models.contains_key(&host) {
                if let Some(k) = models.keys().next().cloned() {
                    models.remove(&k);
                    // Its kept pages could only be read with an empty model now.
                    self.lock_rereads().forget(&k);
                }
            }
            let model = models.entry(host.clone()).or_default();
            let m = Arc::make_mut(model);
            for l in &lessons {
                m.apply(l);
            }
            model.clone()
        };
        let mut rereads = self.lock_rereads();
        for k in keep {
            rereads.keep(&host, k, self.options.reread_bytes);
        }
        if !read {
            return None;
        }
        let category = category.or(model.category());
        let due = rereads.take_due(&host, |k| {
            (!k.disputed && !generic::too_early(&k.url, &model))
                || model.pages() >= k.read_at.saturating_add(REREAD_AFTER)
        });
        (!due.is_empty()).then_some(Rereading {
            host,
            model,
            category,
            all: false,
            pages: due,
        })
    }

    /// Files the result of a [`Rereading`]: its revisions for [`Helper::take_revisions`], and
    /// the pages still disputed kept again.
    pub fn reread_done(&self, done: Reread) {
        let mut rereads = self.lock_rereads();
        for r in done.revisions {
            rereads.done(r);
        }
        for k in done.disputed {
            rereads.keep(&done.host, k, self.options.reread_bytes);
        }
    }

    /// The new readings of pages read again since the last call, each to be written as a later
    /// metadata record of its capture.
    pub fn take_revisions(&self) -> Vec<Revision> {
        self.lock_rereads().take_done()
    }

    /// Notes that the capture `record_id` is archived: a page kept with it can be read again
    /// now, and its later reading written after it.
    pub fn archived(&self, record_id: &str) {
        self.lock_rereads().confirm(record_id);
    }

    /// Reads again every page still kept, with all its host's model learned, and returns the
    /// revisions not taken yet: the end of a crawl (or of `kb detect --pages`). Pages whose
    /// capture was never archived are let go. The error is a host's remembered state that
    /// cannot be read from the store.
    pub fn settle(&self) -> Result<Vec<Revision>, AahError> {
        let hosts = self.lock_rereads().hosts();
        for host in hosts {
            let st = self.host_state(&host)?;
            // A host whose model was forgotten has nothing to read its pages with: they keep
            // their first reading.
            let Some(model) = self.model_of(&host) else {
                self.lock_rereads().forget(&host);
                continue;
            };
            let pages = self.lock_rereads().take_due(&host, |_| true);
            if pages.is_empty() {
                continue;
            }
            let category = adopted_category(&st).or(model.category());
            let all = Rereading {
                host,
                model,
                category,
                all: true,
                pages,
            };
            self.reread_done(all.run());
        }
        Ok(self.take_revisions())
    }

    /// Notes that `url` answered no page (a redirect to `location`, or an error), for a host
    /// read as unknown: a URL template whose URLs answer no page is not followed further
    /// (`generic::not_worth`), and one whose URLs redirect to themselves with a final slash
    /// is queued with it (`LinkVerdict::instead`). Returns what this answer taught, when it is
    /// the one that taught it, so that the crawl can log it and take the URLs of a shape that
    /// answers no page out of the queue ([`Helper::not_worth_queued`]).
    pub fn note_no_page(&self, url: &Url, location: Option<&Url>) -> Option<NoPage> {
        let mut models = self.models.lock().unwrap_or_else(|p| p.into_inner());
        let model = models.get_mut(&crate::uri::host_key(url))?;
        Arc::make_mut(model).apply(&Lesson::NoPage(url.clone(), location.cloned()))
    }

    /// Whether a URL already queued is now known not to be worth a fetch: its shape answers no
    /// page, or the navigation rules of its host (one no knowledge-base application matched,
    /// whose category is known) skip it. The links of a host's first pages were queued before
    /// (deferred, at the lowest priority, when the rules already said so).
    pub fn not_worth_queued(&self, url: &Url) -> bool {
        self.model_of(&crate::uri::host_key(url)).is_some_and(|m| {
            m.url_answers_no_page(url)
                || (m.category().is_some() && generic::not_worth(url, &m).is_some())
        })
    }

    /// The URL to queue in place of `url`, already queued, when its host is now known to
    /// redirect it there (see `LinkVerdict::instead`).
    pub fn queued_instead(&self, url: &Url) -> Option<Url> {
        self.model_of(&crate::uri::host_key(url))?.with_slash(url)
    }

    /// The reader's model of a host as last published, if one was made and is still kept.
    pub(crate) fn model_of(&self, host: &str) -> Option<Arc<HostModel>> {
        self.models
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(host)
            .cloned()
    }

    /// A page of `host` about to be read as unknown, with a copy of its host's model.
    pub(crate) fn unknown(&self, host: &str) -> Unknown {
        let model = self
            .model_of(host)
            .map(|m| HostModel::clone(&m))
            .unwrap_or_default();
        Unknown {
            host: host.to_owned(),
            model: Learning::new(model),
            keep: Vec::new(),
            read: false,
        }
    }

    pub(crate) fn lock_rereads(&self) -> std::sync::MutexGuard<'_, super::reread::Rereads> {
        self.rereads.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(n: usize) -> (Url, crate::parse::HtmlDoc) {
        let url = Url::parse(&format!("http://blog.example/posts/{n}")).unwrap();
        let page = format!(
            "<html><head><title>Post {n} - Field notes</title></head><body><nav><a href=\"/\">\
             Home</a></nav><article itemscope itemtype=\"https://schema.org/BlogPosting\">\
             <h1>Post {n}</h1><p>{}</p></article></body></html>",
            "A good crust comes from a hot oven and a little steam at the start. ".repeat(8)
        );
        let doc = crate::parse::HtmlDoc::parse(page.as_bytes(), None, &Default::default());
        (url, doc)
    }

    /// A reader changes nothing the helper remembers; the owner keeps what it taught, and two
    /// readings of one host made from the same memory both count, in either order.
    #[test]
    fn a_reading_writes_nothing_shared_and_every_lesson_is_kept() {
        let helper = Helper::from_kb(crate::aah::builtin().unwrap());
        let (u1, d1) = post(1);
        let (u2, d2) = post(2);
        let (r1, t1) = helper.read_doc(&u1, &[], &d1, &[], None).unwrap();
        let (_, t2) = helper.read_doc(&u2, &[], &d2, &[], None).unwrap();
        assert!(helper.model_of("blog.example").is_none(), "read only");
        assert!(helper.hosts.lock().unwrap().is_empty(), "read only");
        assert_eq!(r1.app.level.map(|l| l.name).as_deref(), Some("item"));
        helper.learn(t2);
        helper.learn(t1);
        let model = helper.model_of("blog.example").expect("kept by learn");
        assert_eq!(model.pages(), 2, "both readings counted");
        assert!(helper.hosts.lock().unwrap().contains_key("blog.example"));
        // A worker's copy is its own: publishing a lesson does not change a model handed out.
        let (u3, d3) = post(3);
        let (_, t3) = helper.read_doc(&u3, &[], &d3, &[], None).unwrap();
        helper.learn(t3);
        assert_eq!(model.pages(), 2);
        assert_eq!(helper.model_of("blog.example").unwrap().pages(), 3);
    }

    /// Two pages of one host read at once from the same state: what each adopted, rejected
    /// and tried is kept, whichever comes back last; kept in order, nothing changes.
    #[test]
    fn two_readings_from_one_state_both_count() {
        let adoption = |action: &str| crate::aah::Adoption {
            host: "h".into(),
            application: "app".into(),
            level: "post".into(),
            action: action.into(),
            original: "//h1".into(),
            relaxed: "//h2".into(),
            source: "siblings".into(),
            validated_on: vec!["http://h/1".into()],
            adopted_at: "2026-12-01T00:00:00Z".into(),
        };
        let mut first = HostState::default();
        first.adoptions.push(adoption("post/title"));
        first.attempts.insert("app/post/title".into(), 3);
        first.rejected.insert("app/post/title\u{1}//h3".into());
        let mut second = HostState::default();
        second.adoptions.push(adoption("post/body"));
        second.attempts.insert("app/post/title".into(), 1);
        let both = second.merged(&first);
        let actions: Vec<&str> = both.adoptions.iter().map(|a| a.action.as_str()).collect();
        assert_eq!(actions, ["post/body", "post/title"]);
        assert_eq!(both.attempts["app/post/title"], 3);
        assert_eq!(both.rejected.len(), 1);
        let again = both.clone().merged(&first);
        assert_eq!(again.adoptions.len(), 2);
        assert_eq!(again.attempts, both.attempts);
    }

    /// An answer that is no page is a lesson too: it reaches the published model only through
    /// the owner's call.
    #[test]
    fn an_answer_that_is_no_page_is_kept_by_the_owner() {
        let helper = Helper::from_kb(crate::aah::builtin().unwrap());
        let (u, d) = post(1);
        let home = Url::parse("http://blog.example/").unwrap();
        assert_eq!(helper.note_no_page(&u, Some(&home)), None, "no model yet");
        helper.learn(helper.read_doc(&u, &[], &d, &[], None).unwrap().1);
        for n in [7, 8] {
            let permalink = Url::parse(&format!("http://blog.example/p/{n}")).unwrap();
            helper.note_no_page(&permalink, Some(&home));
        }
        let later = Url::parse("http://blog.example/p/9").unwrap();
        assert!(helper.not_worth_queued(&later));
    }
}
