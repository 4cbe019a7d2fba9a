//! What the reader learns about one host from the pages it read there: which blocks repeat on
//! most pages (furniture), which parts of `<title>` repeat (the site's name), the category
//! evidence summed over the pages, and the page kinds read under each URL template.
//!
//! Counts only; pages are not kept. Every table is bounded, so a host of a million pages costs
//! what one of a few thousand does: keys first seen after a table is full are not counted,
//! which costs nothing for furniture, since furniture is on the first pages too.

use std::collections::{HashMap, HashSet};

use super::template::{Shape, Shapes};
use crate::aah::kb::{Category, LevelKind};

/// Pages of a host read before its furniture and site name are learned from repetition.
pub(super) const MIN_PAGES: u32 = 3;
/// Share of the host's pages a block must be on to be furniture.
const FURNITURE_SHARE: f64 = 0.5;
/// Share of a URL template's pages a block must be on to be furniture of that kind of page:
/// higher than the host's, since lists of one template share entries (a post under each of
/// its tags) where a host's pages rarely do.
const TEMPLATE_FURNITURE_SHARE: f64 = 0.8;
/// Pages of a URL template whose blocks are counted for the template's own furniture.
const TEMPLATE_LEARN_PAGES: u32 = 10;
/// Share of the host's titles a part of `<title>` must be in to be the site's name.
const SITE_NAME_SHARE: f64 = 0.5;
/// Share of a template's strong readings that decides a weak reading under it.
const TEMPLATE_SHARE: f64 = 0.66;
/// Block keys counted per host.
const MAX_KEYS: usize = 20_000;
/// Title parts counted per host.
const MAX_SEGMENTS: usize = 2_000;
/// Sections with evidence of their own per host.
const MAX_SECTIONS: usize = 64;
/// URL templates of places learned per host.
const MAX_PLACES: usize = 64;
/// URL templates with votes per host.
const MAX_TEMPLATES: usize = 2_000;

/// The reader's memory of one host.
#[derive(Debug, Clone, Default)]
pub struct HostModel {
    pages: u32,
    /// Pages passed over unread since the host was last read (see `Helper::read_unknown`).
    passed: u32,
    keys: HashMap<u64, u32>,
    /// Pages read per URL template, and block keys counted per template (keyed by a hash of
    /// both): furniture of one kind of page, such as an index's filter menu and its help text.
    template_pages: HashMap<String, u32>,
    template_keys: HashMap<u64, u32>,
    segments: HashMap<String, u32>,
    evidence: [u32; 6],
    /// Evidence and pages per section (the first path segment): a host can hold a blog and
    /// its documentation side by side (Docusaurus' `/blog/` and `/docs/`).
    sections: HashMap<String, ([u32; 6], u32)>,
    shapes: Shapes,
    /// Shapes of the host's pages and of the links found on them (for navigation).
    nav_shapes: Shapes,
    /// Strong readings per URL template: (lists, single items).
    votes: HashMap<String, (u32, u32)>,
    /// URL templates whose URLs were places in pages their pages linked to (see
    /// `views::place_in`): skipped on the whole host.
    places: HashSet<String>,
    /// Paths and query keys pages showed as other displays of themselves (their own query
    /// under another path, see `views::display_key`), with the pages that did: skipped on the
    /// whole host once two pages did.
    displays: HashMap<String, u32>,
    /// URL templates of a forum's members' pages (see `views::PERSON`), with the first member
    /// linked; skipped on the whole host once a second one is.
    people: HashMap<String, (url::Url, bool)>,
    /// URL templates a page showed two or more of under one parent (`boards/1`, `boards/2`
    /// on a list of forums): children or pages of that parent, never places in it.
    not_places: HashSet<String>,
    /// Pages read per URL shape, and answers that were no page (redirects, errors).
    read: HashMap<String, u32>,
    redirects: HashMap<String, u32>,
    /// Shapes that answered no page, per shape with one place open (`t/*/N/post/N`): a
    /// permalink offered once or twice per thread has a shape of its own in each thread, and
    /// is learned across threads; and the open shapes learned so, until a page read fits one.
    no_page_templates: HashMap<String, u32>,
    open_no_page: HashSet<String>,
    /// URL templates whose URLs without a final slash redirected to themselves with one, and
    /// those whose URLs without one were pages: such a template's slashless URLs are kept.
    slash_redirects: HashMap<String, u32>,
    slashless_pages: HashMap<String, u32>,
}

