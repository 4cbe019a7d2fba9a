//! Expression checks (prefixes, variables, functions, axes), pre-filter derivation and
//! defensive evaluation.

use super::*;

fn req(src: &str) -> Requirement {
    requirement(&lex(src).unwrap())
}

fn words(alts: &[&[&str]]) -> Requirement {
    Some(
        alts.iter()
            .map(|a| a.iter().map(|w| w.to_string()).collect())
            .collect(),
    )
}

#[test]
fn lexes_names_literals_and_operators() {
    let t = lex("//div[starts-with(@id, \"post_\")]/following-sibling::p[2]").unwrap();
    assert_eq!(t[0], Tok::Sym("//"));
    assert_eq!(t[1], Tok::Name("div".into()));
    assert!(t.contains(&Tok::Name("starts-with".into())));
    assert!(t.contains(&Tok::Lit("post_".into())));
    assert!(t.contains(&Tok::Name("following-sibling".into())));
    assert!(t.contains(&Tok::Sym("::")));
    assert!(t.contains(&Tok::Num("2".into())));
    assert!(lex("//a[@x='open]").is_err());
}

#[test]
fn prefixed_names_are_refused_with_a_hint() {
    for e in ["//fb:like", "//meta/@og:title", "//x:*", "//a[ns:f()]"] {
        let err = check(e, &lex(e).unwrap()).unwrap_err();
        assert!(err.contains("unbound namespace prefix"), "{e}: {err}");
    }
    assert!(check(
        "//*[name()='fb:like']",
        &lex("//*[name()='fb:like']").unwrap()
    )
    .is_ok());
    assert!(check(
        "child::div/descendant-or-self::node()/text()",
        &lex("child::div/descendant-or-self::node()/text()").unwrap()
    )
    .is_ok());
}

#[test]
fn variables_unknown_functions_and_axes_are_refused() {
    assert!(check("//a[@x=$v]", &lex("//a[@x=$v]").unwrap())
        .unwrap_err()
        .contains("variables"));
    assert!(check("//a[foo(@x)]", &lex("//a[foo(@x)]").unwrap())
        .unwrap_err()
        .contains("unknown function `foo()`"));
    assert!(check("id('x')", &lex("id('x')").unwrap())
        .unwrap_err()
        .contains("use @id"));
    assert!(check("sideways::a", &lex("sideways::a").unwrap())
        .unwrap_err()
        .contains("unknown axis"));
}

#[test]
fn compile_reports_syntax_errors_and_empty_expressions() {
    assert!(compile("//div[").is_err());
    assert!(compile("").unwrap_err().contains("empty"));
    assert!(compile("//div[@class='x']").is_ok());
}

#[test]
fn requirement_reads_attribute_literals() {
    assert_eq!(
        req("//script[contains(@src,'vbulletin_core.js')]"),
        words(&[&["vbulletin_core"]])
    );
    assert_eq!(
        req("//meta[@name='generator'][starts-with(@content,'WordPress')]"),
        words(&[&["generator", "WordPress"]])
    );
    assert_eq!(
        req("//div[contains(concat(' ',normalize-space(@class),' '),' post ')]"),
        words(&[&["post"]])
    );
    assert_eq!(
        req("//body[@id='phpbb'] | //a[@class='forumtitle']"),
        words(&[&["phpbb"], &["forumtitle"]])
    );
    assert_eq!(req("'x-y'=@data-app"), words(&[&["x-y"]]));
}

#[test]
fn requirement_gives_up_when_unsafe() {
    // Text can be split by markup; negation and counting say nothing about presence.
    assert_eq!(req("//h1[.='Hello world']"), None);
    assert_eq!(req("//div[contains(.,'posts')]"), None);
    assert_eq!(req("//div[not(contains(@class,'post'))]"), None);
    assert_eq!(req("count(//div[@class='post']) > 1"), None);
    assert_eq!(req("//div[@class='post' or @id='x']"), None);
    assert_eq!(
        req("//div[contains(translate(@class,'P','p'),'post')]"),
        None
    );
    assert_eq!(
        req("//div[@class='ab'] | //p"),
        None,
        "one unfiltered branch"
    );
}

#[test]
fn evaluation_of_a_prefixed_name_never_panics() {
    // Bypass the load-time check to prove the evaluation guard.
    let x = build("//fb:like").unwrap();
    let pkg = sxd_document::Package::new();
    let doc = pkg.as_document();
    let root = doc.create_element("html");
    doc.root().append_child(root);
    let r = eval(&x, &Context::new(), doc.root().into());
    assert!(r.is_err());
    assert!(nodes(&x, &Context::new(), doc.root().into()).is_empty());
    assert!(!truthy(&x, &Context::new(), doc.root().into()));
}

