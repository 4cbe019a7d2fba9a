//! A link judged against the page it is on, for a host no knowledge-base application matched:
//! besides what its URL says (`nav::not_worth`), a link can be a view of a page rather than a
//! page of its own — the first page of a list under a second URL, a page's clean URL with a
//! permalink's or a sort's query added, a post's place in a topic, a marked view before a
//! page's path, a filter in a menu of views of the page.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use scraper::Selector;
use url::Url;

use super::super::kb::Category;

use super::host::HostModel;
use super::nav::{by_url, learned_display, learned_person, learned_place, literal, names_a_view};
use super::page::marks_a_person;
use super::template::{Shape, MARKS};

/// Query keys that number the pages of a list, with the first page's value: `?page=1` is the
/// list itself under a second URL.
const PAGING_KEYS: &[(&str, &str)] = &[
    ("page", "1"),
    ("paged", "1"),
    ("pg", "1"),
    ("start", "0"),
    ("offset", "0"),
];

/// Whether `key=value` names the first page of a list.
fn first_page(key: &str, value: &str) -> bool {
    PAGING_KEYS.iter().any(|&(k, v)| k == key && v == value)
}

/// [`not_worth`] for a link found on `page`, which links to `linked` too (same-host URLs,
/// without fragments): besides what [`not_worth`] says, a link can be a view of a page rather
/// than a page of its own.
/// - The first page of a list under a second URL (`?page=1`, `/page:1/`) when the page is, or
///   links to, the list's own URL.
/// - A clean URL `X` that is the page or that the page links to, with a query added (a sort,
///   a filter, a post's or an answer's permalink: Askbot's `?answer=2`, django-machina's
///   `?post=21`), unless the query only turns pages or names an item (`?id=`). A path `/` or a
///   script (`index.php`) is not clean: there the query names the page (`/?p=12`).
/// - Another URL `X` of the page, two or more segments ending in a name, with a small number
///   added (`/topic/2/slug/3` beside `/topic/2/slug`: a post's place in topic X, NodeBB's
///   teasers). Paging links of X are on X itself; `/archives/2023` and `/report/1` are a year
///   and an id under a one-segment list.
pub fn not_worth_on(
    url: &Url,
    page: &Url,
    linked: &HashSet<String>,
    host: &HostModel,
) -> Option<(String, String)> {
    if let Some(found) = by_url(url, host)
        .or_else(|| learned_display(url, host))
        .or_else(|| learned_person(url, host))
    {
        return Some(found);
    }
    let template = || host.nav_shapes().template(&Shape::of(url));
    let known = |x: &Url| {
        let s = x.as_str();
        x.path() == page.path() && x.query() == page.query()
            || linked.contains(s)
            || linked.contains(s.strip_suffix('/').unwrap_or(s))
            || linked.contains(&format!("{s}/"))
    };
    if let Some(first) = without_first_page(url) {
        // On `?page=2` the list is the page without its paging keys, whether linked or not.
        if known(&first) || without_paging(page).as_ref() == Some(&first) {
            return Some((template(), format!("the first page of {}", first.path())));
        }
    }
    if url.query().is_some() && !url.query_pairs().all(|(k, v)| turns_or_names(&k, &v)) {
        let mut x = url.clone();
        x.set_query(None);
        if clean(&x) && known(&x) {
            return Some((
                template(),
                format!("{} with a query: a view of it", x.path()),
            ));
        }
    }
    if let Some(item) = slugged(url, linked) {
        return Some((
            template(),
            format!("{item} under its bare number: a second URL of it"),
        ));
    }
    if let Some(list) = combined_list(url, page, linked) {
        return Some((
            template(),
            format!("{} combined with other lists", list.path()),
        ));
    }
    // `/+meta/Rivers/Weir` beside `/Rivers/Weir`: a marked first segment before the path of
    // the page or of one of its links is a view of that page (MoinMoin's item views).
    if let Some((first, rest)) = url.path().trim_start_matches('/').split_once('/') {
        if first.starts_with(MARKS) && !rest.trim_matches('/').is_empty() {
            let mut x = url.clone();
            x.set_query(None);
            x.set_path(&format!("/{rest}"));
            if known(&x) {
                return Some((
                    literal(&template(), 0, first),
                    format!("{first:?} before {}: a view of it", x.path()),
                ));
            }
        }
    }
    let x = place_in(url)?;
    // X's own paging, and a pager of X (`X/2`, `X/3` on a list of topics), are pages of X,
    // not places in it, even on a host that learned places of their template; so are URLs of
    // a template another page showed so.
    if page.path().trim_end_matches('/') == x.path()
        || siblings(&x, linked) > 1
        || host.are_children(&template())
    {
        return None;
    }
    if let Some(found) = learned_place(url, host) {
        return Some(found);
    }
    known(&x).then(|| {
        (
            template(),
            format!("{PLACE_IN}{}, which the page links to", x.path()),
        )
    })
}

