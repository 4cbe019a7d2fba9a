//! Tests of the views a link can be of the page it is on.

use super::*;
use crate::aah::generic::not_worth;
use crate::aah::generic::test_hosts::{host, url};

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
fn an_item_under_its_bare_number_beside_its_slugged_url_is_a_second_url_of_it() {
    let m = host(&[]);
    let list = "http://f/forum/1-birds";
    let topic = "http://f/topic/2-wren-photos-2";
    for u in ["http://f/topic/2?page=2", "http://f/topic/2"] {
        assert!(on(u, list, &[topic], &m).is_some(), "{u}");
    }
    // Another number, no slug beside it, or a number that is a year in a slug of words.
    assert_eq!(on("http://f/topic/3?page=2", list, &[topic], &m), None);
    assert_eq!(on("http://f/topic/2", list, &[], &m), None);
    assert_eq!(
        on(
            "http://b/archive/2023",
            "http://b/",
            &["http://b/archive/2023-04"],
            &m
        ),
        None
    );
    let election = ["http://b/tag/2024-election"];
    assert_eq!(on("http://b/tag/2024", "http://b/", &election, &m), None);
}

#[test]
fn a_url_with_a_final_slash_beside_the_same_url_without_looks_like_a_copy() {
    let linked = |l: &[&str]| -> HashSet<String> { l.iter().map(|u| url(u).to_string()).collect() };
    let list = url("http://d/Birds");
    let thread = "http://d/Birds/5/help-identifying-a-wren-5";
    let slashed = url(&format!("{thread}/"));
    assert!(looks_like_a_slashed_copy(
        &slashed,
        &list,
        &linked(&[thread])
    ));
    assert!(looks_like_a_slashed_copy(
        &slashed,
        &url(thread),
        &linked(&[])
    ));
    // Alone, the slashed URL may be the only way to the page; the root is no variant; neither
    // judges it not worth a fetch (Gitit's folder `/Birds/` is a list beside its page).
    assert!(!looks_like_a_slashed_copy(&slashed, &list, &linked(&[])));
    assert!(!looks_like_a_slashed_copy(
        &url("http://d/"),
        &list,
        &linked(&["http://d"])
    ));
    let m = host(&[]);
    assert_eq!(on(slashed.as_str(), list.as_str(), &[thread], &m), None);
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
    // A one-letter key names an item by a number, and picks a view with a word.
    let thread = "http://f/forumpost/9187fc3a55";
    assert_eq!(
        on("http://f/viewtopic?t=5", "http://f/viewtopic", &[], &m),
        None
    );
    assert!(on(&format!("{thread}?t=c"), thread, &[], &m).is_some());
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
    let (template, why) = on("http://f/topic/2/lapwing/3", "http://f/c/1", &[topic], &m).unwrap();
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
    let views = page_views(&html, &page, &host(&[]));
    assert_eq!(
        views,
        HashMap::from([("http://f/recent?cid=1".to_string(), IN_MENU)])
    );
}

