//! Navigation on a host of an unknown application: links that lead to nothing worth archiving
//! (edit and history views, diffs and old revisions, timelines and calendars, login,
//! registration and search, feeds and other renderings of a page) are skipped, from the fixed
//! words of their URL template. A word counts only in a *fixed* part of the template, never in
//! a variable one, so `/tag/history/` on a host with many tags, or a wiki article named
//! "RecentChanges" among many articles, is followed; unless the value follows several
//! different prefixes (`/Birds/Heron/history`, `/Birds/Wren/history`): then it is an action
//! offered on every page. The templates are those of the host's pages and of the links found
//! on them. What the page a link is on says about it is in `views`.

use url::Url;

use super::super::kb::Category;
use super::host::HostModel;
#[cfg(test)]
use super::host::NoPage;
use super::template::{Shape, MARKS};

/// Words of a fixed path segment that lead to views, actions and renderings, not content.
const PATH_WORDS: &[&str] = &[
    "history",
    "changelog",
    "revision",
    "revisions",
    "diff",
    "compare",
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
    "activity",
    "calendar",
    "gantt",
    "random",
    "upload",
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
    "subscription",
    "subscriptions",
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

/// Words of [`PATH_WORDS`] that, alone at a host's root and written in lower case (`/login`,
/// `/search.html`), name its account or search form whatever the menu beside them: an
/// application puts its forms there, and a page named so lives under a folder (`/docs/login`,
/// judged by the rules above) or is capitalised (a wiki's `/Search` article). On the 39
/// recordings every such URL is one the truth calls not worth a fetch (13 of them).
const ROOT_ACTIONS: &[&str] = &["login", "logout", "signin", "signup", "register", "search"];

/// Extensions of a page a script or a template writes (`/login.php`, `/search.html`): a
/// document (`/register.pdf`) is no form.
const SCRIPT_EXTENSIONS: &[&str] = &["html", "htm", "php", "asp", "aspx", "jsp", "cgi", "pl"];

/// Words of [`PATH_WORDS`] that name content as often as a view: a blog's `/about/` is a page
/// of its own, Trac's `/about` and An Otter Wiki's `/-/about` sit in a menu beside `/login`
/// and `/prefs`. They count only in such a menu.
const MENU_ONLY: &[&str] = &["about", "help"];

/// Words of [`PATH_WORDS`] that name the application's own screens, hardly a topic: two of them
/// side by side below the root make a menu (Redmine's `/projects/P/activity` beside
/// `/projects/P/search`, `/issues/gantt` beside `/issues/calendar`), where `history`, `about`
/// or `feed` may be a post, an article or a tag (`/blog/history/` beside `/blog/feed/`).
const INTERFACE_WORDS: &[&str] = &[
    "search",
    "activity",
    "timeline",
    "calendar",
    "gantt",
    "login",
    "logout",
    "signin",
    "signup",
    "register",
    "settings",
    "preferences",
    "prefs",
    "recentchanges",
    "lostpassword",
];

/// Whether place `i` is a menu of actions and `value` one of them: the value is a word of
/// [`PATH_WORDS`] and two or more other values offered there are actions too (`/login`,
/// `/prefs`, `/timeline` beside `/wiki` and `/ticket`; `/-/login` beside `/-/changelog`;
/// FlaskBB's `/auth/login` beside `/auth/register` and `/auth/reset-password`), or, below
/// the root, the value and one other are [`INTERFACE_WORDS`] (Redmine's
/// `/projects/P/activity` beside `/projects/P/search`, among the project's modules), or the value
/// joins an action word to others and two other values are action words
/// (`/auth/reset-password` beside `/auth/login` and `/auth/register`), not at the host's root,
/// where a blog's posts sit beside `/about/` and `/feed/` (`/how-to-edit-photos/`), and with
/// `about` and `help` beside it counting for nothing, since they name pages as often. A tag or
/// an article that happens to be called "History" sits among names, not actions.
fn action_menu(shapes: &super::template::Shapes, shape: &Shape, i: usize, value: &str) -> bool {
    let joined_value = joins_an_action(value);
    if !(PATH_WORDS.contains(&value) || joined_value && i >= 1) {
        return false;
    }
    let (mut words, mut interface, mut joined) = (0, 0, 0);
    for v in shapes.siblings(shape, i) {
        let v = v.to_ascii_lowercase();
        if v == value || (joined_value && MENU_ONLY.contains(&v.as_str())) {
            continue;
        }
        if PATH_WORDS.contains(&v.as_str()) {
            words += 1;
            interface += usize::from(INTERFACE_WORDS.contains(&v.as_str()));
        } else if joins_an_action(&v) {
            joined += 1;
        }
    }
    if joined_value {
        // A slug beside one action word and another slug is no action.
        words >= 2
    } else {
        words >= 1 && words + joined >= 2
            || i >= 1 && interface >= 1 && INTERFACE_WORDS.contains(&value)
    }
}

/// Whether a value offered beside others is words joined by `-` or `_`, one of which names an
/// action (`reset-password`, `edit_profile`); not a word of [`MENU_ONLY`], which names content
/// as often (`about-us`, MoinMoin's help namespace `help-en`). Such a value counts only beside
/// an action named by one word: a slug (`open-source`, `river-history`) reads the same, and a
/// list of tags is where slugs are. A marked value (`_search` beside Gitit's `/About`) is left
/// as it is: what its mark sets apart is judged elsewhere, and the names beside it stay names.
fn joins_an_action(v: &str) -> bool {
    let mut words = v.split(['-', '_']);
    v.contains(['-', '_'])
        && words.clone().all(|w| !w.is_empty())
        && words.any(|w| PATH_WORDS.contains(&w) && !MENU_ONLY.contains(&w))
}

/// Verbs that name an action when added to a name (`wikiedit`): ones that rarely end a
/// compound noun, unlike `source` (`EventSource`), `history` (`arthistory`) or `feed`
/// (`newsfeed`).
const SUFFIX_VERBS: &[&str] = &[
    "edit",
    "diff",
    "blame",
    "revert",
    "delete",
    "rename",
    "upload",
    "login",
    "logout",
    "signin",
    "signup",
    "subscribe",
    "unsubscribe",
    "publish",
];

/// The verb `seg` adds to another value offered at place `i`, if it does: `wikiedit` beside
/// `wiki` (Fossil's wiki editor) names an action after what it acts on. The name has three
/// letters or more, and a capital where the verb starts makes one name of both (a reference's
/// `PreferenceEdit` beside `Preference`).
fn suffixed_action(
    shapes: &super::template::Shapes,
    shape: &Shape,
    i: usize,
    seg: &str,
) -> Option<&'static str> {
    let stem = stem(seg);
    let lower = stem.to_ascii_lowercase();
    let word = SUFFIX_VERBS.iter().copied().find(|w| {
        lower.strip_suffix(w).is_some_and(|name| {
            name.len() >= 3 && !stem.as_bytes()[name.len()].is_ascii_uppercase()
        })
    })?;
    let name = &lower[..lower.len() - word.len()];
    shapes
        .siblings(shape, i)
        .iter()
        .any(|v| v.eq_ignore_ascii_case(name))
        .then_some(word)
}

