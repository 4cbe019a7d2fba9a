//! The fast path selects exactly what the XPath engine selects: on small pages, and for every
//! expression of the shipped knowledge base on every fixture page.

use std::path::{Path, PathBuf};

use super::*;
use crate::aah::dom::{html_package, Dom};
use crate::aah::engine::Page;
use crate::aah::kb::{Condition, KnowledgeBase};

fn same(page: &Page<'_>, src: &str, at: XNode<'_>) -> usize {
    let fast = page.nodes(src, at);
    let slow = page.engine_nodes(src, at);
    assert_eq!(fast, slow, "{src}");
    fast.len()
}

#[test]
fn simple_paths_have_a_plan_and_others_do_not() {
    for e in [
        "//div[@id='x']",
        "//div[contains(@class,'a')]//h2[@class='t']/a/@href",
        ".//p[starts-with(@id,'p')][@data-x]",
        "/html/head/base/@href",
        "h1/a | //*[contains(concat(' ',normalize-space(@class),' '),' post ')]",
    ] {
        assert!(plan(e).is_some(), "{e}");
    }
    for e in [
        "//li[1]",
        "//a[not(@href)]",
        "//h3/following-sibling::p",
        "//p/text()",
        "//a//@href",
        "//a[contains(.,'next')]",
        "(//a)[1]",
        "count(//a)",
    ] {
        assert!(plan(e).is_none(), "{e}");
    }
}

#[test]
fn the_fast_path_agrees_with_the_engine() {
    let html = r#"<html><head><base href="/b/"></head><body class=" a  post b">
        <div id="x" class="post first"><h2 class="t">T<a href="/1" title="one">1</a></h2>
          <div class="post-inner"><h2 class="t"><a href="/2">2</a></h2></div></div>
        <div class="postbody" data-x=""><p id="p1">p</p><p id="q2">q</p></div>
        <table><tr><td class="">c</td></tr></table></body></html>"#;
    let pkg = html_package(html);
    let page = Page::new(Dom::new(&pkg));
    let root = page.root();
    assert_eq!(same(&page, "//div[contains(@class,'post')]", root), 3);
    assert_eq!(
        same(
            &page,
            "//div[contains(concat(' ',normalize-space(@class),' '),' post ')]",
            root
        ),
        1
    );
    assert_eq!(
        same(
            &page,
            "//body[contains(concat(' ',normalize-space(@class),' '),' post ')]",
            root
        ),
        1
    );
    assert_eq!(
        same(
            &page,
            "//div[contains(@class,'post')]//h2[@class='t']/a/@href",
            root
        ),
        2
    );
    assert_eq!(same(&page, "//h2/a/@href | //h2/a/@title | //h2", root), 5);
    assert_eq!(
        same(&page, "//div[@data-x]//p[starts-with(@id,'p')]", root),
        1
    );
    assert_eq!(same(&page, "//td[contains(@class,'')]", root), 1);
    assert_eq!(same(&page, "//td[starts-with(@nope,'')]", root), 1);
    assert_eq!(same(&page, "/html/head/base/@href", root), 1);
    assert_eq!(same(&page, "//table/tr", root), 0);
    assert_eq!(same(&page, "//*[@id]", root), 3);
    let x = page.nodes("//div[@id='x']", root)[0];
    assert_eq!(same(&page, ".//h2", x), 2);
    assert_eq!(same(&page, "./h2/a", x), 1);
    assert_eq!(same(&page, "h2 | div/h2", x), 2);
    assert_eq!(same(&page, "//p", x), 2, "absolute from any context");
}

fn kb_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_shipped_expression_agrees_on_every_fixture() {
    let kb = KnowledgeBase::load(&kb_root().join("kb")).unwrap();
    let mut absolute: Vec<String> = Vec::new();
    let mut relative: Vec<(String, Vec<String>)> = Vec::new();
    for app in &kb.apps {
        let xpaths = |d: &crate::aah::kb::Detect| -> Vec<String> {
            d.conditions
                .iter()
                .filter_map(|c| match c {
                    Condition::XPath(e) => Some(e.src.clone()),
                    _ => None,
                })
                .collect()
        };
        absolute.extend(xpaths(&app.detect));
        absolute.extend(app.nav.iter().map(|n| n.expr.src.clone()));
        for l in &app.levels {
            absolute.extend(xpaths(&l.detect));
            absolute.extend(l.nav.iter().map(|n| n.expr.src.clone()));
            for o in &l.objects {
                let fields = o.fields.iter().map(|f| f.expr.src.clone()).collect();
                match &o.root {
                    Some(r) => {
                        absolute.push(r.src.clone());
                        relative.push((r.src.clone(), fields));
                    }
                    None => absolute.extend(fields),
                }
            }
        }
    }
    let planned = absolute.iter().filter(|e| plan(e).is_some()).count();
    assert!(
        planned * 2 > absolute.len(),
        "most expressions take the fast path: {planned}/{}",
        absolute.len()
    );
    let dir = kb_root().join("tests/fixtures/kb");
    let mut pages = 0;
    for app in std::fs::read_dir(&dir).unwrap() {
        let app = app.unwrap().path();
        if !app.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&app).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_none_or(|e| e != "html") {
                continue;
            }
            let html = std::fs::read_to_string(Path::new(&f)).unwrap();
            let pkg = html_package(&html);
            let page = Page::new(Dom::new(&pkg));
            for e in &absolute {
                same(&page, e, page.root());
            }
            for (root, fields) in &relative {
                for r in page.nodes(root, page.root()) {
                    for e in fields {
                        same(&page, e, r);
                    }
                }
            }
            pages += 1;
        }
    }
    assert!(pages >= 24);
}
