//! Navigation on a host of an unknown application: links that lead to nothing worth archiving
//! (edit and history views, diffs and old revisions, timelines and calendars, login,
//! registration and search, feeds and other renderings of a page) are skipped, from the fixed
//! words of their URL template. A word counts only in a *fixed* part of the template, never in
//! a variable one, so `/tag/history/` on a host with many tags, or a wiki article named
//! "RecentChanges" among many articles, is followed; unless the value follows several
//! different prefixes (`/Birds/Heron/history`, `/Birds/Wren/history`): then it is an action
//! offered on every page. The templates are those of the host's pages and of the links found
//! on them. A link is also judged against the page it is on: the page's own URL with a sort or
//! a permalink's query added, or a number added to another URL of the page (a post's place in a
//! topic), is a view of a page, not a page.

use std::collections::HashSet;

use url::Url;

use super::host::HostModel;
use super::template::Shape;

/// Words of a fixed path segment that lead to views, actions and renderings, not content.
const PATH_WORDS: &[&str] = &[
    "history",
    "changelog",
    "revision",
    "revisions",
    "diff",
    "login",
    "logout",
    "signin",
    "signup",
    "register",
    "search",
    "preferences",
    "prefs",
    "settings",
    "timeline",
    "calendar",
    "feed",
    "feeds",
    "rss",
    "atom",
    "print",
    "raw",
    "export",
    "edit",
    "recentchanges",
    "commit",
    "revert",
    "blame",
    "publish",
    "delete",
    "rename",
    "subscribe",
    "unsubscribe",
    "lostpassword",
    "password",
    "user",
    "users",
    "members",
    "profile",
    "help",
    "about",
    "create",
    "member",
    "query",
    "attachments",
    "source",
    "feedback",
    "ask",
    "reply",
    "close",
    "reopen",
    "flag",
    "vote",
    "admin",
    "groups",
];

/// Words of [`PATH_WORDS`] that name content as often as a view: a blog's `/about/` is a page
/// of its own, Trac's `/about` and An Otter Wiki's `/-/about` sit in a menu beside `/login`
/// and `/prefs`. They count only in such a menu.
const MENU_ONLY: &[&str] = &["about", "help"];

/// Whether place `i` is a menu of actions and `value` one of them: the value is a word of
/// [`PATH_WORDS`] and two or more other values offered there are too (`/login`, `/prefs`,
/// `/timeline` beside `/wiki` and `/ticket`; `/-/login` beside `/-/changelog`). A tag or an
/// article that happens to be called "History" sits among names, not actions.
fn action_menu(shapes: &super::template::Shapes, shape: &Shape, i: usize, value: &str) -> bool {
    PATH_WORDS.contains(&value)
        && shapes
            .siblings(shape, i)
            .iter()
            .filter(|v| **v != value && PATH_WORDS.contains(&v.to_ascii_lowercase().as_str()))
            .count()
            >= 2
}

/// Query keys of views and actions (`?action=edit`, `?oldid=`, `?replytocom=`, searches).
const QUERY_KEYS: &[&str] = &[
    "action",
    "do",
    "format",
    "version",
    "oldid",
    "diff",
    "rev",
    "from",
    "to",
    "daysback",
    "q",
    "s",
    "sort",
    "order",
    "replytocom",
    "redirect_to",
    "returnto",
    "return_to",
    "came_from",
    "next",
    "edit",
];

/// `template` with its place `i` written as `seg`: the rule a segment decided is shown with
/// that segment (`*/_dir`, not `*/*`, `login`, not `*`).
fn literal(template: &str, i: usize, seg: &str) -> String {
    let (path, query) = template.split_once('?').unwrap_or((template, ""));
    let mut places: Vec<&str> = path.split('/').collect();
    if let Some(p) = places.get_mut(i) {
        *p = seg;
    }
    let path = places.join("/");
    if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    }
}

/// Keys of views written into a path as `key:value` segments.
const VIEW_PATH_KEYS: &[&str] = &["sort", "order"];

/// Whether `url`'s last segment turns a list past its first page (`page:2`, `page/2`).
fn pages_on(url: &Url) -> bool {
    let segs: Vec<&str> = url.path().trim_matches('/').split('/').collect();
    let number = match segs[..] {
        [.., "page", n] => n,
        [.., last] => last.strip_prefix("page:").unwrap_or(""),
        [] => "",
    };
    number.parse::<u32>().is_ok_and(|n| n > 1)
}

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

/// Extensions of other renderings of a page (feeds, plain text, source, data).
const EXTENSIONS: &[&str] = &["xml", "atom", "rss", "txt", "md", "json"];