/// Whether `url` is the page, or a URL the page links to, with a final slash added
/// (`/t/5/slug/` beside `/t/5/slug`: djeddit links each thread's comments so). Often the same
/// page under a second URL, but not always (Gitit's folder `/Birds/` beside its page
/// `/Birds`), so such a link is fetched last: if the host serves both alike, the crawl's copy
/// rules (`crawl::copies`, `slash:final`) learn it from the first few and skip the others.
pub fn looks_like_a_slashed_copy(url: &Url, page: &Url, linked: &HashSet<String>) -> bool {
    crate::uri::without_final_slash(url).is_some_and(|bare| {
        (bare.path() == page.path() && bare.query() == page.query())
            || linked.contains(bare.as_str())
    })
}

/// The path `url` adds one ASCII letter to as a segment (`/l/m1` for `/l/m1/T/`), without its
/// final slash, and the letter, when it has no query. The host's root is left out: one-letter
/// sections there are the site's own (an imageboard's `/b/`).
fn lettered_parent(url: &Url) -> Option<(&str, &str)> {
    let (parent, seg) = url.path().trim_end_matches('/').rsplit_once('/')?;
    let letter = seg.len() == 1 && seg.bytes().all(|b| b.is_ascii_alphabetic());
    (letter && !parent.is_empty() && url.query().is_none()).then_some((parent, seg))
}

/// The URL the page links whose last segment is `url`'s bare number followed by a slug
/// (`/topic/2-wren-photos` for `/topic/2?page=2`, FlaskBB's pager beside each topic of a
/// list): an item whose application answers its number alone too. Its own pages are linked
/// from it with its slug. A year is no item's number: `/tag/2024` beside `/tag/2024-election`
/// is a tag of its own.
fn slugged(url: &Url, linked: &HashSet<String>) -> Option<String> {
    let path = url.path().trim_end_matches('/');
    let (parent, last) = path.rsplit_once('/')?;
    if last.is_empty() || last.len() > 9 || !last.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if last.len() == 4 && (1900..2100).contains(&last.parse::<u32>().unwrap_or(0)) {
        return None;
    }
    let mut base = url.clone();
    base.set_query(None);
    base.set_path(parent);
    let prefix = format!("{}/{last}-", base.as_str().trim_end_matches('/'));
    linked
        .iter()
        .take(5_000)
        .filter_map(|l| l.strip_prefix(&prefix).map(|rest| (l, rest)))
        .find(|(_, rest)| {
            let slug = rest.split(['?', '/']).next().unwrap_or("");
            slug.bytes().any(|b| b.is_ascii_alphabetic())
        })
        .map(|(l, _)| l.split('?').next().unwrap_or(l).to_owned())
}

