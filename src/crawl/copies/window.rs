//! The pages a crawl fetched last, and which of them are variants of which URL: what the copy
//! learner compares each new page with.

use super::{Variant, WINDOW};
use std::collections::{HashMap, VecDeque};

/// A fetched page in the window.
pub(super) struct Seen {
    pub(super) url: String,
    pub(super) digest: String,
}

/// The pages fetched last, and which of them are variants of which URL.
#[derive(Default)]
pub(super) struct Window {
    pub(super) pages: HashMap<u64, Seen>,
    /// By the fingerprint of the URL copied: the variants fetched, with their rule.
    pub(super) variants: HashMap<u64, Vec<(Variant, u64)>>,
    /// Oldest first: a page and the URLs it is a variant of.
    pub(super) order: VecDeque<(u64, Vec<u64>)>,
}

impl Window {
    pub(super) fn evict(&mut self) {
        while self.order.len() > WINDOW {
            let Some((fp, originals)) = self.order.pop_front() else {
                return;
            };
            self.pages.remove(&fp);
            for o in originals {
                if let Some(list) = self.variants.get_mut(&o) {
                    list.retain(|(_, v)| *v != fp);
                    if list.is_empty() {
                        self.variants.remove(&o);
                    }
                }
            }
        }
    }
}