impl HostModel {
    /// Pages read.
    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// Counts a page passed over unread; returns whether this one should be read after all,
    /// one in `every`, so a host whose evidence is still weak is read again now and then
    /// rather than given up.
    pub(super) fn pass_over(&mut self, every: u32) -> bool {
        self.passed = self.passed.saturating_add(1);
        if self.passed >= every.max(1) {
            self.passed = 0;
            return true;
        }
        false
    }

    /// The host's category: the one with the most evidence summed over its pages, if it has
    /// enough and more than any other.
    pub fn category(&self) -> Option<Category> {
        super::best_category(&self.evidence)
    }

    /// The category of `url`'s part of the host when the host is split, or when that part's
    /// differs from the host's. A part is the sections named for one category (`/docs/`,
    /// `/blog/`; Fossil's `/forum` and `/forumpost/`) whose own pages' evidence says so too (at
    /// least [`MIN_PAGES`] pages read there, that category the clear winner), or the rest of the
    /// host, whose own pages may say another
    /// category (Material for MkDocs' documentation at the root beside its `/blog/`). The host
    /// is split when a section's category and the rest's differ: each page then has its part's,
    /// whichever part a crawl read first. A section named for nothing (NodeBB's `/category/`,
    /// whose lists carry feeds and dates) is part of the rest.
    pub fn section_category(&self, url: &url::Url, current: Option<&str>) -> Option<Category> {
        let host = self.category()?;
        // Sections summed by the category they name: Fossil's `/forum` list and its
        // `/forumpost/…` threads are one part.
        let mut named: HashMap<Category, ([u32; 6], u32)> = HashMap::new();
        for (name, (evidence, pages)) in &self.sections {
            if let Some(c) = super::part::category_named(name) {
                let (sum, n) = named.entry(c).or_default();
                for (s, e) in sum.iter_mut().zip(evidence) {
                    *s += e;
                }
                *n += pages;
            }
        }
        named.retain(|c, (evidence, pages)| {
            *pages >= MIN_PAGES && super::best_category(evidence) == Some(*c)
        });
        if named.is_empty() {
            return None;
        }
        let (mut rest, mut pages) = (self.evidence, self.pages);
        for (evidence, n) in named.values() {
            pages = pages.saturating_sub(*n);
            for (r, e) in rest.iter_mut().zip(evidence) {
                *r = r.saturating_sub(*e);
            }
        }
        let rest = super::best_category(&rest).filter(|_| pages >= MIN_PAGES);
        let split = rest.is_some_and(|r| named.keys().any(|c| *c != r));
        let own = match super::part::section(url, current)
            .and_then(|name| super::part::category_named(&name))
            .filter(|c| named.contains_key(c))
        {
            Some(own) => own,
            None => rest?,
        };
        (split || own != host).then_some(own)
    }

    /// Counts one page: its distinct block keys, title parts, evidence and URL shape.
    pub(super) fn observe(
        &mut self,
        url: &url::Url,
        current: Option<&str>,
        keys: &HashSet<u64>,
        segments: &HashSet<String>,
        evidence: &[u32; 6],
        shape: Shape,
    ) {
        if let Some(name) = super::part::section(url, current) {
            if self.sections.len() < MAX_SECTIONS || self.sections.contains_key(&name) {
                let (sum, pages) = self.sections.entry(name).or_default();
                *pages = pages.saturating_add(1);
                for (s, e) in sum.iter_mut().zip(evidence) {
                    *s = s.saturating_add(*e);
                }
            }
        }
        self.pages = self.pages.saturating_add(1);
        for k in keys {
            bump(&mut self.keys, *k, MAX_KEYS);
        }
        for s in segments {
            bump(&mut self.segments, s.clone(), MAX_SEGMENTS);
        }
        for (sum, e) in self.evidence.iter_mut().zip(evidence) {
            *sum = sum.saturating_add(*e);
        }
        self.nav_shapes.add(shape.clone());
        self.shapes.add(shape);
    }

    /// Counts the URL shapes of links found on the host's pages: a tag cloud shows that
    /// `/tag/*` is a variable place before any tag page is read.
    pub(super) fn observe_link(&mut self, url: &url::Url) {
        self.nav_shapes.add(Shape::of(url));
    }

    /// The URL template of a link, as navigation names it.
    pub(crate) fn nav_template(&self, url: &url::Url) -> String {
        self.nav_shapes.template(&Shape::of(url))
    }

    /// The shapes of the host's pages and links, for judging a link.
    pub(super) fn nav_shapes(&self) -> &Shapes {
        &self.nav_shapes
    }

