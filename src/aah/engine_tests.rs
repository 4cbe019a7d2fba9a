//! Detection conditions, the pre-filter, extraction and link selection on small pages.

use super::*;
use crate::aah::dom::html_package;
use crate::aah::kb::KnowledgeBase;
use std::path::Path;

const APP: &str = r#"<application id="t" name="T" category="blog">
  <detect><xpath expr="//meta[@name='generator'][@content='TestPress']"/></detect>
  <level id="post" kind="terminal">
    <detect match="all">
      <xpath expr="//article[@class='post']"/>
      <url contains="/posts/"/>
      <header name="X-Test" matches="^yes$"/>
    </detect>
    <object type="comment" repeat="true" root="//li[@class='c']">
      <field name="who" xpath=".//b"/>
      <field name="text" xpath=".//p" required="true" min-length="3"/>
    </object>
  </level>
</application>"#;

fn kb() -> KnowledgeBase {
    let app = KnowledgeBase::parse_file(APP, Path::new("t.xml")).unwrap();
    KnowledgeBase::from_apps(vec![app])
}

const PAGE: &str = r#"<html><head><meta name="generator" content="TestPress"><base href="https://b.example/base/"></head>
<body><article class="post"><ul>
<li class="c"><b>Ann</b><p>First comment</p></li>
<li class="c"><b>Bob</b><p>ok</p></li>
<li class="c"><p>Third one</p></li>
</ul><a class="next" href="page/2#top">next</a><a class="next" href="">self</a></article></body></html>"#;

#[test]
fn detection_combines_xpath_url_and_header_conditions() {
    let kb = kb();
    let pkg = html_package(PAGE);
    let page = Page::new(Dom::new(&pkg));
    let words = kb.scan(PAGE);
    let level = &kb.apps[0].levels[0].detect;
    let headers = vec![("x-test".to_string(), "yes".to_string())];
    let facts = |url, headers| Facts {
        url,
        headers,
        words: &words,
    };
    assert!(detect(
        &kb.apps[0].detect,
        Some(&page),
        &facts("https://b.example/", &[])
    ));
    assert!(detect(
        level,
        Some(&page),
        &facts("https://b.example/posts/1", &headers)
    ));
    assert!(!detect(
        level,
        Some(&page),
        &facts("https://b.example/about", &headers)
    ));
    assert!(!detect(
        level,
        Some(&page),
        &facts("https://b.example/posts/1", &[])
    ));
    assert!(
        !detect(level, None, &facts("https://b.example/posts/1", &headers)),
        "XPath needs a page"
    );
}

#[test]
fn the_prefilter_skips_evaluation_when_the_page_lacks_the_words() {
    let kb = kb();
    let other = "<html><head><meta name='generator' content='Other'></head><body></body></html>";
    let pkg = html_package(other);
    let page = Page::new(Dom::new(&pkg));
    let words = kb.scan(other);
    let facts = Facts {
        url: "https://b.example/",
        headers: &[],
        words: &words,
    };
    assert!(!detect(&kb.apps[0].detect, Some(&page), &facts));
    assert_eq!(page.evaluations(), 0);
    let all = kb.scan(PAGE);
    let facts = Facts {
        url: "https://b.example/",
        headers: &[],
        words: &all,
    };
    assert!(!detect(&kb.apps[0].detect, Some(&page), &facts));
    assert_eq!(page.evaluations(), 1);
}

#[test]
fn repeated_objects_keep_plausible_fields_only() {
    let kb = kb();
    let pkg = html_package(PAGE);
    let page = Page::new(Dom::new(&pkg));
    let rule = &kb.apps[0].levels[0].objects[0];
    let root = rule.root.as_ref().map(|r| r.src.as_str());
    let fields: Vec<&str> = rule.fields.iter().map(|f| f.expr.src.as_str()).collect();
    let r = extract(&page, rule, root, &fields);
    assert_eq!(r.roots, 3);
    assert_eq!(r.found, vec![2, 2]);
    let got: Vec<Vec<(String, String)>> = r.objects.iter().map(|o| o.fields.clone()).collect();
    assert_eq!(
        got,
        vec![
            vec![
                ("who".into(), "Ann".into()),
                ("text".into(), "First comment".into())
            ],
            vec![("who".into(), "Bob".into())],
            vec![("text".into(), "Third one".into())],
        ]
    );
}

#[test]
fn links_resolve_against_the_base_and_lose_their_fragment() {
    let pkg = html_package(PAGE);
    let page = Page::new(Dom::new(&pkg));
    let url = Url::parse("https://b.example/posts/1").unwrap();
    let base = base_url(&page, &url);
    assert_eq!(base.as_str(), "https://b.example/base/");
    let by_attr = link_urls(&page, "//a[@class='next']/@href", &base);
    let by_elem = link_urls(&page, "//a[@class='next']", &base);
    assert_eq!(by_attr, by_elem);
    assert!(by_attr.contains("https://b.example/base/page/2"));
    assert!(by_attr.contains("https://b.example/base/"));
}