#[test]
fn links_labelled_permalink_or_source_are_views_unless_one_link_names_them_otherwise() {
    let page = url("http://f/forumpost/9187fc3a55");
    let html = scraper::Html::parse_document(
        r#"<h3>By Alice <a href="/forumpost/81a2bf4d79f">[link]</a>
        <a href="/forumpost/81a2bf4d79f?raw">[source]</a></h3>
        <p><a href="/post/7">Permalink</a> <a href="/post/7">Heron at dusk</a>
        <a href="http://elsewhere/x">link</a> <a href="/wiki/Link">Link farm</a></p>"#,
    );
    let m = host(&[
        "http://f/forumpost/9187fc3a55",
        "http://f/forumpost/adac4e8e65",
        "http://f/forumpost/d7ca71dbd7",
    ]);
    let views = page_views(&html, &page, &m);
    let mut got: Vec<&str> = views.keys().map(String::as_str).collect();
    got.sort();
    assert_eq!(
        got,
        [
            "http://f/forumpost/81a2bf4d79f",
            "http://f/forumpost/81a2bf4d79f?raw"
        ]
    );
    assert!(views.values().all(|&why| why == LABELLED));
    // A list whose posts are linked by "Permalink" alone links its terminal pages so.
    let list = url("http://m/");
    let html = scraper::Html::parse_document(
        r#"<p>Herons at dusk <a href="/posts/7">Permalink</a></p>
        <p>Wrens <a href="/posts/8">Permalink</a> <a href="/posts/8.md">source</a></p>"#,
    );
    let views = page_views(&html, &list, &host(&[]));
    assert_eq!(
        views,
        HashMap::from([("http://m/posts/8.md".to_string(), LABELLED)])
    );
    // Posts at the root share the root's template: the root is a list all the same.
    let notes = host(&["http://w/heron-at-dusk", "http://w/wren", "http://w/weir"]);
    let html = scraper::Html::parse_document(r#"<p>Herons <a href="/heron-at-dusk">Permalink</a>"#);
    assert!(page_views(&html, &url("http://w/"), &notes).is_empty());
}

#[test]
fn a_post_numbered_alone_is_a_view_unless_it_only_turns_the_page() {
    let m = host(&[
        "http://f/forumpost/9187fc3a55",
        "http://f/forumpost/adac4e8e65",
        "http://f/forumpost/d7ca71dbd7",
        "http://f/blog/page/3",
    ]);
    let thread = url("http://f/forumpost/9187fc3a55");
    let html = scraper::Html::parse_document(
        r#"<h3>in reply to <a href="/forumpost/81a2bf4d79">1</a></h3>
        <a href="/forum">2</a> <a href="/forumpost/c843a2a7bc">3</a>
        <a href="/forumpost/c843a2a7bc">A weir</a>"#,
    );
    let views = page_views(&html, &thread, &m);
    assert_eq!(
        views,
        HashMap::from([("http://f/forumpost/81a2bf4d79".to_string(), NUMBERED)])
    );
    // A pager: the same URLs but for numbers.
    let list = url("http://f/blog/page/3");
    let html = scraper::Html::parse_document(
        r#"<a href="/blog/page/2">2</a> <a href="/blog/page/4">4</a>"#,
    );
    assert!(page_views(&html, &list, &m).is_empty());
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

#[test]
fn the_page_with_a_letter_added_is_another_display_of_it_unless_it_is_an_index_by_initial() {
    let page = url("http://l/notes/m1@example.test/");
    let html = scraper::Html::parse_document(
        r#"<a href="T/#u">flat</a> <a href="t/#u">nested</a> <a href="raw">raw</a>
        <a href="../m2@example.test/">next</a>"#,
    );
    // The list of threads showed the letters after several messages.
    let inbox = host(&[
        "http://l/notes/m1@example.test/T/",
        "http://l/notes/m3@example.test/T/",
        "http://l/notes/m5@example.test/t/",
    ]);
    let alone = page_views(&html, &page, &host(&[]));
    assert!(
        !alone.values().any(|&w| w == LETTERED),
        "no letter seen twice"
    );
    let views = page_views(&html, &page, &inbox);
    assert_eq!(
        views.get("http://l/notes/m1@example.test/T/"),
        Some(&LETTERED)
    );
    assert_eq!(
        views.get("http://l/notes/m1@example.test/t/"),
        Some(&LETTERED)
    );
    assert_eq!(views.get("http://l/notes/m2@example.test/"), None);
    // The thread view links each message and its displays; the list of threads, a thread view
    // of each thread alone.
    let thread = url("http://l/notes/m2@example.test/T/");
    let html = scraper::Html::parse_document(
        r#"<a href="../../m1@example.test/">permalink</a> <a href="../../m1@example.test/T/">
        </a> <a href="../../m1@example.test/t/">nested</a>"#,
    );
    let views = page_views(&html, &thread, &inbox);
    assert_eq!(views.len(), 2, "{views:?}");
    assert!(views
        .keys()
        .all(|k| k.starts_with("http://l/notes/m1@example.test/")));
    let list = url("http://l/notes/");
    let html = scraper::Html::parse_document(
        r#"<a href="m1@example.test/T/#t">Herons</a> <a href="m3@example.test/T/#u">Weirs</a>"#,
    );
    assert!(page_views(&html, &list, &inbox).is_empty());
    // Tags named by a letter sit under one folder: names, not displays.
    let tags = host(&[
        "http://t/tags/c/",
        "http://t/tags/r/",
        "http://t/tags/rust/",
    ]);
    let post = url("http://t/posts/pointers/");
    let html = scraper::Html::parse_document(
        r#"<a href="/tags/">Tags</a> <a href="/tags/c/">c</a> <a href="/tags/r/">r</a>"#,
    );
    assert!(page_views(&html, &post, &tags).is_empty());
    let glossary = url("http://g/glossary/");
    let html = scraper::Html::parse_document(
        r#"<a href="a/">A</a> <a href="b/">B</a> <a href="c/">C</a>"#,
    );
    assert!(page_views(&html, &glossary, &host(&[])).is_empty());
    let root = url("http://i/");
    let html = scraper::Html::parse_document(r#"<a href="/b/">random</a>"#);
    assert!(page_views(&html, &root, &host(&[])).is_empty());
}

#[test]
fn the_page_s_own_query_under_another_path_is_another_display_unless_many_links_carry_it() {
    let m = host(&[]);
    let page = url("http://f/wiki?name=Birds");
    let html = scraper::Html::parse_document(
        r#"<a href="/whistory?name=Birds">History</a> <a href="/wiki?name=Heron">Heron</a>
        <a href="/wiki">Wiki</a>"#,
    );
    assert_eq!(
        page_views(&html, &page, &m),
        HashMap::from([("http://f/whistory?name=Birds".to_string(), REQUERIED)])
    );
    // A query every module of a project carries is its context: each module is a page.
    let overview = url("http://f/overview?project_id=5");
    let html = scraper::Html::parse_document(
        r#"<a href="/issues?project_id=5">Issues</a> <a href="/wiki?project_id=5">Wiki</a>
        <a href="/news?project_id=5">News</a>"#,
    );
    assert!(page_views(&html, &overview, &m).is_empty());
    // A path that names no view shares the query by chance (a topic and its forum, both 1).
    let topic = url("http://f/viewtopic.php?id=1");
    let html = scraper::Html::parse_document(r#"<a href="/viewforum.php?id=1">Birds</a>"#);
    assert!(page_views(&html, &topic, &m).is_empty());
    // A query that names nothing (a language) is no page's name.
    let about = url("http://f/about?lang=en");
    let html = scraper::Html::parse_document(r#"<a href="/contact?lang=en">Contact</a>"#);
    assert!(page_views(&html, &about, &m).is_empty());
}

#[test]
fn a_template_two_pages_showed_as_other_displays_is_skipped_on_the_whole_host() {
    // Many values at the root: `/wiki?name=` and `/whistory?name=` share a template.
    let mut m = host(&[
        "http://f/wiki?name=Birds",
        "http://f/whistory?name=Birds",
        "http://f/forum",
        "http://f/timeline",
    ]);
    let history = url("http://f/whistory?name=Arch");
    let key = display_key(&history).unwrap();
    m.learn_display(&key);
    assert_eq!(on(history.as_str(), "http://f/wcontent", &[], &m), None);
    m.learn_display(&key);
    assert!(on(history.as_str(), "http://f/wcontent", &[], &m).is_some());
    assert!(not_worth(&history, &m).is_some());
    // The article itself, and the path without a query that names a page, are no display.
    assert_eq!(not_worth(&url("http://f/wiki?name=Arch"), &m), None);
    assert_eq!(not_worth(&url("http://f/whistory"), &m), None);
}

/// A host model whose pages read as category `c`, that has seen links to `urls`.
fn read_as(c: crate::aah::kb::Category, urls: &[&str]) -> HostModel {
    use crate::aah::kb::Category;
    let mut m = host(urls);
    let mut evidence = [0; 6];
    evidence[Category::ALL.iter().position(|x| *x == c).unwrap()] = 4;
    for i in 0..super::super::MIN_PAGES {
        let u = url(&format!("http://f/t/topic-{i}/{i}/"));
        m.observe(
            &u,
            None,
            &HashSet::new(),
            &HashSet::new(),
            &evidence,
            Shape::of(&u),
        );
    }
    m
}

#[test]
fn a_forum_member_linked_by_an_avatar_or_as_an_author_is_skipped_and_a_blog_author_followed() {
    use crate::aah::kb::Category;
    let html = scraper::Html::parse_document(
        r#"<li class="post"><a href="/u/alice/1/"><img class="poster-avatar" src="/a.png"></a>
        <a class="item-title" href="/u/alice/1/"><span itemprop="author">alice</span></a>
        <p>Seen at dusk, ask <a href="/u/bruno/2/">bruno</a>.</p></li>
        <p>By <a rel="author" href="/author/dmitri/">Dmitri</a></p>"#,
    );
    let page = url("http://f/t/heron-3/3/");
    let members = [
        "http://f/u/alice/1/",
        "http://f/u/bruno/2/",
        "http://f/u/chiara/3/",
    ];
    let mut forum = read_as(Category::Forum, &members);
    let views = page_views(&html, &page, &forum);
    let mut got: Vec<&str> = views.keys().map(String::as_str).collect();
    got.sort();
    // A plain link in a post's text is no avatar and no author.
    assert_eq!(got, ["http://f/author/dmitri/", "http://f/u/alice/1/"]);
    assert!(views.values().all(|w| *w == PERSON));
    assert!(page_views(&html, &page, &read_as(Category::Blog, &members)).is_empty());
    // Learned for the host by template once two members were linked so, unless the template
    // holds nothing fixed or only a script.
    let template = forum.nav_template(&url(members[0]));
    assert_eq!(template, "u/*/N");
    for m in [members[0], members[0]] {
        forum.learn_person(&template, &url(m));
    }
    assert_eq!(not_worth(&url("http://f/u/dmitri/4/"), &forum), None);
    forum.learn_person(&template, &url(members[1]));
    assert!(not_worth(&url("http://f/u/dmitri/4/"), &forum).is_some());
    for t in ["*", "index.php?u"] {
        forum.learn_person(t, &url("http://f/alice"));
        forum.learn_person(t, &url("http://f/bruno"));
        assert!(!forum.is_person(t), "{t}");
    }
    // A card that links a whole teaser, byline included, links the post.
    let card = scraper::Html::parse_document(
        r#"<a href="/2023/heron/"><h2>Heron at dusk</h2><img class="avatar" src="/a.png">
        <span itemprop="author">Alice</span></a>
        <a href="/news/avatar-review"><img alt="Avatar" src="/img/avatar-poster.jpg"></a>"#,
    );
    assert!(page_views(&card, &page, &forum).is_empty());
}
