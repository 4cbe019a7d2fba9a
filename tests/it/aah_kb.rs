//! The shipped knowledge base on its fixture pages (`tests/fixtures/kb/<app>/*.html`, expected
//! results in `tests/fixtures/kb/manifest.json`): every application and every level is detected
//! on its pages, the objects extracted are exactly the expected ones, and the listed links get
//! the expected verdict (skip login/edit/reply/print/feed/calendar, boost next pages).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use magpie::aah::{Helper, LinkAction};
use magpie::parse::{html, ParseLimits};
use serde::Deserialize;
use url::Url;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    file: String,
    url: String,
    application: Option<String>,
    level: Option<String>,
    kind: Option<String>,
    #[serde(default)]
    objects: Vec<Obj>,
    /// URL → "action rule" (e.g. "skip wordpress/*/login").
    #[serde(default)]
    links: BTreeMap<String, String>,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Obj {
    #[serde(rename = "type")]
    kind: String,
    fields: BTreeMap<String, String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(root().join("tests/fixtures/kb/manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn run(helper: &Helper, case: &Case) -> magpie::aah::AppMatch {
    let body = std::fs::read(root().join("tests/fixtures/kb").join(&case.file)).unwrap();
    let url = Url::parse(&case.url).unwrap();
    let page = html(&body, None, None, &url, &ParseLimits::default());
    helper.analyze(&url, &[], &body, &page.links).unwrap().app
}

#[test]
fn every_fixture_is_detected_extracted_and_judged_as_expected() {
    let helper = Helper::load(&root().join("kb")).unwrap();
    let mut failures = Vec::new();
    for case in cases() {
        let m = run(&helper, &case);
        let app = m.application.as_ref().map(|a| a.name.clone());
        let level = m.level.as_ref().map(|l| l.name.clone());
        let kind = m.level.as_ref().map(|l| l.kind.as_str().to_owned());
        if app != case.application || level != case.level || kind != case.kind {
            failures.push(format!(
                "{}: detected {app:?}/{level:?}/{kind:?}, expected {:?}/{:?}/{:?}",
                case.file, case.application, case.level, case.kind
            ));
            continue;
        }
        if m.application.as_ref().is_some_and(|a| a.relaxed)
            || m.level.as_ref().is_some_and(|l| l.relaxed)
        {
            failures.push(format!("{}: detected only through relaxation", case.file));
        }
        let got: Vec<Obj> = m
            .objects
            .iter()
            .map(|o| Obj {
                kind: o.kind.clone(),
                fields: o.fields.iter().cloned().collect(),
            })
            .collect();
        if got != case.objects {
            failures.push(format!(
                "{}: objects differ\n  got:      {got:?}\n  expected: {:?}",
                case.file, case.objects
            ));
        }
        for (url, want) in &case.links {
            let got = match m.verdict(url) {
                Some(v) => format!(
                    "{} {}",
                    match v.action {
                        LinkAction::Follow => "follow",
                        LinkAction::Boost => "boost",
                        LinkAction::Skip => "skip",
                        LinkAction::Defer => "defer",
                    },
                    v.rule
                ),
                None => "no verdict (not a link of the page)".into(),
            };
            if &got != want {
                failures.push(format!(
                    "{}: {url}: got `{got}`, expected `{want}`",
                    case.file
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_application_and_level_has_a_fixture() {
    let helper = Helper::load(&root().join("kb")).unwrap();
    let covered: BTreeSet<(String, String)> = cases()
        .into_iter()
        .filter_map(|c| Some((c.application?, c.level?)))
        .collect();
    let mut missing = Vec::new();
    for app in &helper.kb().apps {
        for level in &app.levels {
            if !covered.contains(&(app.id.clone(), level.id.clone())) {
                missing.push(format!("{}/{}", app.id, level.id));
            }
        }
        let dir = root().join("tests/fixtures/kb").join(&app.id);
        assert!(Path::new(&dir).is_dir(), "no fixture folder for {}", app.id);
    }
    assert!(missing.is_empty(), "levels without a fixture: {missing:?}");
    let ids: BTreeSet<&str> = helper.kb().apps.iter().map(|a| a.id.as_str()).collect();
    for want in [
        "wordpress",
        "blogger",
        "ghost",
        "mediawiki",
        "dokuwiki",
        "phpbb",
        "vbulletin",
        "xenforo",
        "discourse",
        "smf",
        "drupal",
        "joomla",
    ] {
        assert!(ids.contains(want), "no knowledge for {want}");
    }
}

#[test]
fn a_page_of_no_known_application_claims_none_and_is_read_for_its_structure() {
    let helper = Helper::load(&root().join("kb")).unwrap();
    let body = b"<html><head><title>Plain</title></head><body><h1>Hello</h1><p>Nothing to see.</p><a href='/next'>next</a></body></html>";
    let url = Url::parse("https://plain.example.org/").unwrap();
    let page = html(body, None, None, &url, &ParseLimits::default());
    let m = helper.analyze(&url, &[], body, &page.links).unwrap().app;
    assert!(m.application.is_none());
    assert!(m.level.is_some(), "the page's kind is read: {m:?}");
    assert_eq!(m.links.len(), 1);
    assert_eq!(m.links[0].action, LinkAction::Follow);
    assert_eq!(m.links[0].rule, "default");
}

#[test]
fn hostile_pages_do_not_stall_or_crash_the_helper() {
    let helper = Helper::load(&root().join("kb")).unwrap();
    let url = Url::parse("https://forum.example.org/viewtopic.php?t=1").unwrap();
    // Deep nesting on a page that passes the pre-filter, so it is parsed and evaluated.
    let mut deep = String::from("<body id='phpbb' class='section-viewtopic'>");
    deep.push_str(&"<div class='post'>".repeat(30_000));
    let t = std::time::Instant::now();
    let m = helper.analyze(&url, &[], deep.as_bytes(), &[]).unwrap().app;
    assert_eq!(m.application.map(|a| a.name).as_deref(), Some("phpbb"));
    assert!(t.elapsed().as_secs() < 20, "took {:?}", t.elapsed());
    // Names XML cannot hold, prefixes, and a flood of attributes.
    let mut odd = String::from("<body id='phpbb'><fb:like :class='x' @click='y' v-on:click='z'></fb:like><svg><use xlink:href='#a'/></svg><img ");
    for i in 0..2000 {
        odd.push_str(&format!("a{i}='1' "));
    }
    odd.push('>');
    let m = helper.analyze(&url, &[], odd.as_bytes(), &[]).unwrap().app;
    assert!(m.application.is_some());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    #[test]
    fn analysis_never_panics(body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000),
                             soup in "(<div class=\"(post|content|postbody)\"( id=\"p[0-9]\")?>|</div>|<body id=\"phpbb\" class=\"section-viewtopic\">|<a href=\"/[a-z?=&]{0,12}\">|[a-z ]{0,8}){0,40}") {
        let helper = Helper::load(&root().join("kb")).unwrap();
        let url = Url::parse("https://x.example/viewtopic.php?t=1").unwrap();
        helper.analyze(&url, &[], &body, &[]).unwrap();
        let page = html(soup.as_bytes(), None, None, &url, &ParseLimits::default());
        helper.analyze(&url, &[], soup.as_bytes(), &page.links).unwrap();
    }
}
