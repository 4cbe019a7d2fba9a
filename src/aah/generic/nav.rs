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

/// Whether place `i` is a menu of actions and `value` one of them: the value is a word of
/// [`PATH_WORDS`] and two or more other values offered there are actions too (`/login`,
/// `/prefs`, `/timeline` beside `/wiki` and `/ticket`; `/-/login` beside `/-/changelog`;
/// FlaskBB's `/auth/login` beside `/auth/register` and `/auth/reset-password`), or the value
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
    let (mut words, mut joined) = (0, 0);
    for v in shapes.siblings(shape, i) {
        let v = v.to_ascii_lowercase();
        if v == value || (joined_value && MENU_ONLY.contains(&v.as_str())) {
            continue;
        }
        if PATH_WORDS.contains(&v.as_str()) {
            words += 1;
        } else if joins_an_action(&v) {
            joined += 1;
        }
    }
    if joined_value {
        // A slug beside one action word and another slug is no action.
        words >= 2
    } else {
        words >= 1 && words + joined >= 2
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

/// Extensions of other renderings of a page (feeds, plain text, source, data).
const EXTENSIONS: &[&str] = &["xml", "atom", "rss", "txt", "md", "json"];

/// Why a link of a page of this host leads to nothing worth archiving, if it does; with the
/// URL template the decision is made on.
pub fn not_worth(url: &Url, host: &HostModel) -> Option<(String, String)> {
    learned_place(url, host).or_else(|| by_url(url, host))
}

/// A URL of a template the host's pages showed as places in other pages (see
/// `views::place_in`).
pub(super) fn learned_place(url: &Url, host: &HostModel) -> Option<(String, String)> {
    let template = host.nav_shapes().template(&Shape::of(url));
    (host.is_place(&template) && super::views::place_in(url).is_some())
        .then(|| (template, "a place in a page, as URLs like it were".into()))
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
        if t == "*" && !shapes.repeats(&shape, i) && !action_menu(shapes, &shape, i, stem) {
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
    for (k, _) in url.query_pairs() {
        let k = k.to_ascii_lowercase();
        if QUERY_KEYS.contains(&k.as_str()) {
            return Some((template, format!("the query key {k:?}")));
        }
    }
    None
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
    fn an_account_or_search_form_at_the_root_is_not_worth_a_fetch_whatever_its_menu() {
        let m = host(&["http://r/projects", "http://r/news", "http://r/login"]);
        for u in [
            "http://r/login",
            "http://r/search",
            "http://r/search.html",
            "http://r/login.php",
        ] {
            assert!(not_worth(&url(u), &m).is_some(), "{u}");
        }
        for u in [
            "http://r/projects",
            "http://r/searching",
            "http://r/Search",
            "http://r/register.pdf",
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
        let topic = url("http://f/topic/7-heron");
        assert_eq!(m.note_no_page(&url("http://f/post/1"), Some(&topic)), None);
        assert_eq!(not_worth(&url("http://f/post/3"), &m), None);
        // The answer that teaches the template names it, once.
        assert_eq!(
            m.note_no_page(&url("http://f/post/2"), None),
            Some(NoPage::Answers("post/N".into()))
        );
        assert!(not_worth(&url("http://f/post/3"), &m).is_some());
        assert!(m.url_answers_no_page(&url("http://f/post/3")));
        assert_eq!(m.note_no_page(&url("http://f/post/3"), None), None);
    }

    #[test]
    fn folders_that_redirect_to_their_slash_are_queued_with_it_after_two() {
        let tags = ["birds", "bread", "maps", "rivers"].map(|t| format!("http://b/tags/{t}"));
        let mut m = host(&tags.iter().map(String::as_str).collect::<Vec<_>>());
        let slashed = |u: &str| url(&format!("{u}/"));
        assert_eq!(
            m.note_no_page(&url(&tags[0]), Some(&slashed(&tags[0]))),
            None
        );
        assert_eq!(m.with_slash(&url(&tags[2])), None);
        assert_eq!(
            m.note_no_page(&url(&tags[1]), Some(&slashed(&tags[1]))),
            Some(NoPage::AddsSlash("tags/*".into()))
        );
        assert_eq!(m.with_slash(&url(&tags[3])), Some(slashed(&tags[3])));
        // They are pages, under their own URL: not skipped.
        assert!(!m.url_answers_no_page(&url(&tags[3])));
        assert_eq!(not_worth(&url(&tags[3]), &m), None);
        // A file, a query or another template keeps its URL.
        for u in [
            "http://b/tags/birds.html",
            "http://b/tags/birds?x=1",
            "http://b/about",
        ] {
            assert_eq!(m.with_slash(&url(u)), None, "{u}");
        }
        // A redirect elsewhere is no slash added.
        let other = url("http://b/tags/birds/page/2/");
        assert_eq!(m.note_no_page(&url("http://b/tags/x"), Some(&other)), None);
        // An escape in another case is the same URL.
        let mut esc = host(&["http://b/tags/caf%C3%A9", "http://b/tags/caf%C3%A8"]);
        let lower = url("http://b/tags/caf%c3%a9/");
        esc.note_no_page(&url("http://b/tags/caf%C3%A9"), Some(&lower));
        let lower = url("http://b/tags/caf%c3%a8/");
        let taught = esc.note_no_page(&url("http://b/tags/caf%C3%A8"), Some(&lower));
        assert!(matches!(taught, Some(NoPage::AddsSlash(_))), "{taught:?}");
        // A template whose slashless URLs were pages too keeps them as they are.
        let mut pages = host(&tags.iter().map(String::as_str).collect::<Vec<_>>());
        let html = scraper::Html::parse_document("<html><body><p>Maps</p></body></html>");
        super::super::read(&html, &url(&tags[2]), &mut pages);
        for t in &tags[..2] {
            pages.note_no_page(&url(t), Some(&slashed(t)));
        }
        assert_eq!(pages.with_slash(&url(&tags[3])), None);
        // A slashed URL that answers an error unlearns the rule.
        assert!(m.with_slash(&url(&tags[3])).is_some());
        m.note_no_page(&slashed(&tags[2]), None);
        assert_eq!(m.with_slash(&url(&tags[3])), None);
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
        // Actions joined to other words count beside it; alone they are names.
        let auth = host(&[
            "http://f/auth/login",
            "http://f/auth/register",
            "http://f/auth/reset-password",
            "http://f/auth/activate",
        ]);
        assert!(not_worth(&url("http://f/auth/login"), &auth).is_some());
        assert!(not_worth(&url("http://f/auth/reset-password"), &auth).is_some());
        assert_eq!(not_worth(&url("http://f/auth/activate"), &auth), None);
        let tags = host(&[
            "http://b/tags/history",
            "http://b/tags/river-history",
            "http://b/tags/bread",
            "http://b/tags/maps",
        ]);
        assert_eq!(not_worth(&url("http://b/tags/history"), &tags), None);
        let slugs = host(&[
            "http://b/tags/history",
            "http://b/tags/open-source",
            "http://b/tags/view-source",
            "http://b/tags/maps",
        ]);
        assert_eq!(not_worth(&url("http://b/tags/history"), &slugs), None);
        assert_eq!(not_worth(&url("http://b/tags/open-source"), &slugs), None);
        let blog = host(&[
            "http://b/about/",
            "http://b/feed/",
            "http://b/search/",
            "http://b/how-to-edit-photos/",
            "http://b/sub/login",
            "http://b/sub/about",
            "http://b/sub/help",
            "http://b/sub/reset-password",
        ]);
        assert_eq!(not_worth(&url("http://b/how-to-edit-photos/"), &blog), None);
        assert_eq!(not_worth(&url("http://b/sub/reset-password"), &blog), None);
        let moin = host(&[
            "http://m/help-en",
            "http://m/users",
            "http://m/login",
            "http://m/Home",
        ]);
        assert_eq!(not_worth(&url("http://m/help-en"), &moin), None);
        let marked = host(&[
            "http://g/About",
            "http://g/Heron",
            "http://g/_search",
            "http://g/_upload",
            "http://g/_activity",
        ]);
        assert_eq!(not_worth(&url("http://g/About"), &marked), None);
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
}
