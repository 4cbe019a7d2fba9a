//! The structural view of expressions, candidate generation and the adaptation state machine.

use super::adapt::{ActionId, HostState, Limits, Recovery};
use super::path::{parse, render, Pred, Test};
use super::*;
use std::cell::Cell;

#[test]
fn paths_parse_into_typed_predicates_and_render_back() {
    let src = "//div[contains(concat(' ',normalize-space(@class),' '),' post ')]//h2[@class='posttitle'][starts-with(@id,'t_')][@data-x][position()=1]/a/@href";
    let paths = parse(src).unwrap();
    assert_eq!(paths.len(), 1);
    let steps = &paths[0].steps;
    assert_eq!(steps.len(), 4);
    assert_eq!(steps[0].test, "div");
    assert_eq!(
        steps[0].preds[0],
        Pred::Attr {
            attr: "class".into(),
            test: Test::Token,
            value: "post".into()
        }
    );
    assert_eq!(
        steps[1].preds[0],
        Pred::Attr {
            attr: "class".into(),
            test: Test::Eq,
            value: "posttitle".into()
        }
    );
    assert_eq!(
        steps[1].preds[1],
        Pred::Attr {
            attr: "id".into(),
            test: Test::Starts,
            value: "t_".into()
        }
    );
    assert_eq!(steps[1].preds[2], Pred::Has("data-x".into()));
    assert_eq!(steps[1].preds[3], Pred::Other("position()=1".into()));
    assert_eq!(steps[3].test, "@href");
    assert!(!steps[3].is_element());
    // Rendering is XPath that means the same thing.
    let again = render(&paths).unwrap();
    assert_eq!(parse(&again).unwrap(), paths);
    assert!(crate::aah::xpath::compile(&again).is_ok());
}

#[test]
fn unions_relative_paths_and_axes_parse_and_other_shapes_do_not() {
    let p = parse(".//p[@class='author']/time/@datetime | //abbr/@title").unwrap();
    assert_eq!(p.len(), 2);
    assert!(p[0].dot);
    assert_eq!(
        render(&p).unwrap(),
        ".//p[@class='author']/time/@datetime | //abbr/@title"
    );
    let a = parse("//h3/following-sibling::div[1]").unwrap();
    assert_eq!(a[0].steps[1].axis.as_deref(), Some("following-sibling"));
    assert!(parse("count(//div) > 1").is_none());
    assert!(parse("(//div)[1]").is_none());
}

#[test]
fn similar_values_share_words_or_a_stem() {
    assert!(similarity("message-body", "message-content") >= 0.5);
    assert!(similarity("posttitle", "posthead") >= 0.5);
    assert!(similarity("wp-block-post-title", "wp-block-entry-title") >= 0.5);
    assert!(similarity("postbody", "sidebar") < 0.5);
    assert_eq!(similarity("x", "x"), 1.0);
}

fn page_vocab(values: &[(&str, &str, &str)], tags: &[&str]) -> PageVocab {
    let mut v = PageVocab::default();
    for (attr, value, tag) in values {
        v.values
            .entry((attr.to_string(), value.to_string()))
            .or_default()
            .insert(tag.to_string());
    }
    v.tags = tags.iter().map(|t| t.to_string()).collect();
    v
}

#[test]
fn candidates_relax_the_failing_step_cheapest_first() {
    let original = "//div[contains(@class,'post')]//h2[@class='posttitle']";
    let page = page_vocab(
        &[("class", "post", "div"), ("class", "posthead", "h2")],
        &["div", "h2", "span"],
    );
    let sources = vec![(
        "h3".to_string(),
        "class".to_string(),
        "entry-title".to_string(),
        3,
    )];
    let c = candidates(original, |_| 1, &sources, &page);
    let exprs: Vec<&str> = c.iter().map(|c| c.expr.as_str()).collect();
    assert_eq!(
        exprs[0],
        "//div[contains(@class,'post')]//h2[contains(@class,'posttitle')]"
    );
    assert!(exprs.contains(&"//div[contains(@class,'post')]//h2[contains(@id,'posttitle')]"));
    assert!(exprs.contains(&"//div[contains(@class,'post')]//h2[contains(@class,'posthead')]"));
    assert!(exprs.contains(&"//div[contains(@class,'post')]//h2[contains(@class,'entry-title')]"));
    assert!(exprs.contains(&"//div[contains(@class,'post')]//h3[contains(@class,'entry-title')]"));
    assert!(exprs.contains(&"//div[contains(@class,'post')]//*[contains(@class,'posttitle')]"));
    assert!(exprs.contains(&"//div[contains(@class,'post')]//h2"));
    // The step that works is kept as it is.
    assert!(c
        .iter()
        .all(|c| c.expr.starts_with("//div[contains(@class,'post')]")));
    assert!(!exprs.contains(&original));
    let costs: Vec<u32> = c.iter().map(|c| c.cost).collect();
    assert!(costs.windows(2).all(|w| w[0] <= w[1]));
    for c in &c {
        assert!(crate::aah::xpath::compile(&c.expr).is_ok(), "{}", c.expr);
    }
}

#[test]
fn child_steps_may_become_descendant_steps() {
    let c = candidates(
        "//table[@class='posts']/tr/td",
        |_| 1,
        &[],
        &PageVocab::default(),
    );
    assert!(c.iter().any(|c| c.expr == "//table[@class='posts']//tr/td"));
}

fn action<'a>(url: &'a str) -> ActionId<'a> {
    ActionId {
        host: "h.example",
        url,
        application: "app",
        level: "lvl",
        action: "lvl/obj/body",
        original: "//div[@class='body']",
    }
}