    /// Whether a block with this key is furniture: on most of the host's pages, once enough
    /// pages were read to say so.
    pub(super) fn is_furniture(&self, key: u64) -> bool {
        self.pages >= MIN_PAGES
            && self
                .keys
                .get(&key)
                .is_some_and(|&n| n >= self.common(FURNITURE_SHARE))
    }

    /// Counts one page's block keys under its URL template.
    pub(super) fn observe_template(&mut self, template: &str, keys: &HashSet<u64>) {
        bump(&mut self.template_pages, template.to_owned(), MAX_TEMPLATES);
        // A template's furniture is learned from its first pages only, so every template,
        // however late it is first read, finds room in the table.
        match self.template_pages.get(template) {
            Some(&n) if n <= TEMPLATE_LEARN_PAGES => {}
            _ => return,
        }
        for k in keys {
            bump(&mut self.template_keys, under(template, *k), MAX_KEYS);
        }
    }

    /// Pages of `template` read.
    pub(super) fn template_pages(&self, template: &str) -> u32 {
        self.template_pages.get(template).copied().unwrap_or(0)
    }

    /// Whether a block with this key is furniture of the pages of `template`: on most of
    /// them, once enough were read to say so. The host's share misses what only one kind of
    /// page repeats when that kind is a minority of the host.
    pub(super) fn is_template_furniture(&self, template: &str, key: u64) -> bool {
        let Some(&pages) = self.template_pages.get(template) else {
            return false;
        };
        let pages = pages.min(TEMPLATE_LEARN_PAGES);
        pages >= MIN_PAGES
            && self
                .template_keys
                .get(&under(template, key))
                .is_some_and(|&n| n >= common(pages, TEMPLATE_FURNITURE_SHARE))
    }

    /// Whether a part of `<title>` names the site rather than the page.
    pub(super) fn is_site_name(&self, segment: &str) -> bool {
        self.pages >= MIN_PAGES
            && self
                .segments
                .get(segment)
                .is_some_and(|&n| n >= self.common(SITE_NAME_SHARE))
    }

    fn common(&self, share: f64) -> u32 {
        common(self.pages, share)
    }

    /// The URL template of a shape among the host's URLs.
    pub(super) fn template(&self, shape: &Shape) -> String {
        self.shapes.template(shape)
    }

    /// The kind the template's strong readings agree on, if enough agree.
    pub(super) fn template_kind(&self, template: &str) -> Option<LevelKind> {
        let &(lists, items) = self.votes.get(template)?;
        let total = lists + items;
        if total < 2 {
            return None;
        }
        let need = (f64::from(total) * TEMPLATE_SHARE).ceil() as u32;
        if lists >= need {
            Some(LevelKind::Intermediate)
        } else if items >= need {
            Some(LevelKind::Terminal)
        } else {
            None
        }
    }

    /// Counts a page read at `url`, with its shape.
    pub(super) fn count_read(&mut self, url: &url::Url, shape: &Shape) {
        let key = shape.key();
        self.open_no_page.retain(|open| !fits(open, &key));
        bump(&mut self.read, key, MAX_TEMPLATES);
        if folder_without_slash(url) {
            let template = self.nav_template(url);
            bump(&mut self.slashless_pages, template, MAX_TEMPLATES);
        }
    }

    /// Counts an answer for `url` that was no page: a redirect to `location` (a permalink that
    /// only sends elsewhere) or an error. A redirect that only adds the folder's slash
    /// (`/tags/birds` to `/tags/birds/`) is no such answer: the page is there, under its own
    /// URL, which [`HostModel::with_slash`] gives once two URLs of a template did so.
    /// Returns what this answer taught, when it is the one that taught it.
    pub(super) fn note_no_page(
        &mut self,
        url: &url::Url,
        location: Option<&url::Url>,
    ) -> Option<NoPage> {
        // A slashed URL queued in place of its link that answers an error: the template's
        // URLs without the slash are pages of their own (a static host's `/about` for
        // `about.html`), and are queued as they are from now on.
        if location.is_none() && !self.slash_redirects.is_empty() && url.path().len() > 1 {
            if let Some(bare) = url.path().strip_suffix('/') {
                let mut slashless = url.clone();
                slashless.set_path(bare);
                if self.with_slash(&slashless).is_some() {
                    let template = self.nav_template(&slashless);
                    bump(&mut self.slashless_pages, template, MAX_TEMPLATES);
                }
            }
        }
        if location.is_some_and(|l| adds_slash(url, l)) {
            let template = self.nav_template(url);
            let n = self.slash_redirects.get(&template).copied().unwrap_or(0);
            bump(&mut self.slash_redirects, template.clone(), MAX_TEMPLATES);
            return (n + 1 == SLASH_REDIRECTS).then_some(NoPage::AddsSlash(template));
        }
        let shape = Shape::of(url);
        let before = self.no_page_template(&shape).is_some();
        let key = shape.key();
        // Each URL is told once: the crawl fetches it once, and tells only the answers that
        // are no retry (redirects, 404, 410).
        for open in shape.keys_with_a_place_open() {
            bump(&mut self.no_page_templates, open.clone(), MAX_TEMPLATES);
            let learned = self.no_page_templates.get(&open) == Some(&OPEN_NO_PAGES)
                && !self.read.keys().any(|k| fits(&open, k));
            if learned && self.open_no_page.len() < MAX_PLACES {
                self.open_no_page.insert(open);
            }
        }
        bump(&mut self.redirects, key, MAX_TEMPLATES);
        if before {
            return None;
        }
        self.no_page_template(&shape).map(NoPage::Answers)
    }

