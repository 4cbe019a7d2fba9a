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
    /// URL templates a page showed two or more of under one parent (`boards/1`, `boards/2`
    /// on a list of forums): children or pages of that parent, never places in it.
    not_places: HashSet<String>,
    /// Pages read per URL shape, and answers that were no page (redirects, errors).
    read: HashMap<String, u32>,
    redirects: HashMap<String, u32>,
}

impl HostModel {
    /// Pages read.
    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// Counts a page passed over unread; returns whether this one should be read after all,
    /// one in `every`, so a host whose evidence is still weak is read again now and then
    /// rather than given up.
    pub fn pass_over(&mut self, every: u32) -> bool {
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
    pub fn observe_link(&mut self, url: &url::Url) {
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

    /// Counts a page read with this shape.
    pub(super) fn count_read(&mut self, shape: &Shape) {
        bump(&mut self.read, shape.key(), MAX_TEMPLATES);
    }

    /// Counts an answer for `url` that was no page: a redirect (a permalink that only sends
    /// elsewhere) or an error.
    /// Returns the URL's template when this answer is the one that makes its shape answer no
    /// page.
    pub fn note_no_page(&mut self, url: &url::Url) -> Option<String> {
        let shape = Shape::of(url);
        let before = self.answers_no_page(&shape);
        bump(&mut self.redirects, shape.key(), MAX_TEMPLATES);
        (!before && self.answers_no_page(&shape)).then(|| self.nav_shapes().template(&shape))
    }

    /// Whether `url`'s shape answers no page (see [`HostModel::answers_no_page`]).
    pub fn url_answers_no_page(&self, url: &url::Url) -> bool {
        self.answers_no_page(&Shape::of(url))
    }

    /// Whether URLs of this shape (digits as `N`: `post/N`) answer no page: two or more
    /// redirected or failed, and none was a page.
    pub(super) fn answers_no_page(&self, shape: &Shape) -> bool {
        let key = shape.key();
        self.redirects.get(&key).is_some_and(|&n| n >= 2) && !self.read.contains_key(&key)
    }

    /// Learns that URLs of `template` are places in other pages (at most 64 templates),
    /// unless a page showed them as children ([`HostModel::learn_children`]).
    pub(crate) fn learn_place(&mut self, template: &str) {
        if self.places.len() < MAX_PLACES && !self.not_places.contains(template) {
            self.places.insert(template.to_owned());
        }
    }

    /// Learns that URLs of `template` are children of a page (two or more of them under one
    /// parent on one page), not places in it: a place learned before is unlearned.
    pub(crate) fn learn_children(&mut self, template: &str) {
        self.places.remove(template);
        if self.not_places.len() < MAX_PLACES {
            self.not_places.insert(template.to_owned());
        }
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
mod tests {
    use super::*;

    fn root() -> url::Url {
        url::Url::parse("http://h/").unwrap()
    }

    fn shape(u: &str) -> Shape {
        Shape::of(&url::Url::parse(u).unwrap())
    }

    #[test]
    fn furniture_is_what_most_pages_share_once_three_are_read() {
        let mut m = HostModel::default();
        let nav: HashSet<u64> = [1].into();
        let both: HashSet<u64> = [1, 2].into();
        m.observe(
            &root(),
            None,
            &both,
            &HashSet::new(),
            &[0; 6],
            shape("http://h/a"),
        );
        m.observe(
            &root(),
            None,
            &nav,
            &HashSet::new(),
            &[0; 6],
            shape("http://h/b"),
        );
        assert!(!m.is_furniture(1), "two pages are too few to say");
        m.observe(
            &root(),
            None,
            &nav,
            &HashSet::new(),
            &[0; 6],
            shape("http://h/c"),
        );
        assert!(m.is_furniture(1));
        assert!(!m.is_furniture(2), "one page of three");
    }

    #[test]
    fn a_template_has_furniture_the_host_does_not() {
        let mut m = HostModel::default();
        let menu: HashSet<u64> = [7].into();
        for i in 0..6 {
            m.observe(
                &root(),
                None,
                &HashSet::new(),
                &HashSet::new(),
                &[0; 6],
                shape(&format!("http://h/{i}")),
            );
        }
        for n in 0..3 {
            assert!(
                !m.is_template_furniture("+index/*", 7),
                "{n} pages are too few"
            );
            m.observe(
                &root(),
                None,
                &menu,
                &HashSet::new(),
                &[0; 6],
                shape(&format!("http://h/+index/{n}")),
            );
            m.observe_template("+index/*", &menu);
        }
        assert!(m.is_template_furniture("+index/*", 7));
        assert!(!m.is_furniture(7), "three pages of the host's nine");
        assert!(!m.is_template_furniture("other/*", 7));
        m.observe_template("+index/*", &HashSet::new());
        assert!(
            !m.is_template_furniture("+index/*", 7),
            "three of four is under the template's share"
        );
        for _ in 0..6 {
            m.observe_template("+index/*", &HashSet::new());
        }
        for _ in 0..20 {
            m.observe_template("+index/*", &menu);
        }
        assert!(
            !m.is_template_furniture("+index/*", 7),
            "learned from the first ten pages, where it was on three"
        );
        for _ in 0..20 {
            m.observe_template("late/*", &menu);
        }
        assert!(m.is_template_furniture("late/*", 7));
        assert!(m.template_keys.len() <= 2, "{} keys", m.template_keys.len());
    }

    #[test]
    fn a_weak_reading_follows_its_templates_majority() {
        let mut m = HostModel::default();
        m.vote("t/N".into(), LevelKind::Terminal);
        assert_eq!(m.template_kind("t/N"), None, "one vote is too few");
        m.vote("t/N".into(), LevelKind::Terminal);
        m.vote("t/N".into(), LevelKind::Intermediate);
        assert_eq!(m.template_kind("t/N"), Some(LevelKind::Terminal));
        m.vote("t/N".into(), LevelKind::Intermediate);
        assert_eq!(m.template_kind("t/N"), None, "two against two");
    }

    #[test]
    fn tables_are_bounded() {
        let mut m = HostModel::default();
        for i in 0..(MAX_KEYS as u64 + 10) {
            m.observe(
                &root(),
                None,
                &[i].into(),
                &HashSet::new(),
                &[0; 6],
                shape("http://h/"),
            );
        }
        assert_eq!(m.keys.len(), MAX_KEYS);
    }

    #[test]
    fn a_section_named_for_another_category_with_its_own_evidence_keeps_it() {
        let at = |c: Category| Category::ALL.iter().position(|x| *x == c).unwrap();
        let (mut blog, mut docs, mut lists) = ([0; 6], [0; 6], [0; 6]);
        blog[at(Category::Blog)] = 4;
        docs[at(Category::Docs)] = 3;
        docs[at(Category::Blog)] = 1;
        // Lists with feeds and dates (NodeBB's `/category/`).
        lists[at(Category::Blog)] = 2;
        let mut m = HostModel::default();
        let page = |u: &str| url::Url::parse(u).unwrap();
        for i in 0..10 {
            let u = page(&format!("http://h/blog/post-{i}"));
            m.observe(
                &u,
                None,
                &HashSet::new(),
                &HashSet::new(),
                &blog,
                Shape::of(&u),
            );
            let u = page(&format!("http://h/category/{i}/x"));
            m.observe(
                &u,
                None,
                &HashSet::new(),
                &HashSet::new(),
                &lists,
                Shape::of(&u),
            );
        }
        let doc = page("http://h/docs/intro");
        assert_eq!(
            m.section_category(&doc, None),
            None,
            "no page of /docs/ read yet"
        );
        for i in 0..MIN_PAGES {
            let u = page(&format!("http://h/docs/part-{i}"));
            m.observe(
                &u,
                None,
                &HashSet::new(),
                &HashSet::new(),
                &docs,
                Shape::of(&u),
            );
        }
        assert_eq!(m.category(), Some(Category::Blog));
        assert_eq!(m.section_category(&doc, None), Some(Category::Docs));
        // A section named for nothing is part of the rest of the host, here a blog.
        assert_eq!(
            m.section_category(&page("http://h/category/1/x"), None),
            Some(Category::Blog)
        );
    }

    #[test]
    fn the_rest_of_a_host_beside_a_section_named_for_a_category_keeps_its_own() {
        let at = |c: Category| Category::ALL.iter().position(|x| *x == c).unwrap();
        let (mut blog, mut docs) = ([0; 6], [0; 6]);
        blog[at(Category::Blog)] = 4;
        docs[at(Category::Docs)] = 3;
        let mut m = HostModel::default();
        let page = |u: &str| url::Url::parse(u).unwrap();
        let mut read = |u: &str, e: &[u32; 6]| {
            let u = page(u);
            m.observe(&u, None, &HashSet::new(), &HashSet::new(), e, Shape::of(&u));
        };
        for i in 0..10 {
            read(&format!("http://h/blog/2023/post-{i}"), &blog);
        }
        for i in 0..4 {
            read(&format!("http://h/birds/bird-{i}/"), &docs);
        }
        assert_eq!(m.category(), Some(Category::Blog));
        // A split host: each part has its own, the host's included, whichever was read first.
        assert_eq!(
            m.section_category(&page("http://h/blog/2023/x"), None),
            Some(Category::Blog)
        );
        assert_eq!(
            m.section_category(&page("http://h/blog/"), None),
            Some(Category::Blog)
        );
        assert_eq!(
            m.section_category(&page("http://h/birds/heron/"), None),
            Some(Category::Docs)
        );
        assert_eq!(
            m.section_category(&page("http://h/about/"), None),
            Some(Category::Docs)
        );
    }
}