/// The list `url` combines with others, when its last segment joins names by bare commas
/// (Gitit's `/_category/Birds,maps`: the pages in both categories) and one of them, alone in its
/// place, is the page or one it links to. Names joined by a comma and a space or an underscore
/// are one name (MediaWiki's `/wiki/Washington,_D.C.`), and numbers are coordinates, not names.
fn combined_list(url: &Url, page: &Url, linked: &HashSet<String>) -> Option<Url> {
    let path = url.path().trim_end_matches('/');
    let (parent, last) = path.rsplit_once('/')?;
    let names: Vec<&str> = last.split(',').collect();
    let name = |n: &&str| {
        !n.is_empty()
            && !n.starts_with(['_', ' ', '%', '+', '-'])
            && !n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    };
    if names.len() < 2 || !names.iter().all(name) || url.query().is_some() {
        return None;
    }
    names.iter().find_map(|n| {
        let mut x = url.clone();
        x.set_path(&format!("{parent}/{n}"));
        x.set_fragment(None);
        (x.path() == page.path() || linked.contains(x.as_str())).then_some(x)
    })
}

/// Links of `linked` that are `x` with a small number added (`x/2`, `x/3`).
fn siblings(x: &Url, linked: &HashSet<String>) -> usize {
    let prefix = format!("{}/", x.as_str().trim_end_matches('/'));
    linked
        .iter()
        .filter(|l| l.strip_prefix(&prefix).is_some_and(is_small_number))
        .count()
}

/// Whether `url` is one of two or more children of one page that `linked` (a page's links)
/// holds: `boards/2` beside `boards/1` on a list of forums, a pager's `X/2` beside `X/3`.
pub fn among_children(url: &Url, linked: &HashSet<String>) -> bool {
    place_in(url).is_some_and(|x| siblings(&x, linked) > 1)
}

/// Reason of a place verdict: a template taught so is skipped on the whole host
/// (`HostModel::learn_place`).
pub(crate) const PLACE_IN: &str = "a place in ";

/// The page `url` is a place in, if its shape is one: two or more segments ending in a name,
/// then a small number (`/topic/2/slug/3` in `/topic/2/slug`), no query.
pub(super) fn place_in(url: &Url) -> Option<Url> {
    let path = url.path().trim_end_matches('/');
    let (parent, last) = path.rsplit_once('/')?;
    let parent_last = parent.rsplit('/').next().unwrap_or("");
    if url.query().is_some()
        || !is_small_number(last)
        || parent.trim_matches('/').split('/').count() < 2
        || parent_last.is_empty()
        || parent_last.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut x = url.clone();
    x.set_path(parent);
    x.set_fragment(None);
    Some(x)
}

/// Whether `url` has the shape of a place in another page than `page` (see [`place_in`]),
/// though nothing on the page shows that page: a forum's home page links the latest post of
/// each category as its place in its topic (NodeBB's teasers), and no topic itself.
pub fn looks_like_a_place(url: &Url, page: &Url, linked: &HashSet<String>) -> bool {
    place_in(url).is_some_and(|x| {
        x.path() != page.path().trim_end_matches('/')
            && !linked.contains(x.as_str())
            && !linked.contains(&format!("{}/", x.as_str()))
    })
}

