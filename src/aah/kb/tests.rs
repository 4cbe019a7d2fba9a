//! Loading the knowledge base: a good file, and each kind of defect reported with its file, line
//! and reason.

use super::*;

const GOOD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<application id="demo" name="Demo" category="forum">
  <description>A demo
     board.</description>
  <detect>
    <xpath expr="//body[@id='demo-board']"/>
    <header name="X-Powered-By" contains="DemoBoard"/>
  </detect>
  <level id="thread" kind="terminal">
    <detect match="all">
      <xpath expr="//div[contains(@class,'post')]"/>
      <url matches="/t/\d+"/>
    </detect>
    <object type="post" repeat="true" root="//div[contains(@class,'post')]">
      <field name="body" xpath=".//div[@class='text']" required="true" min-length="2"/>
    </object>
    <follow name="next-page" xpath="//a[@rel='next']" boost="0.4"/>
  </level>
  <skip name="print" xpath="//a[contains(@href,'print')]"/>
  <skip-url name="login" contains="/login"/>
</application>
"#;

fn load_one(text: &str) -> Result<KnowledgeBase, AahError> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("demo.xml"), text).unwrap();
    KnowledgeBase::load(dir.path())
}

/// The (line, reason) of a defect, after checking the file is named.
fn defect(text: &str) -> (usize, String) {
    match load_one(text) {
        Err(AahError::Kb { file, line, reason }) => {
            assert!(file.ends_with("demo.xml"), "{}", file.display());
            (line, reason)
        }
        other => panic!("expected a knowledge-base error, got {other:?}"),
    }
}

#[test]
fn a_good_file_loads_completely() {
    let kb = load_one(GOOD).unwrap();
    let app = kb.app("demo").unwrap();
    assert_eq!(app.category, Category::Forum);
    assert_eq!(app.description, "A demo board.");
    assert_eq!(app.levels.len(), 1);
    let l = &app.levels[0];
    assert!(l.detect.all);
    assert_eq!(l.objects[0].fields[0].min_len, 2);
    assert!(l.objects[0].repeat && !l.objects[0].required);
    assert_eq!(l.nav[0].action, NavAction::Follow(Some(0.4)));
    assert_eq!(app.nav[0].action, NavAction::Skip);
    assert!(app.skip_urls[0].pattern.is_match("https://x/login?next=1"));
    match &app.detect.conditions[1] {
        Condition::Header { name, value } => {
            assert_eq!(name, "x-powered-by");
            assert!(value.is_match("DemoBoard 2"));
        }
        c => panic!("{c:?}"),
    }
    // Pre-filter: the page must mention the body id for the XPath condition to be evaluated.
    let e = match &app.detect.conditions[0] {
        Condition::XPath(e) => e,
        c => panic!("{c:?}"),
    };
    assert!(kb.scan("<body id='demo-board'>").may_match(e));
    assert!(!kb.scan("<body id='other'>").may_match(e));
}

#[test]
fn malformed_xml_names_the_line() {
    // </level> forgotten: the mismatch is found at </application>, line 20.
    let text = GOOD.replace("  </level>\n", "");
    let (line, reason) = defect(&text);
    assert!(reason.contains("not well-formed XML"), "{reason}");
    assert_eq!(line, 20);
    let (_, reason) = defect(&GOOD.replace("name=\"print\"", "name=\"print"));
    assert!(reason.contains("not well-formed XML"), "{reason}");
}

#[test]
fn bad_xpath_names_the_element_line() {
    let text = GOOD.replace(".//div[@class='text']", ".//div[@class='text'");
    let (line, reason) = defect(&text);
    assert_eq!(line, 15);
    assert!(
        reason.contains("bad XPath") && reason.contains(".//div[@class='text'"),
        "{reason}"
    );
}

#[test]
fn unbound_prefix_is_refused_at_load() {
    let text = GOOD.replace("//a[@rel='next']", "//a[@rel='next']/@og:url");
    let (line, reason) = defect(&text);
    assert_eq!(line, 17);
    assert!(reason.contains("unbound namespace prefix `og`"), "{reason}");
}

#[test]
fn unknown_category_is_refused() {
    let (line, reason) = defect(&GOOD.replace("category=\"forum\"", "category=\"shop\""));
    assert_eq!(line, 2);
    assert!(reason.contains("unknown category \"shop\""), "{reason}");
}

#[test]
fn doctype_and_entities_are_never_resolved() {
    let evil = GOOD.replace(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<?xml version=\"1.0\"?>\n<!DOCTYPE application [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n",
    );
    let (line, reason) = defect(&evil);
    assert_eq!(line, 2);
    assert!(reason.contains("DOCTYPE"), "{reason}");
    let (_, reason) = defect(&GOOD.replace("A demo", "A &x; demo"));
    assert!(reason.contains("unknown entity &x;"), "{reason}");
    let (_, reason) = defect(&GOOD.replace("'demo-board'", "'&x;'"));
    assert!(reason.contains("attribute `expr`"), "{reason}");
    // The predefined entities and character references are fine.
    assert!(load_one(&GOOD.replace("A demo", "A &amp; &#x41; demo")).is_ok());
}

#[test]
fn typos_are_errors_not_silent_rules() {
    let (line, reason) = defect(&GOOD.replace("boost=\"0.4\"", "bost=\"0.4\""));
    assert_eq!(line, 17);
    assert!(reason.contains("unknown attribute `bost`"), "{reason}");
    let (_, reason) = defect(&GOOD.replace("<skip-url", "<skipurl"));
    assert!(reason.contains("unknown element <skipurl>"), "{reason}");
    let (_, reason) = defect(&GOOD.replace("boost=\"0.4\"", "boost=\"2\""));
    assert!(reason.contains("boost"), "{reason}");
    let (_, reason) = defect(&GOOD.replace("matches=\"/t/\\d+\"", "matches=\"/t/(\""));
    assert!(reason.contains("bad regular expression"), "{reason}");
}

#[test]
fn intermediate_levels_only_navigate() {
    let (line, reason) = defect(&GOOD.replace("kind=\"terminal\"", "kind=\"intermediate\""));
    assert_eq!(line, 14);
    assert!(
        reason.contains("intermediate levels only navigate"),
        "{reason}"
    );
}

#[test]
fn duplicate_application_ids_name_both_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.xml"), GOOD).unwrap();
    std::fs::write(dir.path().join("b.xml"), GOOD).unwrap();
    let err = KnowledgeBase::load(dir.path()).unwrap_err().to_string();
    assert!(err.contains("b.xml:1:") && err.contains("a.xml"), "{err}");
}

#[test]
fn empty_folder_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = KnowledgeBase::load(dir.path()).unwrap_err();
    assert!(matches!(err, AahError::Empty { .. }));
}