#[test]
fn double_slash_becomes_descendant_unless_positional() {
    assert_eq!(
        optimized("//div[@class='a']//h2"),
        "/descendant::div[@class='a']/descendant::h2"
    );
    assert_eq!(
        optimized(".//p | //*[contains(@id,'x')]"),
        "./descendant::p | /descendant::*[contains(@id,'x')]"
    );
    assert_eq!(optimized("//li[1]"), "//li[1]");
    assert_eq!(optimized("//li[last()]/a"), "//li[last()]/a");
    assert_eq!(optimized("//li[position()>1]"), "//li[position()>1]");
    assert_eq!(optimized("//li[count(a)]"), "//li[count(a)]");
    assert_eq!(optimized("//td[@x * 2]"), "//td[@x * 2]");
    assert_eq!(
        optimized("//@href | //text() | //node()"),
        "//@href | //text() | //node()"
    );
    assert_eq!(optimized("(//a)[1]"), "(/descendant::a)[1]");
    assert_eq!(
        optimized("//a[.//*[@href]]"),
        "/descendant::a[./descendant::*[@href]]"
    );
}

#[test]
fn the_rewrite_selects_the_same_nodes() {
    let html = "<html><body><ul><li>a</li><li class='x'>b<ul><li>c</li><li class='x'>d</li></ul></li></ul>\
                <table><tr><td>1</td><td>2</td></tr></table><p><a href='/1'>1</a></p></body></html>";
    let pkg = crate::aah::dom::html_package(html);
    let dom = crate::aah::dom::Dom::new(&pkg);
    let ctx = Context::new();
    for e in [
        "//li",
        "//li[@class='x']",
        "//ul//li[contains(@class,'x')]",
        "//li[1]",
        "//li[last()]",
        "//table//td[2]",
        "//*[@href] | //td",
        "(//li)[2]",
        ".//li[not(@class)]",
    ] {
        let fast = nodes(&compile(e).unwrap(), &ctx, dom.doc.root().into());
        let plain = Factory::new().build(e).unwrap().unwrap();
        let slow = nodes(&plain, &ctx, dom.doc.root().into());
        let mut fast: Vec<String> = fast.into_iter().map(|n| n.string_value()).collect();
        let mut slow: Vec<String> = slow.into_iter().map(|n| n.string_value()).collect();
        fast.sort();
        slow.sort();
        assert_eq!(fast, slow, "{e}");
    }
}

/// Compiles and evaluates `expr` on a small page on a thread with a 256 KiB stack (an eighth of
/// what actix and tokio threads get), so a bound that lets recursion go too deep fails here.
fn evaluates_on_a_small_stack(expr: String) -> Result<(), String> {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let x = compile(&expr)?;
            let package = crate::aah::dom::html_package("<p>a</p><p>b</p>");
            let doc = package.as_document();
            eval(&x, &Context::new(), doc.root().into()).map(|_| ())
        })
        .unwrap()
        .join()
        .expect("no stack overflow")
}

#[test]
fn deep_long_and_operator_heavy_expressions_are_refused_before_parsing() {
    let nested = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    let err = compile(&nested(1500)).unwrap_err();
    assert!(err.contains("nests 1500 levels deep"), "{err}");
    assert!(compile(&format!("//a{}", "[1]".repeat(10))).is_ok());
    let preds = format!("//a{}{}", "[b".repeat(65), "]".repeat(65));
    assert!(compile(&preds).unwrap_err().contains("levels deep"));
    let calls = format!("{}'x'{}", "not(".repeat(65), ")".repeat(65));
    assert!(compile(&calls).unwrap_err().contains("levels deep"));
    let minus = format!("{}1", "-".repeat(100));
    assert!(compile(&minus).unwrap_err().contains("levels deep"));
    let long = format!("//a[@x='{}']", "y".repeat(MAX_EXPR_BYTES));
    assert!(compile(&long).unwrap_err().contains("at most 4096"));
    let chain = format!("1{}", "+1".repeat(MAX_OPERATORS + 1));
    assert!(compile(&chain).unwrap_err().contains("operators"));
    let ors = format!("//p[@a{}]", " or @a".repeat(MAX_OPERATORS + 1));
    assert!(compile(&ors).unwrap_err().contains("operators"));
    // Operator words used as names are not operators.
    assert!(compile("//or/and[div]/mod").is_ok());
    // The knowledge-base loader applies the same check.
    let toks = lex(&nested(100)).unwrap();
    assert!(check(&nested(100), &toks)
        .unwrap_err()
        .contains("levels deep"));
}

#[test]
fn expressions_at_the_bounds_evaluate_on_a_small_stack() {
    let nested = format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    evaluates_on_a_small_stack(nested).unwrap();
    let calls = format!("{}'x'{}", "not(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    evaluates_on_a_small_stack(calls).unwrap();
    let preds = format!("//p{}{}", "[.".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    evaluates_on_a_small_stack(preds).unwrap();
    evaluates_on_a_small_stack(format!("{}1", "-".repeat(MAX_DEPTH))).unwrap();
    evaluates_on_a_small_stack(format!("1{}", "+1".repeat(MAX_OPERATORS))).unwrap();
    let mixed = format!(
        "{}1{}{}",
        "(".repeat(MAX_DEPTH / 2),
        "+1".repeat(MAX_OPERATORS),
        ")".repeat(MAX_DEPTH / 2)
    );
    evaluates_on_a_small_stack(mixed).unwrap();
}