/// Why a link of a page of this host leads to nothing worth archiving, if it does; with the
/// URL template the decision is made on.
pub fn not_worth(url: &Url, host: &HostModel) -> Option<(String, String)> {
    let shape = Shape::of(url);
    let shapes = host.nav_shapes();
    let template = shapes.template(&shape);
    if host.answers_no_page(&shape) {
        return Some((
            template,
            "its URLs answer redirects or errors, no page".into(),
        ));
    }
    let fixed = template.split('?').next().unwrap_or("").split('/');
    let segments = url.path().trim_matches('/').split('/');
    for (i, (t, seg)) in fixed.zip(segments).enumerate() {
        let lower = seg.to_ascii_lowercase();
        // A rendering is one whatever the place: no page is named `index.md`.
        if let Some((_, ext)) = lower.rsplit_once('.') {
            if EXTENSIONS.contains(&ext) {
                return Some((template, format!("a .{ext} rendering")));
            }
        }
        // `_history`, `@edit`: a prefix that sets actions apart from names.
        let stem = lower
            .split('.')
            .next()
            .unwrap_or("")
            .trim_start_matches(['_', '@', '+', '~']);
        // `sort:votes`: a view key written into the path (Askbot's list URLs); the list's
        // own paging carries its sort too (`sort:activity-desc/page:2`), so a URL that turns
        // past the first page is left to the page that links it.
        if let Some((k, _)) = lower.split_once(':') {
            if VIEW_PATH_KEYS.contains(&k) && !pages_on(url) {
                return Some((template, format!("the path key {k:?}")));
            }
        }
        // `/+meta/Birds/Heron` where `/Birds/Heron` is a URL of the host: a marked first
        // segment before a page's path is a view of that page (MoinMoin's item views).
        if i == 0 && lower.starts_with(['_', '@', '+']) && shapes.has_tail_of(&shape) {
            return Some((
                literal(&template, i, seg),
                format!("{seg:?} before a page's path: a view of it"),
            ));
        }
        // `_dir` after `/birds/heron/` and `/rivers/weir/`: a marked segment (`_`, `@`, `+`)
        // offered after many pages is an action of each, whatever its word (django-wiki).
        if lower.starts_with(['_', '@', '+'])
            && i + 1 == url.path().trim_matches('/').split('/').count()
            && i >= 1
            && shapes.repeats(&shape, i)
        {
            return Some((
                literal(&template, i, seg),
                format!("{seg:?} after every page: an action"),
            ));
        }
        if t == "*" && !shapes.repeats(&shape, i) && !action_menu(shapes, &shape, i, stem) {
            continue;
        }
        // The whole segment, not a word inside it: slugs are sentences ("help-identifying-a-wren").
        if PATH_WORDS.contains(&stem)
            && (!MENU_ONLY.contains(&stem) || action_menu(shapes, &shape, i, stem))
        {
            return Some((literal(&template, i, seg), format!("{stem:?} in the path")));
        }
    }
    for (k, _) in url.query_pairs() {
        let k = k.to_ascii_lowercase();
        if QUERY_KEYS.contains(&k.as_str()) {
            return Some((template, format!("the query key {k:?}")));
        }
    }
    None
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
    if let Some(found) = not_worth(url, host) {
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
        if known(&first) {
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
    // `/+meta/Rivers/Weir` beside `/Rivers/Weir`: a marked first segment before the path of
    // the page or of one of its links is a view of that page (MoinMoin's item views).
    if let Some((first, rest)) = url.path().trim_start_matches('/').split_once('/') {
        if first.starts_with(['_', '@', '+']) && !rest.trim_matches('/').is_empty() {
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
    let path = url.path().trim_end_matches('/');
    let (parent, last) = path.rsplit_once('/')?;
    let parent_last = parent.rsplit('/').next().unwrap_or("");
    let place = last.len() <= 3 && !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit());
    if url.query().is_some()
        || !place
        || parent.trim_matches('/').split('/').count() < 2
        || parent_last.is_empty()
        || parent_last.bytes().all(|b| b.is_ascii_digit())
        || page.path().trim_end_matches('/') == parent
    {
        return None;
    }
    let mut x = url.clone();
    x.set_query(None);
    x.set_path(parent);
    known(&x).then(|| {
        (
            template(),
            format!("a place in {}, which the page links to", x.path()),
        )
    })
}

/// Whether a query key turns pages (`page`) or names an item (`id`, `topic_id`, `p`, `t`,
/// `title`) rather than a view of the page without it.
fn turns_or_names(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    PAGING_KEYS.iter().any(|&(p, _)| p == k)
        || ["p", "t", "title"].contains(&k.as_str())
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

/// `url` without what makes it the first page of a list (`?page=1`, a last segment
/// `page:1`), if it has that.
fn without_first_page(url: &Url) -> Option<Url> {
    let mut out = url.clone();
    if url.query().is_some() {
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let rest: Vec<&(String, String)> = pairs
            .iter()
            .filter(|(k, v)| !first_page(&k.to_ascii_lowercase(), v))
            .collect();
        if rest.len() == pairs.len() {
            return None;
        }
        if rest.is_empty() {
            out.set_query(None);
        } else {
            out.query_pairs_mut().clear().extend_pairs(rest);
        }
        return Some(out);
    }
    let path = url.path().trim_end_matches('/');
    let (parent, last) = path.rsplit_once('/')?;
    let (k, v) = last.split_once(':')?;
    first_page(&k.to_ascii_lowercase(), v).then(|| {
        out.set_path(&format!("{parent}/"));
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn views_actions_and_renderings_are_not_worth_a_fetch() {
        let m = host(&["http://w/wiki/Heron", "http://w/wiki/Wren"]);
        for u in [
            "http://w/wiki/Heron?action=history",
            "http://w/timeline?from=2026-01-01",
            "http://w/login",
            "http://w/wiki/Heron?format=txt",
            "http://w/feed.xml",
            "http://w/history/Heron",
        ] {
            assert!(not_worth(&url(u), &m).is_some(), "{u}");
        }
        for u in [
            "http://w/wiki/Owl",
            "http://w/page/2/",
            "http://w/",
            "http://w/wiki/Birds?page=2",
        ] {
            assert_eq!(not_worth(&url(u), &m), None, "{u}");
        }
    }

    #[test]
    fn a_word_in_a_variable_part_is_a_name() {
        let m = host(&[
            "http://b/tag/birds/",
            "http://b/tag/rivers/",
            "http://b/tag/bread/",
        ]);
        assert_eq!(not_worth(&url("http://b/tag/history/"), &m), None);
        let few = host(&["http://b/tag/birds/"]);
        assert!(not_worth(&url("http://b/tag/history/"), &few).is_some());
    }

    #[test]
    fn permalinks_that_answer_no_page_are_skipped_after_two() {
        let mut m = host(&["http://f/post/1", "http://f/post/2", "http://f/post/3"]);
        assert_eq!(m.note_no_page(&url("http://f/post/1")), None);
        assert_eq!(not_worth(&url("http://f/post/3"), &m), None);
        // The answer that teaches the template names it, once.
        assert_eq!(
            m.note_no_page(&url("http://f/post/2")),
            Some("post/N".into())
        );
        assert!(not_worth(&url("http://f/post/3"), &m).is_some());
        assert!(m.url_answers_no_page(&url("http://f/post/3")));
        assert_eq!(m.note_no_page(&url("http://f/post/3")), None);
    }

    #[test]
    fn a_menu_of_actions_is_not_worth_a_fetch() {
        let m = host(&[
            "http://t/wiki",
            "http://t/ticket",
            "http://t/login",
            "http://t/prefs",
            "http://t/timeline",
            "http://t/History",
            "http://t/Birds",
        ]);
        assert!(not_worth(&url("http://t/login"), &m).is_some());
        assert_eq!(not_worth(&url("http://t/Birds"), &m), None);
        let names = host(&[
            "http://b/Birds",
            "http://b/Rivers",
            "http://b/Bread",
            "http://b/History",
        ]);
        assert_eq!(not_worth(&url("http://b/History"), &names), None);
    }

    #[test]
    fn an_about_page_is_content_unless_it_sits_in_a_menu_of_actions() {
        let blog = host(&[
            "http://b/about/index.html",
            "http://b/tags/birds/",
            "http://b/tags/rivers/",
            "http://b/categories/bread/",
            "http://b/categories/rivers/",
        ]);
        assert_eq!(not_worth(&url("http://b/about/index.html"), &blog), None);
        let wiki = host(&[
            "http://o/-/about",
            "http://o/-/login",
            "http://o/-/changelog",
            "http://o/Birds",
        ]);
        assert!(not_worth(&url("http://o/-/about"), &wiki).is_some());
    }

    #[test]
    fn a_word_after_many_prefixes_is_an_action() {
        let m = host(&[
            "http://w/Birds/Heron/history",
            "http://w/Birds/Wren/history",
            "http://w/Birds/Wren/edit",
            "http://w/Birds/Owl/blame",
        ]);
        assert!(not_worth(&url("http://w/Birds/Owl/history"), &m).is_some());
        assert_eq!(not_worth(&url("http://w/Birds/Owl"), &m), None);
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
    fn a_marked_segment_after_many_pages_is_an_action() {
        let m = host(&[
            "http://w/birds/heron/_dir/",
            "http://w/rivers/weir/_dir/",
            "http://w/birds/heron/",
        ]);
        let (rule, _) = not_worth(&url("http://w/bread/crust/_dir/"), &m).unwrap();
        assert!(rule.ends_with("/_dir"), "{rule}");
        assert_eq!(not_worth(&url("http://w/bread/crust/"), &m), None);
        let once = host(&["http://w/birds/heron/_dir/"]);
        assert_eq!(not_worth(&url("http://w/birds/heron/_dir/"), &once), None);
    }

    #[test]
    fn a_sort_in_the_path_is_a_view_unless_it_turns_the_list() {
        let m = host(&[]);
        assert!(not_worth(&url("http://q/questions/scope:all/sort:age-desc/"), &m).is_some());
        assert_eq!(
            not_worth(
                &url("http://q/questions/scope:all/sort:activity-desc/page:2/"),
                &m
            ),
            None
        );
    }

    #[test]
    fn a_link_that_carries_the_page_to_return_to_is_an_action() {
        let m = host(&[]);
        assert!(not_worth(&url("http://q/feedback/?next=eyJhbGci"), &m).is_some());
        assert!(not_worth(&url("http://s/accounts/in/?next=/"), &m).is_some());
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
