//! Adaptation end to end with the shipped knowledge base: a renamed class is recovered, adopted
//! only after validation on further pages, stored, and reused after the store is reopened; a
//! recrawl relearns an action against the content captured before; an application whose
//! detection patterns all fail is recognised through relaxed level patterns.

use std::path::PathBuf;

use magpie::aah::{ActionStatus, AppMatch, Helper, HelperOptions};
use magpie::parse::{html, ParseLimits};
use magpie::store::{Store, WriteSet};
use url::Url;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(root().join("tests/fixtures/kb").join(path)).unwrap()
}

fn analyze(helper: &Helper, url: &str, body: &str) -> AppMatch {
    learn(helper, url, body, &mut WriteSet::default())
}

/// Reads a page as [`analyze`] does, and adds what the helper learned to `learned`, for the
/// caller's commit (the engine's, in a crawl).
fn learn(helper: &Helper, url: &str, body: &str, learned: &mut WriteSet) -> AppMatch {
    let url = Url::parse(url).unwrap();
    let page = html(body.as_bytes(), None, None, &url, &ParseLimits::default());
    let reading = helper
        .analyze(&url, &[], body.as_bytes(), &page.links)
        .unwrap();
    learned.append(reading.learned);
    reading.app
}

fn status(m: &AppMatch, action: &str) -> (ActionStatus, String) {
    let a = m
        .actions
        .iter()
        .find(|a| a.action == action)
        .unwrap_or_else(|| panic!("no report for {action}: {:?}", m.actions));
    (a.status, a.expr.clone())
}

fn bodies(m: &AppMatch) -> Vec<String> {
    m.objects
        .iter()
        .filter(|o| o.kind == "post")
        .filter_map(|o| o.field("body").map(str::to_owned))
        .collect()
}

/// A phpBB topic page whose style renamed `div.content` to `div.post-content`.
fn renamed_topic(t: u32) -> (String, String) {
    let page = fixture("phpbb/topic.html")
        .replace("class=\"content\"", "class=\"post-content\"")
        .replace("Saw two herons", &format!("Topic {t}: saw two herons"));
    (
        format!("https://forum.example.org/viewtopic.php?t={t}"),
        page,
    )
}

const BODY: &str = "topic/post/body";
const KB_BODY: &str = ".//div[contains(@class,'postbody')]//div[@class='content']";
const RELAXED_BODY: &str = ".//div[contains(@class,'postbody')]//div[contains(@class,'content')]";

#[test]
fn a_renamed_class_is_adopted_after_validation_stored_and_reused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(dir.path()).unwrap();
        let helper = Helper::load(&root().join("kb"))
            .unwrap()
            .with_store(store.clone());
        let mut learned = WriteSet::default();
        for t in [1, 2] {
            let (url, page) = renamed_topic(t);
            let m = learn(&helper, &url, &page, &mut learned);
            assert_eq!(m.application.as_ref().unwrap().name, "phpbb");
            assert_eq!(
                status(&m, BODY),
                (ActionStatus::Pending, RELAXED_BODY.into()),
                "page {t}"
            );
            assert!(
                bodies(&m).is_empty(),
                "no content from an unvalidated candidate"
            );
            assert!(helper
                .relaxations(Some("forum.example.org"))
                .unwrap()
                .is_empty());
        }
        let (url, page) = renamed_topic(3);
        let m = learn(&helper, &url, &page, &mut learned);
        assert_eq!(
            status(&m, BODY),
            (ActionStatus::Relaxed, RELAXED_BODY.into())
        );
        let report = m.actions.iter().find(|a| a.action == BODY).unwrap();
        assert_eq!(report.original.as_deref(), Some(KB_BODY));
        assert_eq!(
            bodies(&m),
            vec![
                "This is an example post in your phpBB3 installation. Everything seems to be working.",
                "Topic 3: saw two herons on the canal this morning. Everything seems to be working. Indeed it does!",
            ]
        );
        let adopted = helper.relaxations(Some("forum.example.org")).unwrap();
        assert_eq!(adopted.len(), 1);
        let a = &adopted[0];
        assert_eq!(
            (a.application.as_str(), a.level.as_str(), a.action.as_str()),
            ("phpbb", "topic", BODY)
        );
        assert_eq!(a.original, KB_BODY);
        assert_eq!(a.relaxed, RELAXED_BODY);
        assert_eq!(a.source, "relaxation");
        assert_eq!(
            a.validated_on,
            (1..=3)
                .map(|t| format!("https://forum.example.org/viewtopic.php?t={t}"))
                .collect::<Vec<_>>()
        );
        // What the helper learned is committed by its caller (the engine, in a crawl), never
        // by the helper: nothing is in the store yet.
        let fresh = Helper::load(&root().join("kb"))
            .unwrap()
            .with_store(store.clone());
        assert!(fresh.relaxations(None).unwrap().is_empty());
        store.commit(learned).unwrap();
    }
    // A new process: the adoption comes back from the store and is used at once.
    let store = Store::open(dir.path()).unwrap();
    let helper = Helper::load(&root().join("kb")).unwrap().with_store(store);
    assert_eq!(helper.relaxations(None).unwrap().len(), 1);
    let (url, page) = renamed_topic(4);
    let m = analyze(&helper, &url, &page);
    assert_eq!(
        status(&m, BODY),
        (ActionStatus::Relaxed, RELAXED_BODY.into())
    );
    assert_eq!(bodies(&m).len(), 2);
    // Pages of the template the knowledge base knows keep using the original.
    let m = analyze(
        &helper,
        "https://forum.example.org/viewtopic.php?t=9",
        &fixture("phpbb/topic.html"),
    );
    assert_eq!(status(&m, BODY), (ActionStatus::Ok, KB_BODY.into()));
}