    /// `url` with its folder's final slash, when two URLs of its template without one
    /// redirected there and none was a page. A URL with a query or a file name (`.html`) is
    /// left alone.
    pub fn with_slash(&self, url: &url::Url) -> Option<url::Url> {
        // Asked of every link of the host's pages: nothing to work out until one was learned.
        if self.slash_redirects.is_empty() || !folder_without_slash(url) {
            return None;
        }
        let template = self.nav_template(url);
        let n = self.slash_redirects.get(&template).copied();
        let learned = n.is_some_and(|n| n >= SLASH_REDIRECTS)
            && !self.slashless_pages.contains_key(&template);
        learned.then(|| {
            let mut out = url.clone();
            out.set_path(&format!("{}/", url.path()));
            out
        })
    }

    /// Whether `url`'s shape answers no page (see [`HostModel::answers_no_page`]).
    pub fn url_answers_no_page(&self, url: &url::Url) -> bool {
        self.answers_no_page(&Shape::of(url))
    }

    /// Whether URLs of this shape (digits as `N`: `post/N`) answer no page: two or more
    /// redirected or failed, and none was a page; or, with one place open (`t/*/N/last`, each
    /// thread's own link to its last post), [`OPEN_NO_PAGES`] or more did and no page read
    /// fits it.
    pub(super) fn answers_no_page(&self, shape: &Shape) -> bool {
        self.no_page_template(shape).is_some()
    }

    /// The template by which URLs of `shape` answer no page, if they do
    /// ([`HostModel::answers_no_page`]): the host's template of the shape, or the open shape
    /// that taught it.
    fn no_page_template(&self, shape: &Shape) -> Option<String> {
        let key = shape.key();
        if self.read.contains_key(&key) {
            return None;
        }
        if self.redirects.get(&key).is_some_and(|&n| n >= 2) {
            return Some(self.nav_shapes.template(shape));
        }
        // Asked of every link of the host's pages: nothing to work out until one was learned.
        if self.open_no_page.is_empty() {
            return None;
        }
        shape
            .keys_with_a_place_open()
            .into_iter()
            .find(|open| self.open_no_page.contains(open))
    }

    /// Learns that URLs of `template` are places in other pages (at most 64 templates),
    /// unless a page showed them as children ([`HostModel::learn_children`]).
    pub(super) fn learn_place(&mut self, template: &str) {
        if self.places.len() < MAX_PLACES && !self.not_places.contains(template) {
            self.places.insert(template.to_owned());
        }
    }

    /// Learns that URLs of `template` are children of a page (two or more of them under one
    /// parent on one page), not places in it: a place learned before is unlearned.
    pub(super) fn learn_children(&mut self, template: &str) {
        self.places.remove(template);
        if self.not_places.len() < MAX_PLACES {
            self.not_places.insert(template.to_owned());
        }
    }

    /// Counts a page that showed URLs of `key` (`views::display_key`) as other displays of
    /// itself (at most 64 keys).
    pub(super) fn learn_display(&mut self, key: &str) {
        if let Some(n) = self.displays.get_mut(key) {
            *n += 1;
        } else if self.displays.len() < MAX_PLACES {
            self.displays.insert(key.to_owned(), 1);
        }
    }

    /// Whether two or more pages showed URLs of `key` as other displays of themselves.
    pub(super) fn is_display(&self, key: &str) -> bool {
        self.displays.get(key).is_some_and(|&n| n >= 2)
    }

