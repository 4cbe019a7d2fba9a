//! The HTML-to-XPath conversion pitfalls: namespaces, odd names, tbody, nbsp, noscript,
//! template, comments, whitespace, nesting, document order, extracted text.

use super::*;
use crate::aah::xpath;
use sxd_xpath::Context;

fn count(html: &str, expr: &str) -> usize {
    let pkg = html_package(html);
    let dom = Dom::new(&pkg);
    let x = xpath::compile(expr).unwrap();
    xpath::nodes(&x, &Context::new(), dom.doc.root().into()).len()
}

fn texts(html: &str, expr: &str) -> Vec<String> {
    let pkg = html_package(html);
    let dom = Dom::new(&pkg);
    let x = xpath::compile(expr).unwrap();
    let mut n = xpath::nodes(&x, &Context::new(), dom.doc.root().into());
    dom.sort(&mut n);
    n.into_iter().map(node_text).collect()
}

#[test]
fn html_elements_are_in_no_namespace() {
    let html = "<html><body><div class='post'>x</div></body></html>";
    assert_eq!(count(html, "//div"), 1);
    assert_eq!(count(html, "/html/body/div[@class='post']"), 1);
}

#[test]
fn svg_and_mathml_keep_local_names_and_prefixed_attributes() {
    let html = r##"<body><svg viewBox="0 0 1 1"><foreignObject><p>in</p></foreignObject>
        <use xlink:href="#icon"/><path d="M0"/></svg><math><mi>x</mi></math></body>"##;
    assert_eq!(count(html, "//svg//path"), 1);
    assert_eq!(count(html, "//svg/foreignObject/p"), 1);
    assert_eq!(count(html, "//math/mi"), 1);
    assert_eq!(count(html, "//use[@*[name()='xlink:href']='#icon']"), 1);
}

#[test]
fn invalid_xml_names_are_kept_and_reachable_by_name() {
    let html = r#"<body><div @click="go" :class="{a:1}" v-on:click="x">t</div><fb:like href="/l"></fb:like></body>"#;
    assert_eq!(count(html, "//div[@*[name()=':class']='{a:1}']"), 1);
    assert_eq!(count(html, "//div[@*[name()='@click']]"), 1);
    assert_eq!(count(html, "//div[@*[name()='v-on:click']]"), 1);
    assert_eq!(count(html, "//*[name()='fb:like']"), 1);
}

#[test]
fn duplicate_attributes_keep_the_first_value() {
    let html = r#"<div class="first" class="second">x</div>"#;
    assert_eq!(count(html, "//div[@class='first']"), 1);
    assert_eq!(count(html, "//div[@class='second']"), 0);
}

#[test]
fn tables_get_a_tbody() {
    let html = "<table><tr><td>a</td></tr></table>";
    assert_eq!(count(html, "//table/tr"), 0);
    assert_eq!(count(html, "//table//tr"), 1);
    assert_eq!(count(html, "//table/tbody/tr/td"), 1);
}

#[test]
fn nbsp_is_a_space_for_normalize_space_and_contains() {
    let html = "<p>a&nbsp;&nbsp;b</p>";
    assert_eq!(count(html, "//p[normalize-space()='a b']"), 1);
    assert_eq!(count(html, "//p[contains(.,'a  b')]"), 1);
    assert_eq!(texts(html, "//p"), vec!["a b"]);
}

#[test]
fn noscript_content_is_markup() {
    let html =
        r#"<body><noscript><div id="main-outlet"><a href="/t/1">topic</a></div></noscript></body>"#;
    assert_eq!(count(html, "//noscript/div[@id='main-outlet']/a"), 1);
}

#[test]
fn template_content_hangs_under_its_template() {
    let html = r#"<body><template id="tpl"><a href="/t">t</a></template></body>"#;
    assert_eq!(count(html, "//template[@id='tpl']/a"), 1);
    assert_eq!(
        texts(html, "//body"),
        vec![""],
        "template text is not content"
    );
}

#[test]
fn comments_and_whitespace_text_nodes_are_kept() {
    let html = "<div class='page'>\n<!-- wikipage start -->\n<p>x</p>\n</div>";
    assert_eq!(
        count(html, "//div/comment()[contains(.,'wikipage start')]"),
        1
    );
    assert_eq!(count(html, "//div[@class='page']/text()"), 3);
}

#[test]
fn class_tests_behave_as_written() {
    let html = "<div class=' post  sticky'>a</div><div class='postbody'>b</div>";
    assert_eq!(count(html, "//div[contains(@class,'post')]"), 2);
    assert_eq!(
        count(
            html,
            "//div[contains(concat(' ',normalize-space(@class),' '),' post ')]"
        ),
        1
    );
}

#[test]
fn extracted_text_separates_blocks_and_skips_scripts() {
    let html = "<div id='b'><p>one</p><p>two<br>three</p><script>var x;</script><style>p{}</style> <b>four</b>five</div>";
    assert_eq!(
        texts(html, "//div[@id='b']"),
        vec!["one two three fourfive"]
    );
    assert_eq!(texts(html, "//div/@id"), vec!["b"]);
    // The same block elements as the page walk's text blocks: form controls included.
    let form = "<form><select><option>red</option><option>blue</option></select><button>Go</button></form>";
    assert_eq!(texts(form, "//form"), vec!["red blue Go"]);
}

#[test]
fn results_come_in_document_order() {
    let mut html = String::from("<ul>");
    for i in 0..50 {
        html.push_str(&format!("<li><span>{i}</span></li>"));
    }
    html.push_str("</ul>");
    let got = texts(&html, "//li/span | //li");
    assert_eq!(got.len(), 100);
    let spans: Vec<String> = got.iter().step_by(2).cloned().collect();
    let want: Vec<String> = (0..50).map(|i| i.to_string()).collect();
    assert_eq!(spans, want);
}

#[test]
fn hostile_nesting_is_capped_and_stays_fast() {
    let html = format!("{}<a href='/deep'>deep</a>", "<div>".repeat(40_000));
    let t = std::time::Instant::now();
    let pkg = html_package(&html);
    let dom = Dom::new(&pkg);
    let divs = dom.elements();
    assert!(divs < 20_000, "{divs} elements kept");
    let x = xpath::compile("//div[@id='none']").unwrap();
    assert!(xpath::nodes(&x, &Context::new(), dom.doc.root().into()).is_empty());
    assert!(t.elapsed().as_secs() < 10, "took {:?}", t.elapsed());
}