#[test]
fn a_recrawl_relearns_an_action_from_the_content_captured_before() {
    let store = Store::temporary().unwrap();
    let options = HelperOptions {
        validate_pages: 0,
        ..HelperOptions::default()
    };
    let helper = Helper::load(&root().join("kb"))
        .unwrap()
        .with_store(store.clone())
        .with_options(options);
    let url = "https://blog.example.org/2024/05/14/hello-world/";
    let original = fixture("wordpress/post.html");
    let mut learned = WriteSet::default();
    let first = learn(&helper, url, &original, &mut learned);
    assert_eq!(status(&first, "post/post/body").0, ActionStatus::Ok);
    // The first crawl commits the content captured with the page.
    store.commit(learned).unwrap();
    // The theme changed: the post text now sits in a div no pattern of the knowledge base
    // names, and that no relaxation of `entry-content` would find.
    let start = original
        .find("<div class=\"entry-content alignfull")
        .unwrap();
    let end = start + original[start..].find('>').unwrap();
    let changed = format!(
        "{}<div class=\"article-text\"{}",
        &original[..start],
        &original[end..]
    );
    let m = analyze(&helper, url, &changed);
    let (st, expr) = status(&m, "post/post/body");
    assert_eq!(st, ActionStatus::Relaxed);
    assert_eq!(
        expr,
        "//div[contains(concat(' ',normalize-space(@class),' '),' article-text ')]"
    );
    let post = m.objects.iter().find(|o| o.kind == "post").unwrap();
    assert_eq!(
        post.field("body"),
        Some(
            "Welcome to WordPress. This is your first post. Edit or delete it, then start writing!"
        )
    );
    let adopted = helper.relaxations(Some("blog.example.org")).unwrap();
    assert_eq!(adopted[0].source, "relearn");
    assert_eq!(adopted[0].validated_on, vec![url]);
}

/// Content captured on an earlier visit that is in the store but does not decode is an error
/// naming the page, when a failed field needs it: relearning without it would forget it.
#[test]
fn captured_content_that_does_not_decode_is_an_error_naming_the_page() {
    let store = Store::temporary().unwrap();
    let helper = Helper::load(&root().join("kb"))
        .unwrap()
        .with_store(store.clone());
    let url = "https://blog.example.org/2024/05/14/hello-world/";
    let original = fixture("wordpress/post.html");
    let mut learned = WriteSet::default();
    learn(&helper, url, &original, &mut learned);
    store.commit(learned).unwrap();
    let key = magpie::store::Key::Captured {
        host: "blog.example.org",
        url,
    }
    .bytes();
    assert!(store.get(&key).unwrap().is_some(), "the capture is stored");
    let mut damage = WriteSet::default();
    damage.put(key, b"{\"application\": ".to_vec());
    store.commit(damage).unwrap();
    // The same page is read as before: no field fails, the capture is not needed.
    let page_url = Url::parse(url).unwrap();
    assert!(helper
        .analyze(&page_url, &[], original.as_bytes(), &[])
        .is_ok());
    // The theme changed: the body needs relearning from the damaged capture.
    let changed = original.replace("entry-content", "article-text");
    let e = helper
        .analyze(&page_url, &[], changed.as_bytes(), &[])
        .expect_err("the damaged capture is reported");
    assert!(e.to_string().contains("hello-world"), "{e}");
}

/// An SMF topic whose theme no longer loads the default scripts nor credits Simple Machines:
/// none of the application's detection patterns match.
fn disguised_smf_topic(t: u32) -> (String, String) {
    let page = fixture("smf/topic.html")
        .replace("/Themes/default/scripts/script.js", "/assets/forum.js")
        .replace(
            "https://www.simplemachines.org",
            "https://example.org/credits",
        )
        .replace(
            "Thanks! The reed bed survey",
            &format!("Topic {t}: the reed bed survey"),
        );
    (
        format!("https://smf.example.org/index.php?topic={t}.0"),
        page,
    )
}

