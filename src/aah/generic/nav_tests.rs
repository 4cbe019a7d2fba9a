//! Tests of the navigation rules judged from a URL and its host.

use super::*;
use crate::aah::generic::test_hosts::{host, url};

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
fn permalinks_offered_once_per_thread_are_learned_across_threads_after_three() {
    let threads = ["heron-1/1", "wren-2/2", "owl-3/3", "lark-4/4", "kite-5/5"];
    let last: Vec<String> = threads
        .iter()
        .map(|t| format!("http://f/t/{t}/last/"))
        .collect();
    let links: Vec<String> = threads
        .iter()
        .map(|t| format!("http://f/t/{t}/"))
        .chain(last.iter().cloned())
        .collect();
    let mut m = host(&links.iter().map(String::as_str).collect::<Vec<_>>());
    let to = url("http://f/t/heron-1/1/2/");
    assert_eq!(m.note_no_page(&url(&last[0]), Some(&to)), None);
    assert_eq!(m.note_no_page(&url(&last[1]), None), None);
    assert!(not_worth(&url(&last[3]), &m).is_none());
    assert_eq!(
        m.note_no_page(&url(&last[2]), Some(&to)),
        Some(NoPage::Answers("t/*/N/last".into()))
    );
    assert!(m.url_answers_no_page(&url(&last[4])));
    // The threads themselves are pages of another template.
    assert!(!m.url_answers_no_page(&url(&links[3])));
    // One page read under the template keeps all of it.
    let mut read = host(&links.iter().map(String::as_str).collect::<Vec<_>>());
    let page = url(&last[4]);
    read.count_read(&page, &super::super::template::Shape::of(&page));
    for u in &last[..3] {
        read.note_no_page(&url(u), None);
    }
    assert!(!read.url_answers_no_page(&url(&last[3])));
    // An item's own links that answer no page say nothing of its other pages.
    let mut one = host(&links.iter().map(String::as_str).collect::<Vec<_>>());
    for end in ["last", "new", "unread"] {
        one.note_no_page(&url(&format!("http://f/t/heron-1/1/{end}/")), None);
    }
    assert!(!one.url_answers_no_page(&url("http://f/t/heron-1/1/2/")));
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
    let mut read =
        super::super::Learning::new(host(&tags.iter().map(String::as_str).collect::<Vec<_>>()));
    let html = scraper::Html::parse_document("<html><body><p>Maps</p></body></html>");
    super::super::read(&html, &url(&tags[2]), &mut read);
    let mut pages = read.clone();
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
    // Below the root, one other action among a project's modules makes a menu; `about`
    // or `help` beside a tag does not, nor does one action word at the root.
    let modules = host(&[
        "http://r/projects/notes/activity",
        "http://r/projects/notes/search",
        "http://r/projects/notes/wiki",
        "http://r/projects/notes/boards",
        "http://r/projects/notes/news",
    ]);
    assert!(not_worth(&url("http://r/projects/notes/activity"), &modules).is_some());
    assert_eq!(
        not_worth(&url("http://r/projects/notes/wiki"), &modules),
        None
    );
    let topics = host(&[
        "http://b/topics/history",
        "http://b/topics/about",
        "http://b/topics/maps",
        "http://b/topics/rivers",
    ]);
    assert_eq!(not_worth(&url("http://b/topics/history"), &topics), None);
    // An action word added to a name offered beside it (Fossil's `/wikiedit`).
    let fossil = host(&["http://f/wiki", "http://f/wikiedit", "http://f/wikihelp"]);
    assert!(not_worth(&url("http://f/wikiedit?name=Sandbox"), &fossil).is_some());
    assert_eq!(not_worth(&url("http://f/wikihelp"), &fossil), None);
    assert_eq!(not_worth(&url("http://f/wiki"), &fossil), None);
    // Compound names: a noun added to a name, or a capital where the verb starts.
    let api = host(&[
        "http://d/Web/API/Event",
        "http://d/Web/API/EventSource",
        "http://d/Web/API/Node",
        "http://d/ref/Preference",
        "http://d/ref/PreferenceEdit",
        "http://d/ref/View",
    ]);
    assert_eq!(not_worth(&url("http://d/Web/API/EventSource"), &api), None);
    assert_eq!(not_worth(&url("http://d/ref/PreferenceEdit"), &api), None);
    let tags = host(&[
        "http://m/tags/art",
        "http://m/tags/arthistory",
        "http://m/tags/maps",
    ]);
    assert_eq!(not_worth(&url("http://m/tags/arthistory"), &tags), None);
    let research = host(&["http://u/re", "http://u/research", "http://u/maps"]);
    assert_eq!(not_worth(&url("http://u/research"), &research), None);
    // Below the root, not two places deep, or words that may name a topic: no menu.
    for page in ["about", "history"] {
        let blog = host(&[
            &format!("http://b/blog/{page}/"),
            "http://b/blog/feed/",
            "http://b/blog/contact/",
            "http://b/blog/maps/",
        ]);
        assert_eq!(
            not_worth(&url(&format!("http://b/blog/{page}/")), &blog),
            None
        );
    }
    let deep = host(&[
        "http://b/en/blog/history/",
        "http://b/en/blog/search/",
        "http://b/en/blog/maps/",
    ]);
    assert_eq!(not_worth(&url("http://b/en/blog/history/"), &deep), None);
    let docs = host(&[
        "http://g/guide/topics/profile",
        "http://g/guide/topics/search",
        "http://g/guide/topics/maps",
        "http://g/guide/topics/rivers",
    ]);
    assert_eq!(
        not_worth(&url("http://g/guide/topics/profile"), &docs),
        None
    );
    let root = host(&["http://b/History", "http://b/feed", "http://b/Maps"]);
    assert_eq!(not_worth(&url("http://b/History"), &root), None);
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
fn a_word_that_ends_each_page_s_actions_is_an_action_alone_at_the_root() {
    let pages = [
        "http://w/WikiIndex/",
        "http://w/TheHeron/",
        "http://w/TheSwift/",
        "http://w/index/",
    ];
    let mut urls = pages.to_vec();
    urls.extend(["http://w/TheHeron/history/", "http://w/TheSwift/history/"]);
    let m = host(&urls);
    assert!(not_worth(&url("http://w/history/"), &m).is_some());
    assert_eq!(not_worth(&url("http://w/index/"), &m), None);
    assert_eq!(not_worth(&url("http://w/TheLapwing/"), &m), None);
    // A blog's `/history/` page beside its posts, whose pages offer no such action.
    let blog = host(&pages);
    assert_eq!(not_worth(&url("http://w/history/"), &blog), None);
    // A tag and a category of that name are values of their templates, no action.
    let tags = host(&[
        "http://b/tag/birds/",
        "http://b/tag/rivers/",
        "http://b/tag/history/",
        "http://b/category/bread/",
        "http://b/category/walks/",
        "http://b/category/history/",
        "http://b/contact/",
        "http://b/archive/",
        "http://b/walks/",
    ]);
    assert_eq!(not_worth(&url("http://b/history/"), &tags), None);
    // Until the host's pages tell, such a word alone at the root is fetched last.
    for u in ["http://w/history/", "http://w/timeline"] {
        assert!(looks_like_an_action(&url(u)), "{u}");
    }
    for u in [
        "http://w/about/",
        "http://w/History/",
        "http://w/index/",
        "http://w/blog/history/",
        "http://w/feed.xml",
    ] {
        assert!(!looks_like_an_action(&url(u)), "{u}");
    }
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
fn an_action_word_marked_as_an_action_is_one_among_many_names() {
    // MoinMoin's root holds the wiki's names and its marked actions side by side.
    let m = host(&[
        "http://w/Birds",
        "http://w/Rivers",
        "http://w/Bread",
        "http://w/Home",
        "http://w/+login",
        "http://w/+history",
    ]);
    for u in [
        "http://w/+login",
        "http://w/+history",
        "http://w/help-en/+history",
    ] {
        assert!(not_worth(&url(u), &m).is_some(), "{u}");
    }
    // Unmarked, the word is one name among the others: a page named "History"; after `@`, a
    // handle.
    for u in ["http://w/history", "http://w/@admin"] {
        assert_eq!(not_worth(&url(u), &m), None, "{u}");
    }
    assert_eq!(not_worth(&url("http://w/Birds"), &m), None);
}

#[test]
fn a_commit_s_hash_after_a_page_s_path_is_an_old_revision_and_compare_is_a_diff() {
    let m = host(&[
        "http://j/wiki/Heron",
        "http://j/wiki/Wren",
        "http://j/wiki/Swift",
        "http://j/releases/2024",
        "http://j/posts",
        "http://j/blog/posts",
    ]);
    for u in [
        "http://j/wiki/Heron/9ff8e39",
        "http://j/wiki/Heron/d4df3dc0a1b2c3d4e5f60718293a4b5c6d7e8f90",
        "http://j/wiki/Heron/compare/f65a32c..d4df3dc",
    ] {
        assert!(not_worth(&url(u), &m).is_some(), "{u}");
    }
    for u in [
        // Not after a page the host has; a number or a word is a name, not a hash.
        "http://j/wiki/Owl/9ff8e39",
        "http://j/releases/2024/1234567",
        "http://j/wiki/Heron/accede",
        "http://j/wiki/Heron/defaced",
        "http://j/wiki/Heron/9FF8E39",
        // After a section, not a page among many: a database id, a month.
        "http://j/posts/5f8d0d55b54764421b7156c1",
        "http://j/blog/posts/5f8d0d55b54764421b7156c1",
        "http://j/releases/dec2023",
    ] {
        assert_eq!(not_worth(&url(u), &m), None, "{u}");
    }
}