fn is_small_number(s: &str) -> bool {
    let s = s.trim_end_matches('/');
    s.len() <= 3 && !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Why a page offers a link as a view of itself rather than a page of its own.
pub const IN_MENU: &str = "in a menu of views of the page that links it";
/// See [`page_views`].
pub const LABELLED: &str = "every link to it is labelled a permalink or a source";
/// See [`page_views`].
pub const LETTERED: &str = "a letter added to the page or to a URL it links: another display";
/// See [`page_views`].
pub const REQUERIED: &str = "the page's own query under another path: another display of it";
/// See [`page_views`].
pub const PERSON: &str = "a member's page, linked by an avatar or as an author";
/// See [`page_views`].
pub const NUMBERED: &str = "every link to it is a post's number, to another of the page's kind";

/// Anchor texts that label a link as another URL of what the page shows or its markup
/// (Fossil's `[link]` and `[source]` beside each post, a wiki's "permalink", a
/// documentation theme's "show source").
const VIEW_LABELS: &[&str] = &[
    "link",
    "permalink",
    "permanent link",
    "source",
    "raw",
    "view source",
    "show source",
    "page source",
];

/// Labels of [`VIEW_LABELS`] that name a URL of what the page shows, not its markup: they make
/// a view only of the page's own template (another post of a thread). A list whose posts are
/// linked by "Permalink" alone (a microblog) links its terminal pages so.
const PERMALINK_LABELS: &[&str] = &["link", "permalink", "permanent link"];

/// The links a page offers as views of itself, with why ([`IN_MENU`], [`LABELLED`],
/// [`LETTERED`], [`REQUERIED`], [`NUMBERED`], [`PERSON`]):
/// - In a menu (`role="menu"`, a dropdown's list of choices) that holds a link to the page,
///   the page's own URL with a query (NodeBB's "All categories" chooser on `/recent`:
///   `/recent?cid=1`, `/recent?cid=2`). Their query keys are ones that usually name an item
///   (`cid`); the menu says they filter this list. Links with a segment appended are left
///   alone: a documentation theme's dropdown lists the page's subpages so.
/// - A same-host URL every link of the page labels as a source rendering, or a URL of the
///   page's own template every link labels as a permalink ([`VIEW_LABELS`], brackets aside);
///   one link to it with other words (a post's title on a list beside its "permalink") keeps
///   it.
/// - The page's own URL, or a URL it links, with one letter added as a segment that follows
///   other paths of the host too, when the page links at most two such letters under it
///   (public-inbox's `T/` and `t/` beside each message: its thread, flat and nested, under a
///   second URL per message; the list of threads links one thread view each, not the
///   messages). An index by initial (`/glossary/a/` to `/z/`) links more letters, and tags
///   named by a letter (`/tags/c/`) sit under one folder.
/// - The page's own query, when it names the page (`?name=Birds`, `?id=12`), under another
///   path that names a view (an action word begins or ends its last segment), when the page
///   links at most two such URLs: Fossil's `/whistory?name=Birds` on `/wiki?name=Birds`, a
///   print or history view of the item the query names. A query that many links carry (a
///   language) is a context, not a page's name: more than two such URLs keep them all. Paths
///   that name no view are never counted: a project's modules under its `?id=`, a forum's
///   `viewforum?id=1` on `viewtopic?id=1`, which shares its query by chance.
/// - On a host read as a forum, or not read as anything yet, a link that holds an avatar or is
///   marked as an author (`page::marks_a_person`): a member's page, which forums' own truth
///   calls no content (a blog's author page lists posts, and is followed).
/// - A URL of the page's own template every link of the page names by a small number alone
///   (Fossil's "in reply to 1" in a thread: another post of a thread, whose URL shows the
///   thread again), unless it differs from the page by numbers only: a pager's `/page/2`
///   beside `/page/3`, `?page=2`, `/topic/12` beside `/topic/7`.
pub fn page_views(
    doc: &scraper::Html,
    page: &Url,
    host: &HostModel,
) -> HashMap<String, &'static str> {
    static MENU: LazyLock<Selector> =
        LazyLock::new(|| Selector::parse("[role=menu]").expect("a valid selector"));
    static LINK: LazyLock<Selector> =
        LazyLock::new(|| Selector::parse("a[href]").expect("a valid selector"));
    let join = |a: scraper::ElementRef<'_>| {
        let mut u = page.join(a.value().attr("href")?).ok()?;
        u.set_fragment(None);
        Some(u)
    };
    let same = |u: &Url| {
        u.host_str() == page.host_str()
            && u.path().trim_end_matches('/') == page.path().trim_end_matches('/')
    };
    let mut views = HashMap::new();
    for menu in doc.select(&MENU) {
        let urls: Vec<Url> = menu.select(&LINK).filter_map(join).collect();
        if !urls.iter().any(|u| same(u) && u.query() == page.query()) {
            continue;
        }
        views.extend(
            urls.into_iter()
                .filter(|u| same(u) && u.query().is_some() && u.query() != page.query())
                .map(|u| (String::from(u), IN_MENU)),
        );
    }
    // Per URL: whether every link to it is labelled (a permalink, a rendering), and whether
    // every one is a number.
    let mut texts: HashMap<Url, (Option<bool>, bool)> = HashMap::new();
    // A blog's author is a list of their posts; a forum's member is no content of the forum.
    let members = matches!(host.category(), None | Some(Category::Forum));
    for a in doc.select(&LINK).take(5_000) {
        let Some(u) = join(a).filter(|u| u.host_str() == page.host_str()) else {
            continue;
        };
        if members && u != *page && marks_a_person(*a) {
            views.entry(String::from(u.clone())).or_insert(PERSON);
        }
        let text: String = a.text().collect();
        let label = text
            .trim_matches(|c: char| c.is_whitespace() || "[]()<>{}|".contains(c))
            .to_lowercase();
        let (labelled, numbered) = texts.entry(u).or_insert((Some(false), true));
        *labelled = match (*labelled, VIEW_LABELS.contains(&label.as_str())) {
            (Some(permalink), true) => Some(permalink || PERMALINK_LABELS.contains(&&*label)),
            _ => None,
        };
        *numbered &= is_small_number(text.trim());
    }
    let shapes = host.nav_shapes();
    // Per URL Y that is the page or that the page links: its one-letter children linked, and
    // their letters.
    let paths: HashSet<&str> = texts
        .keys()
        .map(|u| u.path().trim_end_matches('/'))
        .chain([page.path().trim_end_matches('/')])
        .collect();
    let mut lettered: HashMap<&str, (HashSet<&str>, Vec<&Url>)> = HashMap::new();
    for u in texts.keys() {
        let Some((parent, letter)) = lettered_parent(u).filter(|(p, _)| paths.contains(p)) else {
            continue;
        };
        // The letter follows other paths on the host too: an action of each, not a name under
        // one folder (`/tags/c/` and `/tags/r/` beside `/tags/`).
        let shape = Shape::of(u);
        if shapes.repeats(&shape, shape.places() - 1) {
            let (letters, urls) = lettered.entry(parent).or_default();
            letters.insert(letter);
            urls.push(u);
        }
    }
    for (_, urls) in lettered.into_values().filter(|(l, _)| l.len() <= 2) {
        for u in urls {
            views.entry(String::from(u.clone())).or_insert(LETTERED);
        }
    }
    if names_a_page(page) {
        let requeried: Vec<&Url> = texts
            .keys()
            .filter(|u| u.query() == page.query() && !same(u))
            .filter(|u| {
                u.path_segments()
                    .and_then(|mut s| s.next_back())
                    .is_some_and(names_a_view)
            })
            .collect();
        if requeried.len() <= 2 {
            for u in requeried {
                views.entry(String::from(u.clone())).or_insert(REQUERIED);
            }
        }
    }
    let own = Shape::of(page);
    let own_template = shapes.template(&own);
    // Asked once per template: a page can label thousands of links.
    let mut kinds: HashMap<String, bool> = HashMap::new();
    let mut own_kind = |u: &Url| {
        let shape = Shape::of(u);
        *kinds
            .entry(shape.key())
            .or_insert_with(|| shapes.template(&shape) == own_template)
    };
    // The host's root is a list whatever its template: a post it links is no second URL of it.
    let root = own.is_root();
    for (u, (labelled, numbered)) in texts {
        let why = if labelled.is_some_and(|permalink| !permalink || (!root && own_kind(&u))) {
            LABELLED
        } else if numbered && u != *page && Shape::of(&u).key() != own.key() && own_kind(&u) {
            NUMBERED
        } else {
            continue;
        };
        views.entry(String::from(u)).or_insert(why);
    }
    views
}