#[test]
fn an_undetected_application_is_recognised_by_relaxed_level_patterns() {
    let helper = Helper::load(&root().join("kb")).unwrap();
    for t in [1, 2] {
        let (url, page) = disguised_smf_topic(t);
        let m = analyze(&helper, &url, &page);
        // Read as an unknown forum meanwhile (from its own evidence), never as SMF.
        assert!(
            m.application.as_ref().is_none_or(|a| a.name == "unknown"),
            "page {t} must not be detected before validation: {:?}",
            m.application
        );
        assert_eq!(
            status(&m, "topic/detect"),
            (
                ActionStatus::Pending,
                "//div[contains(@id,'forumposts')]".into()
            )
        );
        assert!(
            m.objects.iter().all(|o| o.kind == "item"),
            "{:?}",
            m.objects
        );
    }
    let (url, page) = disguised_smf_topic(3);
    let m = analyze(&helper, &url, &page);
    let app = m.application.as_ref().expect("detected after validation");
    assert_eq!((app.name.as_str(), app.relaxed), ("smf", true));
    let level = m.level.as_ref().unwrap();
    assert_eq!((level.name.as_str(), level.relaxed), ("topic", true));
    assert_eq!(
        bodies(&m),
        vec![
            "Welcome to Simple Machines Forum! We hope you enjoy using your forum.",
            "Topic 3: the reed bed survey starts next week.",
        ]
    );
    // One adoption for SMF (what the unknown reading learned meanwhile is its own).
    let adopted: Vec<_> = helper
        .relaxations(Some("smf.example.org"))
        .unwrap()
        .into_iter()
        .filter(|a| a.application == "smf")
        .collect();
    assert_eq!(adopted.len(), 1);
    assert_eq!(adopted[0].source, "detection");
    assert_eq!(adopted[0].original, "//div[@id='forumposts']");
}

#[test]
fn the_helper_can_be_shared_between_workers() {
    fn shared<T: Send + Sync>() {}
    shared::<Helper>();
    let helper = std::sync::Arc::new(Helper::load(&root().join("kb")).unwrap());
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let helper = helper.clone();
            std::thread::spawn(move || {
                let (url, page) = renamed_topic(100 + i);
                analyze(&helper, &url, &page).application.map(|a| a.name)
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().as_deref(), Some("phpbb"));
    }
}

/// A page with WordPress's single-post body class and nothing else of WordPress's own markup:
/// the application's detection patterns all fail on it.
const BARE_POST: &str = "<!DOCTYPE html><html><head><title>Bare</title></head>\
    <body class=\"post-template-default single single-post postid-9\">\
    <article class=\"post-9 post type-post\"><h1 class=\"entry-title\">Bare post</h1>\
    <div class=\"entry-content\"><p>Text of a post served without a generator tag.</p></div>\
    </article></body></html>";

#[test]
fn a_hosts_application_is_remembered_and_confirmed_by_its_levels() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(dir.path()).unwrap();
        let helper = Helper::load(&root().join("kb"))
            .unwrap()
            .with_store(store.clone());
        let mut learned = WriteSet::default();
        // Another host has no detected application: the bare page is not WordPress by itself.
        let other = learn(
            &helper,
            "https://other.example/p/9",
            BARE_POST,
            &mut learned,
        );
        assert!(
            other.application.as_ref().is_none_or(|a| a.relaxed),
            "{:?}",
            other.application
        );
        let first = learn(
            &helper,
            "https://blog.example/a/",
            &fixture("wordpress/post.html"),
            &mut learned,
        );
        assert_eq!(first.application.as_ref().unwrap().name, "wordpress");
        // On the same host, the remembered application is confirmed by its post level.
        let m = learn(&helper, "https://blog.example/p/9", BARE_POST, &mut learned);
        let app = m.application.as_ref().expect("the host's application");
        assert_eq!((app.name.as_str(), app.relaxed), ("wordpress", false));
        assert_eq!(m.level.as_ref().unwrap().name, "post");
        // What the helper learned is committed by its caller (the engine, in a crawl).
        store.commit(learned).unwrap();
    }
    // A new process: the host's application comes back from the store.
    let store = Store::open(dir.path()).unwrap();
    let helper = Helper::load(&root().join("kb")).unwrap().with_store(store);
    let m = analyze(&helper, "https://blog.example/p/10", BARE_POST);
    assert_eq!(m.application.as_ref().unwrap().name, "wordpress");
    assert_eq!(m.level.as_ref().unwrap().name, "post");
    // A page none of its levels matches runs the whole detection again.
    let m = analyze(
        &helper,
        "https://blog.example/about",
        "<html><body><p>About us</p></body></html>",
    );
    assert!(m.application.is_none(), "{:?}", m.application);
}
