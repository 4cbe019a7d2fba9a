//! URL templates of a host, learned from its URLs (the idea of iRobot and FoCUS): digits are
//! `N`, and a path segment is `*` where the host's URLs of the same shape hold three or more
//! values, so `/ticket/2` and `/ticket/7` share `ticket/N`, and `/birds/heron/` and
//! `/birds/wren/` share `birds/*` once a third bird is seen.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use url::Url;

/// Characters that open a segment naming an action rather than a page (`_dir`, `@edit`,
/// `+meta`): applications set their views apart from names so.
pub(super) const MARKS: [char; 3] = ['_', '@', '+'];

/// Distinct shapes kept per host.
const MAX_SHAPES: usize = 5_000;
/// Distinct values at one place that make it a variable slot.
const VARIABLE: usize = 3;

/// A URL's path segments (digits as `N`) and its sorted query keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Shape {
    segments: Vec<String>,
    /// The segments as written (lowercase), for telling `/comment/12/publish` from
    /// `/comment/13/publish`.
    raw: Vec<String>,
    query: Vec<String>,
}

impl Shape {
    pub(super) fn of(url: &Url) -> Shape {
        let raw: Vec<String> = url
            .path()
            .trim_matches('/')
            .split('/')
            .map(str::to_ascii_lowercase)
            .collect();
        let segments = raw.iter().map(|s| digits_as_n(s)).collect();
        let mut query: Vec<String> = url
            .query_pairs()
            .map(|(k, _)| k.into_owned())
            .take(32)
            .collect();
        query.sort();
        query.dedup();
        Shape {
            segments,
            raw,
            query,
        }
    }
}

impl Shape {
    /// Places in the path (the root has one, empty).
    pub(super) fn places(&self) -> usize {
        self.raw.len()
    }

    /// Whether this is the host's root, `/`.
    pub(super) fn is_root(&self) -> bool {
        self.raw.iter().all(String::is_empty)
    }

    /// The [`Shape::key`] with each named place in turn as `*` (`t/*/N/post/N`, `t/*/N/last`):
    /// the same action on any item. Only a place after the first (the first is a section of
    /// the host) with a named place after it: an item's own links (`/t/heron/3/last`,
    /// `/t/heron/3/new`) say nothing of its pages (`/t/heron/3/2`), and `t/*/N` or `*/N` would
    /// be every item. Numbers are open already.
    pub(super) fn keys_with_a_place_open(&self) -> Vec<String> {
        let query = match self.query.is_empty() {
            true => String::new(),
            false => format!("?{}", self.query.join("&")),
        };
        let Some(last_named) = self.segments.iter().rposition(|s| s != "N") else {
            return Vec::new();
        };
        (1..last_named)
            .filter(|&i| self.segments[i] != "N" && !self.segments[i].is_empty())
            .map(|i| {
                let mut s: Vec<&str> = self.segments.iter().map(String::as_str).collect();
                s[i] = "*";
                format!("{}{query}", s.join("/"))
            })
            .collect()
    }

    /// The shape as text: segments with digits as `N`, and the query keys (`post/N`,
    /// `index.php?page`).
    pub(super) fn key(&self) -> String {
        let mut k = self.segments.join("/");
        if !self.query.is_empty() {
            k.push('?');
            k.push_str(&self.query.join("&"));
        }
        k
    }
}