fn limits(validate_pages: usize) -> Limits {
    Limits {
        validate_pages,
        max_attempts: 3,
        max_tries: 10,
    }
}

fn cands(exprs: &[&str]) -> Vec<Candidate> {
    exprs
        .iter()
        .enumerate()
        .map(|(i, e)| Candidate {
            expr: e.to_string(),
            cost: i as u32,
        })
        .collect()
}

#[test]
fn a_candidate_is_adopted_only_after_working_on_further_pages() {
    let mut st = HostState::default();
    let l = limits(2);
    let works = |c: &str| c == "//div[contains(@class,'body')]";
    let gen = || cands(&["//div[@id='body']", "//div[contains(@class,'body')]"]);
    let r = st.recover(&action("u1"), &l, &works, &|| None, &gen);
    assert_eq!(
        r,
        Recovery::Pending("//div[contains(@class,'body')]".into())
    );
    // The same page again does not count twice.
    let r = st.recover(&action("u1"), &l, &works, &|| None, &gen);
    assert!(matches!(r, Recovery::Pending(_)));
    assert!(matches!(
        st.recover(&action("u2"), &l, &works, &|| None, &gen),
        Recovery::Pending(_)
    ));
    assert!(st.adoptions.is_empty());
    let r = st.recover(&action("u3"), &l, &works, &|| None, &gen);
    assert_eq!(
        r,
        Recovery::Adopted("//div[contains(@class,'body')]".into())
    );
    let a = &st.adoptions[0];
    assert_eq!(a.validated_on, vec!["u1", "u2", "u3"]);
    assert_eq!(a.original, "//div[@class='body']");
    assert_eq!(a.source, "relaxation");
    assert_eq!(st.new_adoptions.len(), 1);
    // Later pages use the adoption without generating anything.
    let r = st.recover(&action("u4"), &l, &works, &|| None, &|| {
        panic!("no generation once adopted")
    });
    assert!(matches!(r, Recovery::Adopted(_)));
}

#[test]
fn a_candidate_that_fails_on_a_later_page_is_rejected() {
    let mut st = HostState::default();
    let l = limits(2);
    let first_page = |c: &str| c == "//p";
    let gen = || cands(&["//p", "//div"]);
    assert_eq!(
        st.recover(&action("u1"), &l, &first_page, &|| None, &gen),
        Recovery::Pending("//p".into())
    );
    // On the next page `//p` finds nothing but `//div` works: `//p` is rejected for good.
    let second_page = |c: &str| c == "//div";
    assert_eq!(
        st.recover(&action("u2"), &l, &second_page, &|| None, &gen),
        Recovery::Pending("//div".into())
    );
    assert!(st.is_rejected("app/lvl/obj/body", "//p"));
    assert_eq!(st.pending["app/lvl/obj/body"].pages, vec!["u2"]);
}

#[test]
fn relaxation_attempts_are_budgeted_per_action() {
    let mut st = HostState::default();
    let l = limits(2);
    let generated = Cell::new(0);
    let gen = || {
        generated.set(generated.get() + 1);
        cands(&["//x"])
    };
    for i in 0..10 {
        let url = format!("u{i}");
        assert_eq!(
            st.recover(&action(&url), &l, &|_| false, &|| None, &gen),
            Recovery::Failed
        );
    }
    assert_eq!(
        generated.get(),
        3,
        "max_attempts bounds the work on a hopeless host"
    );
}

#[test]
fn relearned_expressions_come_first_and_zero_validation_adopts_at_once() {
    let mut st = HostState::default();
    let r = st.recover(
        &action("u1"),
        &limits(0),
        &|_| true,
        &|| Some("//section[@id='text']".into()),
        &|| panic!("relearning found one"),
    );
    assert_eq!(r, Recovery::Adopted("//section[@id='text']".into()));
    assert_eq!(st.adoptions[0].source, "relearn");
}

#[test]
fn relearning_finds_the_container_of_a_long_captured_text() {
    use crate::aah::dom::{html_package, node_text, Dom};
    use crate::aah::engine::Page;
    let long = "reeds ".repeat(80);
    let html = format!(
        "<div class='wrap'><div class='text'><p>{long}</p><p>second paragraph</p></div><div class='meta'>footer</div></div>"
    );
    let pkg = html_package(&html);
    let page = Page::new(Dom::new(&pkg));
    let full = node_text(page.nodes("//div[@class='text']", page.root())[0]);
    let prefix = &full[..256];
    let got = adapt::relearn_field(&page, &[page.root()], prefix, full.len(), false);
    assert_eq!(
        got.as_deref(),
        Some("//div[contains(concat(' ',normalize-space(@class),' '),' text ')]")
    );
    // A short exact value is found as such; an absent one is not invented.
    let got = adapt::relearn_field(&page, &[page.root()], "footer", 6, false);
    assert_eq!(
        got.as_deref(),
        Some("//div[contains(concat(' ',normalize-space(@class),' '),' meta ')]")
    );
    assert_eq!(
        adapt::relearn_field(&page, &[page.root()], "absent", 6, false),
        None
    );
}

#[test]
fn a_detection_candidate_must_name_something_specific() {
    use super::vocab::is_specific;
    for generic in [
        "page",
        "archive",
        "forum-title",
        "entry-content",
        "post_list",
    ] {
        assert!(!is_specific(generic), "{generic}");
    }
    for specific in ["forumposts", "mw-content-text", "dokuwiki"] {
        assert!(is_specific(specific), "{specific}");
    }
}