/// Whether a query pair turns pages (`page`) or names an item (`id`, `topic_id`, `p=12`,
/// `t=5`, `title`, Fossil's `/wiki?name=Heron`) rather than a view of the page without it.
/// `p` and `t` name an item by a number; with a word they pick a view (Fossil's
/// chronological `?t=c`).
fn turns_or_names(key: &str, value: &str) -> bool {
    let k = key.to_ascii_lowercase();
    PAGING_KEYS.iter().any(|&(p, _)| p == k) || names_item(&k, value)
}

/// Whether `url`'s query names an item (see [`names_item`]).
fn names_a_page(url: &Url) -> bool {
    url.query_pairs().any(|(k, v)| names_item(&k, &v))
}

/// What other displays of pages are learned by (`HostModel::learn_display`): the path and
/// the query keys of a URL whose query names a page (`whistory?name`). The path is kept as it
/// is, not as its template: the query names the page, the path the display (`/whistory`
/// beside the article's own `/wiki`).
pub(crate) fn display_key(url: &Url) -> Option<String> {
    let mut keys: Vec<String> = url.query_pairs().map(|(k, _)| k.into_owned()).collect();
    keys.sort_unstable();
    keys.dedup();
    names_a_page(url).then(|| format!("{}?{}", url.path(), keys.join("&")))
}