fn digits_as_n(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('N');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// The distinct URL shapes of a host.
#[derive(Debug, Clone, Default)]
pub(super) struct Shapes {
    shapes: Vec<Shape>,
    /// Hashes of `shapes`: every link of every page is added, and shapes hold the segments
    /// as written, so a scan for a duplicate cost a comparison per shape known (5% of a
    /// crawl's CPU). Two shapes of one hash are rare, and cost only the second one's place.
    hashes: HashSet<u64>,
}

impl Shapes {
    pub(super) fn add(&mut self, s: Shape) {
        if self.shapes.len() >= MAX_SHAPES {
            return;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.hash(&mut h);
        if self.hashes.insert(h.finish()) {
            self.shapes.push(s);
        }
    }

    /// The template of `me` (one of the shapes or not): place by place, `*` where the shapes that agree with it so far
    /// hold [`VARIABLE`] or more values, most of them seen once.
    pub(super) fn template(&self, me: &Shape) -> String {
        let others: Vec<&Shape> = self
            .shapes
            .iter()
            .filter(|o| o.segments.len() == me.segments.len() && o.query == me.query)
            .collect();
        let mut out: Vec<&str> = Vec::with_capacity(me.segments.len());
        for (i, seg) in me.segments.iter().enumerate() {
            let mut values: Vec<&str> = others
                .iter()
                .filter(|o| (0..i).all(|j| out[j] == "*" || o.segments[j] == out[j]))
                .map(|o| o.segments[i].as_str())
                .chain(std::iter::once(seg.as_str()))
                .collect();
            values.sort_unstable();
            let seen = values.len();
            values.dedup();
            // Names vary, keywords repeat: `ticket` in `/ticket/2`, `/ticket/5` and `wiki` in
            // `/wiki/Heron`, `/wiki/Wren` are sections, where `heron` and `wren` are seen
            // once each. A place is variable when it holds several values and most were seen
            // once.
            let singles = values.len() * 2 > seen;
            out.push(if values.len() >= VARIABLE && singles {
                "*"
            } else {
                seg
            });
        }
        let mut t = out.join("/");
        if !me.query.is_empty() {
            t.push('?');
            t.push_str(&me.query.join("&"));
        }
        t
    }
}

impl Shapes {
    /// Whether the value at place `i` of `me` follows two or more different prefixes (as
    /// written) among the shapes: `history` in `/Birds/Heron/history` and
    /// `/Birds/Wren/history`, `publish` in `/comment/12/publish` and `/comment/13/publish`, is
    /// an action offered on every page, where `history` in `/tag/history/` is one name among
    /// others.
    pub(super) fn repeats(&self, me: &Shape, i: usize) -> bool {
        let Some(value) = me.raw.get(i) else {
            return false;
        };
        let mut prefixes: Vec<&[String]> = self
            .shapes
            .iter()
            .filter(|o| o.raw.len() > i && o.raw[i] == *value)
            .map(|o| &o.raw[..i])
            .collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        prefixes.len() >= 2
    }

    /// Whether the host has a URL whose path is `me`'s without its leading marked segments
    /// (`_ @ +`): `/Birds/Heron` for `/+meta/Birds/Heron` and for
    /// `/+show/+7300a14b/Birds/Heron` (an old revision).
    pub(super) fn has_tail_of(&self, me: &Shape) -> bool {
        let marked = me.raw.iter().take_while(|s| s.starts_with(MARKS)).count();
        marked >= 1
            && me.raw.len() > marked
            && self.shapes.iter().any(|o| o.raw == me.raw[marked..])
    }

    /// Whether `value` ends the paths of two or more different URLs (`/TheHeron/history/`,
    /// `/TheSwift/history/`) whose template keeps it as a fixed word (`*/history`): an action
    /// the host offers on each of its pages. A tag's or a category's name ends paths too
    /// (`/tag/history/`, `/category/history/`), in a place where the host's URLs hold many
    /// values (`tag/*`).
    pub(super) fn ends_many(&self, value: &str) -> bool {
        let fixed = |o: &Shape| {
            let t = self.template(o);
            let path = t.split('?').next().unwrap_or("").trim_end_matches('/');
            path.rsplit('/').next() == Some(value)
        };
        let mut prefixes: Vec<&[String]> = self
            .shapes
            .iter()
            .filter(|o| o.raw.len() >= 2 && o.raw.last().is_some_and(|v| v == value))
            .filter(|o| fixed(o))
            .map(|o| &o.raw[..o.raw.len() - 1])
            .collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        prefixes.len() >= 2
    }

    /// Whether the host has a URL whose path is `me`'s without its last segment, and no query,
    /// that is one page among many of a section: `/wiki/Heron` (its template `wiki/*`) for
    /// `/wiki/Heron/9ff8e39`; not a section itself (`/posts`, `/blog/posts`).
    pub(super) fn has_page_as_head_of(&self, me: &Shape) -> bool {
        let n = me.raw.len();
        n >= 3
            && self
                .shapes
                .iter()
                .find(|o| o.query.is_empty() && o.raw == me.raw[..n - 1])
                .is_some_and(|head| self.template(head).ends_with("/*"))
    }

    /// The distinct values at place `i` of the shapes that share `me`'s first `i` places and
    /// length: the choices a menu offers there.
    pub(super) fn siblings(&self, me: &Shape, i: usize) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .shapes
            .iter()
            .filter(|o| {
                o.segments.len() == me.segments.len() && o.segments[..i] == me.segments[..i]
            })
            .map(|o| o.segments[i].as_str())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(u: &str) -> Shape {
        Shape::of(&Url::parse(u).unwrap())
    }

    #[test]
    fn a_place_is_variable_once_three_values_are_seen() {
        let mut s = Shapes::default();
        for u in ["http://h/birds/heron/", "http://h/birds/wren/"] {
            s.add(shape(u));
        }
        assert_eq!(s.template(&shape("http://h/birds/wren/")), "birds/wren");
        s.add(shape("http://h/birds/owl/"));
        assert_eq!(s.template(&shape("http://h/birds/wren/")), "birds/*");
        assert_eq!(s.template(&shape("http://h/ticket/12")), "ticket/N");
    }

    #[test]
    fn sections_that_repeat_are_not_variable() {
        let mut s = Shapes::default();
        for u in [
            "http://h/wiki/Heron",
            "http://h/wiki/Wren",
            "http://h/report/1",
            "http://h/report/2",
            "http://h/milestone/spring",
            "http://h/milestone/summer",
            "http://h/ticket/2",
        ] {
            s.add(shape(u));
        }
        assert_eq!(s.template(&shape("http://h/ticket/5")), "ticket/N");
        assert_eq!(s.template(&shape("http://h/wiki/Owl")), "wiki/*");
    }

    #[test]
    fn a_shape_is_kept_once() {
        let mut s = Shapes::default();
        for u in [
            "http://h/a/1",
            "http://h/a/1",
            "http://h/a/2",
            "http://h/a/1?x=1",
        ] {
            s.add(shape(u));
        }
        assert_eq!(s.shapes.len(), 3, "{:?}", s.shapes);
    }

    #[test]
    fn query_keys_are_part_of_the_template() {
        let s = Shapes::default();
        assert_eq!(
            s.template(&shape("http://h/index.php?page=2&sort=new")),
            "index.php?page&sort"
        );
    }
}
