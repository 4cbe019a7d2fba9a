//! A link judged against the page it is on, for a host no knowledge-base application matched:
//! besides what its URL says (`nav::not_worth`), a link can be a view of a page rather than a
//! page of its own — the first page of a list under a second URL, a page's clean URL with a
//! permalink's or a sort's query added, a post's place in a topic, a marked view before a
//! page's path, a filter in a menu of views of the page.

use std::collections::HashSet;
use std::sync::LazyLock;

use scraper::Selector;
use url::Url;

use super::host::HostModel;
use super::nav::{by_url, learned_place, literal};
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
    if let Some(found) = by_url(url, host) {
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
    if url.query().is_some() && !url.query_pairs().all(|(k, _)| turns_or_names(&k)) {
        let mut x = url.clone();
        x.set_query(None);
        if clean(&x) && known(&x) {
            return Some((
                template(),
                format!("{} with a query: a view of it", x.path()),
            ));
        }
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

/// The links a page offers as views of itself: in a menu (`role="menu"`, a dropdown's list of
/// choices) that holds a link to the page, the page's own URL with a query (NodeBB's "All
/// categories" chooser on `/recent`: `/recent?cid=1`, `/recent?cid=2`). Their query keys are
/// ones that usually name an item (`cid`); the menu says they filter this list. Links with a
/// segment appended are left alone: a documentation theme's dropdown lists the page's
/// subpages so.
pub fn menu_views(doc: &scraper::Html, page: &Url) -> HashSet<String> {
    static MENU: LazyLock<Selector> =
        LazyLock::new(|| Selector::parse("[role=menu]").expect("a valid selector"));
    static LINK: LazyLock<Selector> =
        LazyLock::new(|| Selector::parse("a[href]").expect("a valid selector"));
    let same = |u: &Url| {
        u.host_str() == page.host_str()
            && u.path().trim_end_matches('/') == page.path().trim_end_matches('/')
    };
    let mut views = HashSet::new();
    for menu in doc.select(&MENU) {
        let urls: Vec<Url> = menu
            .select(&LINK)
            .filter_map(|a| page.join(a.value().attr("href")?).ok())
            .map(|mut u| {
                u.set_fragment(None);
                u
            })
            .collect();
        if !urls.iter().any(|u| same(u) && u.query() == page.query()) {
            continue;
        }
        views.extend(
            urls.into_iter()
                .filter(|u| same(u) && u.query().is_some() && u.query() != page.query())
                .map(String::from),
        );
    }
    views
}

/// Whether a query key turns pages (`page`) or names an item (`id`, `topic_id`, `p`, `t`,
/// `title`, Fossil's `/wiki?name=Heron`) rather than a view of the page without it.
fn turns_or_names(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    PAGING_KEYS.iter().any(|&(p, _)| p == k)
        || ["p", "t", "title", "name"].contains(&k.as_str())
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
mod tests {
    use super::*;
    use crate::aah::generic::not_worth;

    fn url(u: &str) -> Url {
        Url::parse(u).unwrap()
    }

    fn host(urls: &[&str]) -> HostModel {
        let mut m = HostModel::default();
        for u in urls {
            m.observe_link(&url(u));
        }
        m
    }

    fn on(u: &str, page: &str, links: &[&str], m: &HostModel) -> Option<(String, String)> {
        let linked: HashSet<String> = links.iter().map(|l| url(l).to_string()).collect();
        not_worth_on(&url(u), &url(page), &linked, m)
    }

    #[test]
    fn the_first_page_under_a_second_url_is_skipped_when_the_list_is_known() {
        let m = host(&["http://f/category/5/birds"]);
        let list = "http://f/category/5/birds";
        assert!(on("http://f/category/5/birds?page=1", list, &[], &m).is_some());
        assert!(on("http://f/c/5?page=1", "http://f/", &["http://f/c/5"], &m).is_some());
        // The list's own URL unknown: `?page=1` may be the only way to it.
        assert_eq!(on("http://f/c/5?page=1", "http://f/", &[], &m), None);
        assert_eq!(on("http://f/category/5/birds?page=2", list, &[], &m), None);
        // On the list's second page, which links to `?page=1` and not to the list itself.
        let second = "http://f/forum/1/?page=2";
        assert!(on("http://f/forum/1/?page=1", second, &[], &m).is_some());
        assert_eq!(on("http://f/forum/2/?page=1", second, &[], &m), None);
        let q = "http://q/questions/sort:activity-desc/page:1/";
        assert!(on(
            q,
            "http://q/",
            &["http://q/questions/sort:activity-desc/"],
            &m
        )
        .is_some());
    }

    #[test]
    fn a_clean_url_with_a_query_added_is_a_view_of_it() {
        let m = host(&[]);
        let q = "http://q/question/1/lapwing/";
        assert!(on("http://q/question/1/lapwing/?answer=2", q, &[], &m).is_some());
        let list = "http://f/forum/birds/";
        let topic = "http://f/forum/birds/topic/wren/";
        assert!(on(&format!("{topic}?post=21"), list, &[topic], &m).is_some());
        // Not linked: nothing says what the query is a view of.
        assert_eq!(on(&format!("{topic}?post=21"), list, &[], &m), None);
        // Pages turned, items named, or a path that is no page by itself.
        assert_eq!(on(&format!("{q}?page=2"), q, &[], &m), None);
        assert_eq!(
            on("http://w/shop/item?id=5", "http://w/shop/item", &[], &m),
            None
        );
        assert_eq!(on("http://w/?p=12", "http://w/", &[], &m), None);
        // Fossil's wiki pages, linked from a page whose menu links the wiki's own landing page.
        assert_eq!(
            on(
                "http://f/wiki?name=Heron",
                "http://f/home",
                &["http://f/wiki"],
                &m
            ),
            None
        );
        assert_eq!(
            on(
                "http://w/index.php?title=Heron",
                "http://w/index.php",
                &[],
                &m
            ),
            None
        );
    }

    #[test]
    fn a_number_after_another_url_of_the_page_is_a_place_in_it() {
        let m = host(&[]);
        let topic = "http://f/topic/2/lapwing";
        assert!(on(
            "http://f/topic/2/lapwing/3",
            "http://f/recent",
            &[topic],
            &m
        )
        .is_some());
        // On the topic itself, `/2` turns its pages; a year or an id under a one-segment list
        // is a page of its own.
        assert_eq!(on("http://f/topic/2/lapwing/2", topic, &[topic], &m), None);
        assert_eq!(
            on(
                "http://b/archives/2023",
                "http://b/",
                &["http://b/archives"],
                &m
            ),
            None
        );
        assert_eq!(
            on("http://t/report/1", "http://t/", &["http://t/report"], &m),
            None
        );
    }

    #[test]
    fn a_pager_of_a_topic_is_not_a_place_and_places_once_seen_are_skipped_on_the_host() {
        let mut m = host(&[
            "http://f/topic/2/lapwing/3",
            "http://f/topic/5/heron/1",
            "http://f/topic/7/swift/2",
            "http://f/topic/8/crane/5",
        ]);
        let topic = "http://f/topic/2/lapwing";
        let pager = [
            topic,
            "http://f/topic/2/lapwing/2",
            "http://f/topic/2/lapwing/3",
        ];
        assert_eq!(
            on("http://f/topic/2/lapwing/2", "http://f/", &pager, &m),
            None
        );
        // A place learned on one page is a place wherever its topic is not linked.
        let teaser = url("http://f/topic/9/wren/4");
        assert!(not_worth(&teaser, &m).is_none());
        assert!(looks_like_a_place(
            &teaser,
            &url("http://f/"),
            &HashSet::new()
        ));
        let wren = HashSet::from(["http://f/topic/9/wren".to_string()]);
        assert!(!looks_like_a_place(&teaser, &url("http://f/"), &wren));
        let (template, why) =
            on("http://f/topic/2/lapwing/3", "http://f/c/1", &[topic], &m).unwrap();
        assert!(why.starts_with(PLACE_IN), "{why}");
        m.learn_place(&template);
        assert!(not_worth(&teaser, &m).is_some());
        assert!(not_worth(&url("http://f/topic/9/wren"), &m).is_none());
        // The topic's own paging stays followed on the topic, and a pager of it on a list.
        assert_eq!(on("http://f/topic/2/lapwing/2", topic, &[topic], &m), None);
        assert_eq!(
            on("http://f/topic/2/lapwing/2", "http://f/", &pager, &m),
            None
        );
    }

    #[test]
    fn a_list_combined_with_others_is_a_view_of_it_and_a_name_with_a_comma_is_not() {
        let m = host(&[]);
        let birds = "http://g/_category/Birds";
        let (_, why) = on("http://g/_category/Birds,maps", birds, &[], &m).expect("on Birds");
        assert!(why.contains("combined"), "{why}");
        assert!(on("http://g/_category/maps,Birds", "http://g/", &[birds], &m).is_some());
        // Neither list the page or linked from it.
        assert_eq!(
            on("http://g/_category/maps,Birds", "http://g/", &[], &m),
            None
        );
        let dc = "http://w/wiki/Washington";
        assert_eq!(on("http://w/wiki/Washington,_D.C.", dc, &[], &m), None);
        assert_eq!(
            on("http://w/map/48.85,2.35", "http://w/map/48.85", &[], &m),
            None
        );
    }

    #[test]
    fn children_listed_side_by_side_are_never_places_in_their_parent() {
        // Redmine: a topic's breadcrumb links the list of forums and its own forum; the list
        // of forums links every forum.
        let mut m = host(&["http://r/p/x/boards/1", "http://r/p/x/boards/2"]);
        let (forums, birds) = ("http://r/p/x/boards", "http://r/p/x/boards/1");
        let (template, why) = on(birds, "http://r/boards/1/topics/4", &[forums, birds], &m)
            .expect("alone beside its parent, a forum looks like a place in it");
        assert!(why.starts_with(PLACE_IN), "{why}");
        m.learn_place(&template);
        assert!(not_worth(&url(birds), &m).is_some());
        let listed: HashSet<String> = [birds, "http://r/p/x/boards/2"]
            .iter()
            .map(|l| url(l).to_string())
            .collect();
        assert!(among_children(&url(birds), &listed));
        assert!(!among_children(&url(forums), &listed));
        m.learn_children(&template);
        assert!(not_worth(&url(birds), &m).is_none(), "unlearned");
        m.learn_place(&template);
        assert!(not_worth(&url(birds), &m).is_none(), "never learned again");
        assert_eq!(
            on(birds, "http://r/boards/1/topics/4", &[forums, birds], &m),
            None
        );
    }

    #[test]
    fn a_menu_holding_the_page_offers_views_of_it_with_a_query_never_subpages() {
        let page = url("http://f/recent");
        let html = scraper::Html::parse_document(
            r#"<ul role="menu"><li><a href="/recent">All</a></li><li><a href="/recent?cid=1">
            Birds</a></li><li><a href="/recent/new">New</a></li></ul>
            <ul role="menu"><li><a href="/docs/">Docs</a></li><li><a href="/docs/?v=2">v2</a></li>
            </ul><nav><a href="/recent?cid=2">Rivers</a></nav>"#,
        );
        let views = menu_views(&html, &page);
        assert_eq!(views, HashSet::from(["http://f/recent?cid=1".to_string()]));
    }

    #[test]
    fn a_marked_first_segment_before_a_page_path_is_a_view_of_it() {
        let m = host(&["http://w/Birds/Heron", "http://w/Birds/Wren"]);
        for u in [
            "http://w/+meta/Birds/Heron",
            "http://w/+show/+7300a14b/Birds/Heron",
        ] {
            assert!(not_worth(&url(u), &m).is_some(), "{u}");
        }
        // Before no page of the host: a section of its own.
        assert_eq!(not_worth(&url("http://w/+tags/rivers"), &m), None);
        assert!(on("http://w/+index/Birds/Owl", "http://w/Birds/Owl", &[], &m).is_some());
    }
}