/// Whether a query pair names an item (`id`, `topic_id`, `p=12`, `t=5`, `title`, `name`).
fn names_item(key: &str, value: &str) -> bool {
    let k = key.to_ascii_lowercase();
    ["title", "name"].contains(&k.as_str())
        || (["p", "t"].contains(&k.as_str()) && value.bytes().any(|b| b.is_ascii_digit()))
        || k.ends_with("id")
}

/// Whether a URL's path names a page by itself: not `/`, not a script (`index.php`).
fn clean(url: &Url) -> bool {
    url.path() != "/"
        && url
            .path_segments()
            .and_then(|mut s| s.rfind(|s| !s.is_empty()))
            .is_some_and(|last| {
                !last.contains('.') || last.ends_with(".html") || last.ends_with(".htm")
            })
}

/// `url` without its paging query keys, if it has any (`/forum/1/?page=2` -> `/forum/1/`).
fn without_paging(url: &Url) -> Option<Url> {
    without_pairs(url, |k, _| PAGING_KEYS.iter().any(|&(p, _)| p == k))
}

/// `url` without what makes it the first page of a list (`?page=1`, a last segment
/// `page:1`), if it has that.
fn without_first_page(url: &Url) -> Option<Url> {
    if url.query().is_some() {
        return without_pairs(url, first_page);
    }
    let path = url.path().trim_end_matches('/');
    let (parent, last) = path.rsplit_once('/')?;
    let (k, v) = last.split_once(':')?;
    first_page(&k.to_ascii_lowercase(), v).then(|| {
        let mut out = url.clone();
        out.set_path(&format!("{parent}/"));
        out
    })
}

/// `url` without the query pairs `drop(key lowercased, value)` picks, if it picks any.
fn without_pairs(url: &Url, drop: impl Fn(&str, &str) -> bool) -> Option<Url> {
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let rest: Vec<&(String, String)> = pairs
        .iter()
        .filter(|(k, v)| !drop(&k.to_ascii_lowercase(), v))
        .collect();
    if rest.len() == pairs.len() {
        return None;
    }
    let mut out = url.clone();
    if rest.is_empty() {
        out.set_query(None);
    } else {
        out.query_pairs_mut().clear().extend_pairs(rest);
    }
    Some(out)
}

#[cfg(test)]
#[path = "views_tests.rs"]
mod tests;