/// Whether a segment begins or ends with an action word of four letters or more, other than
/// `about` and `help` (`whistory`, `printthread`, `show_activity`): a path that names a view.
pub(super) fn names_a_view(seg: &str) -> bool {
    let lower = seg.split('.').next().unwrap_or("").to_ascii_lowercase();
    PATH_WORDS.iter().any(|w| {
        w.len() >= 4
            && !MENU_ONLY.contains(w)
            && lower.len() > w.len()
            && (lower.starts_with(w) || lower.ends_with(w))
    })
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
pub(super) fn literal(template: &str, i: usize, seg: &str) -> String {
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

/// A path segment's word: before any extension, without the marks that set actions apart
/// from names (`_history`, `@edit`, `+meta`) or a user's folder (`~edit`).
fn stem(seg: &str) -> &str {
    seg.split('.')
        .next()
        .unwrap_or("")
        .trim_start_matches(|c| MARKS.contains(&c) || c == '~')
}

/// Extensions of other renderings of a page (feeds, plain text, source, data).
const EXTENSIONS: &[&str] = &["xml", "atom", "rss", "txt", "md", "json"];

/// Why a link of a page of this host leads to nothing worth archiving, if it does; with the
/// URL template the decision is made on.
pub fn not_worth(url: &Url, host: &HostModel) -> Option<(String, String)> {
    learned_place(url, host)
        .or_else(|| learned_display(url, host))
        .or_else(|| learned_person(url, host))
        .or_else(|| by_url(url, host))
}

/// A URL of a template a forum's pages linked as its members' (see `views::PERSON`), on a
/// host read as a forum.
pub(super) fn learned_person(url: &Url, host: &HostModel) -> Option<(String, String)> {
    if host.category() != Some(Category::Forum) {
        return None;
    }
    let template = host.nav_shapes().template(&Shape::of(url));
    host.is_person(&template)
        .then(|| (template, "a member's page, as URLs like it were".into()))
}

/// A URL of a template the host's pages showed as places in other pages (see
/// `views::place_in`).
pub(super) fn learned_place(url: &Url, host: &HostModel) -> Option<(String, String)> {
    let template = host.nav_shapes().template(&Shape::of(url));
    (host.is_place(&template) && super::views::place_in(url).is_some())
        .then(|| (template, "a place in a page, as URLs like it were".into()))
}

/// A URL whose path and query keys the host's pages showed as other displays of themselves,
/// with a query that names a page (see `views::page_views`).
pub(super) fn learned_display(url: &Url, host: &HostModel) -> Option<(String, String)> {
    let key = super::views::display_key(url)?;
    host.is_display(&key).then(|| {
        (
            key,
            "another display of a page, as URLs like it were".into(),
        )
    })
}

/// [`not_worth`] but for learned places.
pub(super) fn by_url(url: &Url, host: &HostModel) -> Option<(String, String)> {
    let shape = Shape::of(url);
    let shapes = host.nav_shapes();
    let template = shapes.template(&shape);
    if host.answers_no_page(&shape) {
        return Some((
            template,
            "its URLs answer redirects or errors, no page".into(),
        ));
    }
    let path = url.path().trim_matches('/');
    let (root_word, ext) = path.split_once('.').unwrap_or((path, ""));
    if !path.contains('/')
        && ROOT_ACTIONS.contains(&root_word)
        && (ext.is_empty() || SCRIPT_EXTENSIONS.contains(&ext))
    {
        return Some((
            literal(&template, 0, path),
            format!("{root_word:?} at the host's root: a form"),
        ));
    }
    // `/history/` where `/TheHeron/history/` and `/TheSwift/history/` are each page's history:
    // the word the host's pages end their actions with is, alone at the root, the same action
    // over the whole site (django-wakawaka's recent revisions). A wiki's article named so is
    // capitalised; a blog's `/history/` page is no action of its other pages.
    if looks_like_an_action(url) && shapes.ends_many(path) {
        return Some((
            literal(&template, 0, path),
            format!("{path:?} at the root, as after each page: the site's own"),
        ));
    }
    let fixed = template.split('?').next().unwrap_or("").split('/');
    let segments = path.split('/');
    for (i, (t, seg)) in fixed.zip(segments).enumerate() {
        let lower = seg.to_ascii_lowercase();
        // A rendering is one whatever the place: no page is named `index.md`.
        if let Some((_, ext)) = lower.rsplit_once('.') {
            if EXTENSIONS.contains(&ext) {
                return Some((template, format!("a .{ext} rendering")));
            }
        }
        // `_history`, `@edit`: a prefix that sets actions apart from names.
        let stem = stem(&lower);
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
        if i == 0 && lower.starts_with(MARKS) && shapes.has_tail_of(&shape) {
            return Some((
                literal(&template, i, seg),
                format!("{seg:?} before a page's path: a view of it"),
            ));
        }
        // `_dir` after `/birds/heron/` and `/rivers/weir/`: a marked segment (`_`, `@`, `+`)
        // offered after many pages is an action of each, whatever its word (django-wiki).
        if lower.starts_with(MARKS)
            && i + 1 == url.path().trim_matches('/').split('/').count()
            && i >= 1
            && shapes.repeats(&shape, i)
        {
            return Some((
                literal(&template, i, seg),
                format!("{seg:?} after every page: an action"),
            ));
        }
        if let Some(word) = suffixed_action(shapes, &shape, i, seg) {
            return Some((
                literal(&template, i, seg),
                format!("{word:?} added to a name offered beside it"),
            ));
        }
        // A last segment marked `+` or `_` names an action wherever it is (MoinMoin's
        // `/+login`, `/+history` at the root among the wiki's names): no page is named so.
        // Before other segments it may open a path of pages (Launchpad's `/+source/bash`),
        // and `@` opens a handle (`/@admin`).
        let marked = lower.starts_with(['+', '_'])
            && i + 1 == url.path().trim_matches('/').split('/').count();
        if t == "*"
            && !marked
            && !shapes.repeats(&shape, i)
            && !action_menu(shapes, &shape, i, stem)
        {
            continue;
        }
        // The whole segment, not a word inside it: slugs are sentences ("help-identifying-a-wren").
        if PATH_WORDS.contains(&stem)
            && (!MENU_ONLY.contains(&stem) || action_menu(shapes, &shape, i, stem))
        {
            return Some((literal(&template, i, seg), format!("{stem:?} in the path")));
        }
        if joins_an_action(stem) && action_menu(shapes, &shape, i, stem) {
            return Some((
                literal(&template, i, seg),
                format!("{stem:?} in a menu of actions"),
            ));
        }
    }
    // `/wiki/Heron/9ff8e39` beside `/wiki/Heron`: a commit's hash after a page's path is
    // that page at an old revision (Jingo's, a Git-backed wiki's). The page is one of many
    // under a section (`/wiki/*`): after a section itself (`/posts/5f8d0d55b547…`, a
    // database id; `/archive/dec2023`) such a segment names an item. One rule for all hashes.
    let last = path.rsplit('/').next().unwrap_or("");
    if is_a_commit_hash(last) && shapes.has_page_as_head_of(&shape) {
        return Some((
            literal(&template, shape.places() - 1, "<commit>"),
            "a commit's hash after a page's path: an old revision".into(),
        ));
    }
    for (k, _) in url.query_pairs() {
        let k = k.to_ascii_lowercase();
        if QUERY_KEYS.contains(&k.as_str()) {
            return Some((template, format!("the query key {k:?}")));
        }
    }
    None
}

/// Whether `url` is a word of [`PATH_WORDS`] alone at its host's root, in lower case and
/// without an extension (`/history/`, `/timeline`): an action of the site more often than a
/// page, fetched last until the host's pages tell (`by_url`: the word ends many pages' paths,
/// or sits in a menu of actions).
pub fn looks_like_an_action(url: &Url) -> bool {
    let path = url.path().trim_matches('/');
    !path.is_empty()
        && !path.contains(['/', '.'])
        && PATH_WORDS.contains(&path)
        && !MENU_ONLY.contains(&path)
}

/// Whether a path segment is an abbreviated or full commit hash: 7 to 40 lowercase hex digits,
/// with a letter and a digit among them (a number or a word is a name).
fn is_a_commit_hash(seg: &str) -> bool {
    (7..=40).contains(&seg.len())
        && seg.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && seg.bytes().any(|b| b.is_ascii_digit())
        && seg.bytes().any(|b| b.is_ascii_lowercase())
}

#[cfg(test)]
#[path = "nav_tests.rs"]
mod tests;
