//! What the helper learned from a page, kept by the engine: the worker that read the page
//! returned it as a value (`Processed::taught`, `Processed::no_page`), and the helper's
//! memory changes here, on the engine, in the order results come back. Pages the helper kept
//! to read again, once due, are read on a processor thread, and the result comes back here too.

use super::{Done, Engine, Processed};
use crate::aah::{Helper, NoPage, Reread, Rereading};
use crate::frontier::contract::CrawlFrontier;

impl<F: CrawlFrontier> Engine<F> {
    /// Keeps what a page taught the helper, and starts reading again its host's kept pages now
    /// due. Returns why URLs already queued are no longer worth a fetch, when the page's
    /// answer or its links taught that (the second redirect of `/post/N`, a navigation rule).
    pub(super) fn keep_what_the_helper_learned(&mut self, p: &mut Processed) -> Option<String> {
        let h = self.ctx.helper.clone()?;
        if let Some(due) = p.taught.take().and_then(|t| h.learn(t)) {
            self.spawn_reread(due);
        }
        let no_page = p.no_page.take().and_then(|(url, location)| {
            Some(match h.note_no_page(&url, location.as_ref())? {
                NoPage::Answers(t) => format!("URLs like {t} answer no page"),
                NoPage::AddsSlash(t) => {
                    format!("URLs like {t} redirect to themselves with a final slash")
                }
            })
        });
        no_page.or_else(|| {
            p.page
                .as_ref()
                .and_then(|f| f.app.as_ref())
                .and_then(Helper::learned_navigation)
                .map(str::to_owned)
        })
    }

    fn spawn_reread(&mut self, due: Rereading) {
        self.rereading += 1;
        let tx = self.tx.clone();
        self.processors.then(
            move || due.run(),
            move |out| {
                let _ = tx.send(Done::Reread(out.ok()));
            },
        );
    }

    /// Files a second reading with the helper, and archives the revisions it made.
    pub(super) fn reread_done(
        &mut self,
        done: Option<Reread>,
    ) -> Result<(), crate::crawl::CrawlError> {
        self.rereading -= 1;
        if let (Some(h), Some(done)) = (&self.ctx.helper, done) {
            h.reread_done(done);
        }
        self.archive_revisions()
    }
}