    /// Learns that URLs of `template` are a forum's members' pages, once two members' were
    /// linked so (at most 64 templates), when a place of its path is fixed and no script:
    /// `u/*/N`, never `*`, which holds the host's other pages, nor `index.php?action`, which
    /// holds the rest of an application.
    pub(super) fn learn_person(&mut self, template: &str, url: &url::Url) {
        let path = template.split('?').next().unwrap_or("");
        let fixed = path
            .split('/')
            .any(|t| !t.is_empty() && t != "*" && t != "N" && !t.contains('.'));
        if !fixed {
            return;
        }
        if let Some((first, learned)) = self.people.get_mut(template) {
            *learned |= first != url;
        } else if self.people.len() < MAX_PLACES {
            self.people
                .insert(template.to_owned(), (url.clone(), false));
        }
    }

    /// Whether URLs of `template` were linked as a forum's members.
    pub(super) fn is_person(&self, template: &str) -> bool {
        self.people
            .get(template)
            .is_some_and(|(_, learned)| *learned)
    }

    /// Whether URLs of `template` were places in other pages.
    pub(super) fn is_place(&self, template: &str) -> bool {
        self.places.contains(template)
    }

    /// Whether URLs of `template` were shown as children of a page.
    pub(super) fn are_children(&self, template: &str) -> bool {
        self.not_places.contains(template)
    }

    /// Counts a strong reading under a template.
    pub(super) fn vote(&mut self, template: String, kind: LevelKind) {
        if self.votes.len() >= MAX_TEMPLATES && !self.votes.contains_key(&template) {
            return;
        }
        let v = self.votes.entry(template).or_default();
        match kind {
            LevelKind::Intermediate => v.0 = v.0.saturating_add(1),
            LevelKind::Terminal => v.1 = v.1.saturating_add(1),
        }
    }
}

/// Redirects to the same URL with a final slash that teach a template's URLs to be queued so.
const SLASH_REDIRECTS: u32 = 2;

/// Answers that were no page under a shape with one place open that teach its URLs answer no
/// page: one more than for a shape, as the open place spans many items.
const OPEN_NO_PAGES: u32 = 3;

/// Whether the shape `key` (digits as `N`) fits `template` (`*` for a variable place).
fn fits(template: &str, key: &str) -> bool {
    let (tp, tq) = template.split_once('?').unwrap_or((template, ""));
    let (kp, kq) = key.split_once('?').unwrap_or((key, ""));
    tq == kq
        && tp.split('/').count() == kp.split('/').count()
        && tp
            .split('/')
            .zip(kp.split('/'))
            .all(|(t, k)| t == "*" || t == k)
}

/// What an answer that was no page taught about its URL's template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoPage {
    /// Its URLs answer redirects or errors, never a page: they are not followed.
    Answers(String),
    /// Its URLs redirect to themselves with a final slash: they are queued with it.
    AddsSlash(String),
}

/// Whether `url` names a folder without its final slash: no query, and a last segment that is
/// no file name (`.html`).
fn folder_without_slash(url: &url::Url) -> bool {
    url.query().is_none()
        && url
            .path_segments()
            .and_then(|mut s| s.next_back())
            .is_some_and(|last| !last.is_empty() && !last.contains('.'))
}

/// Whether `location` is `url` with a final slash added, and nothing else changed (escapes
/// compared in their canonical form: `%c3` is `%C3`).
fn adds_slash(url: &url::Url, location: &url::Url) -> bool {
    let mut slashed = url.clone();
    slashed.set_path(&format!("{}/", url.path()));
    folder_without_slash(url) && crate::uri::canonical(&slashed) == crate::uri::canonical(location)
}

/// Pages of `pages` a block must be on to be common: `share` of them, and two at least.
fn common(pages: u32, share: f64) -> u32 {
    ((f64::from(pages) * share).ceil() as u32).max(2)
}

/// The key of a block under a template.
fn under(template: &str, key: u64) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    template.hash(&mut h);
    key.hash(&mut h);
    h.finish()
}

fn bump<K: std::hash::Hash + Eq>(map: &mut HashMap<K, u32>, key: K, max: usize) {
    let len = map.len();
    match map.get_mut(&key) {
        Some(n) => *n = n.saturating_add(1),
        None if len < max => {
            map.insert(key, 1);
        }
        None => {}
    }
}

#[cfg(test)]
#[path = "host_tests.rs"]
mod tests;
