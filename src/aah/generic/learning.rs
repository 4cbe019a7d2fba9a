//! What reading a page teaches its host's model, as values: a reader works on its own copy of
//! the model and returns the [`Lesson`]s it applied, in order, for the model's owner to apply
//! to the model it keeps (`Helper::learn`). Two readers of one host never write one model, and
//! neither loses what the other taught.
//!
//! Every change to a [`HostModel`] outside this folder goes through [`Learning`] or
//! [`HostModel::apply`]; its mutators are private to `generic`.

use std::collections::HashSet;
use std::ops::Deref;

use url::Url;

use super::host::{HostModel, NoPage};
use super::template::Shape;
use crate::aah::kb::LevelKind;

/// One change to a host's model.
#[derive(Debug, Clone)]
pub(crate) enum Lesson {
    /// A page read: its section, block keys, title parts and evidence.
    Page {
        /// The page's URL.
        url: Url,
        /// The section the page names itself part of, if any.
        current: Option<String>,
        /// Keys of its blocks.
        keys: HashSet<u64>,
        /// Parts of its `<title>`, lowercased.
        segments: HashSet<String>,
        /// Its category evidence.
        evidence: [u32; 6],
    },
    /// A strong reading of a page of this template.
    Vote(String, LevelKind),
    /// A page passed over unread.
    PassedOver(u32),
    /// A link seen on one of the host's pages.
    Link(Url),
    /// URLs of this template were shown as children of a page.
    Children(String),
    /// URLs of this template were places in other pages.
    Place(String),
    /// A page showed URLs of this key as other displays of itself.
    Display(String),
    /// A member's page linked under this template.
    Person(String, Url),
    /// An answer that was no page: a redirect to the location, or an error.
    NoPage(Url, Option<Url>),
}

impl HostModel {
    /// Applies a lesson another copy of the model learned; returns what an answer that was no
    /// page taught, when this lesson is the one that taught it.
    pub(crate) fn apply(&mut self, lesson: &Lesson) -> Option<NoPage> {
        match lesson {
            Lesson::Page {
                url,
                current,
                keys,
                segments,
                evidence,
            } => {
                let shape = Shape::of(url);
                self.observe(
                    url,
                    current.as_deref(),
                    keys,
                    segments,
                    evidence,
                    shape.clone(),
                );
                // Counted under its template as the host's shapes stand with it.
                let template = self.template(&shape);
                self.observe_template(&template, keys);
                self.count_read(url, &shape);
            }
            Lesson::Vote(template, kind) => self.vote(template.clone(), *kind),
            Lesson::PassedOver(every) => {
                self.pass_over(*every);
            }
            Lesson::Link(url) => self.observe_link(url),
            Lesson::Children(template) => self.learn_children(template),
            Lesson::Place(template) => self.learn_place(template),
            Lesson::Display(key) => self.learn_display(key),
            Lesson::Person(template, url) => self.learn_person(template, url),
            Lesson::NoPage(url, location) => return self.note_no_page(url, location.as_ref()),
        }
        None
    }
}

/// A copy of a host's model being read with, and the lessons applied to it so far.
#[derive(Debug, Default)]
pub struct Learning {
    model: HostModel,
    taught: Vec<Lesson>,
}

impl Deref for Learning {
    type Target = HostModel;

    fn deref(&self) -> &HostModel {
        &self.model
    }
}

impl Learning {
    /// Starts from a copy of the model as its owner has it.
    pub fn new(model: HostModel) -> Learning {
        Learning {
            model,
            taught: Vec::new(),
        }
    }

    /// Applies a lesson to this copy, and keeps it for the owner.
    pub(crate) fn teach(&mut self, lesson: Lesson) -> Option<NoPage> {
        let out = self.model.apply(&lesson);
        self.taught.push(lesson);
        out
    }

    /// Counts a page passed over; whether this one should be read after all, one in `every`
    /// (see `HostModel::pass_over`).
    pub(crate) fn pass_over(&mut self, every: u32) -> bool {
        let read = self.model.pass_over(every);
        self.taught.push(Lesson::PassedOver(every));
        read
    }

    /// The lessons applied, in order.
    pub(crate) fn into_lessons(self) -> Vec<Lesson> {
        self.taught
    }
}
