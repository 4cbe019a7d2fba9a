//! The XPath tester behind the cockpit's knowledge-base page: runs one expression, checked as a
//! knowledge-base expression is, on a page converted exactly as the helper converts pages, and
//! returns an outline of the page with the matched nodes flagged, so archivists can debug a
//! `kb/` rule on a real capture.

use super::dom::{html_package, node_text};
use super::xpath::{compile, eval};
use sxd_document::dom::{ChildOfElement, Element};
use sxd_xpath::nodeset::Node as XNode;
use sxd_xpath::{Context, Value};

/// Outline lines kept at most (a page's first elements); matches beyond still count.
pub const MAX_LINES: usize = 5000;
/// Selected nodes listed at most; all are counted.
pub const MAX_MATCHES: usize = 1000;
/// Attributes shown per start tag in the outline.
const MAX_ATTRIBUTES: usize = 12;
/// Characters of text shown per outline line or match.
const SNIPPET: usize = 160;

/// One line of the page outline: an element (its start tag) or a text node.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OutlineLine {
    /// Nesting depth.
    pub depth: usize,
    /// `<tag attr="...">` or the text, shortened.
    pub text: String,
    /// Whether the expression selected this node (or one of its attributes).
    pub matched: bool,
}

/// One selected node.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct XPathMatch {
    /// `element`, `attribute`, `text`, ...
    pub kind: String,
    /// Element or attribute name.
    pub name: String,
    /// Its text as knowledge-base extraction would take it, shortened.
    pub text: String,
}

/// What an expression gave on a page.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct XPathOutcome {
    /// How many nodes the expression selected.
    pub selected: usize,
    /// The first [`MAX_MATCHES`] selected nodes (empty for a non-node-set value).
    pub matches: Vec<XPathMatch>,
    /// The value, when not a node set (`true`, `3`, `"text"`).
    pub scalar: Option<String>,
    /// The page outline with matched nodes flagged.
    pub outline: Vec<OutlineLine>,
}

fn shorten(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match s.char_indices().nth(SNIPPET) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

fn start_tag(e: Element<'_>) -> String {
    let mut t = format!("<{}", e.name().local_part());
    let attributes = e.attributes();
    for a in attributes.iter().take(MAX_ATTRIBUTES) {
        t.push_str(&format!(
            " {}=\"{}\"",
            a.name().local_part(),
            shorten(a.value())
        ));
    }
    if attributes.len() > MAX_ATTRIBUTES {
        t.push_str(&format!(" …{} more", attributes.len() - MAX_ATTRIBUTES));
    }
    t.push('>');
    t
}

/// Runs `expr` on `html`; an error says why the expression is refused or failed.
pub fn test_xpath(html: &str, expr: &str) -> Result<XPathOutcome, String> {
    let xpath = compile(expr.trim())?;
    let package = html_package(html);
    let doc = package.as_document();
    let ctx = Context::new();
    let value = eval(&xpath, &ctx, doc.root().into())?;
    let (nodes, scalar): (Vec<XNode<'_>>, Option<String>) = match value {
        Value::Nodeset(ns) => (ns.document_order(), None),
        Value::Boolean(b) => (vec![], Some(b.to_string())),
        Value::Number(n) => (vec![], Some(n.to_string())),
        Value::String(s) => (vec![], Some(format!("{s:?}"))),
    };
    let matches = nodes
        .iter()
        .take(MAX_MATCHES)
        .map(|n| {
            let (kind, name) = match n {
                XNode::Element(e) => ("element", e.name().local_part().to_string()),
                XNode::Attribute(a) => ("attribute", a.name().local_part().to_string()),
                XNode::Text(_) => ("text", String::new()),
                XNode::Comment(_) => ("comment", String::new()),
                XNode::Root(_) => ("document", String::new()),
                _ => ("other", String::new()),
            };
            XPathMatch {
                kind: kind.to_string(),
                name,
                text: shorten(&node_text(*n)),
            }
        })
        .collect();
    // Looked up once per outline line: a set, not a scan of every match. Nodes hash by their
    // identity in the document (clippy sees the document's interior cells), which holds still.
    #[allow(clippy::mutable_key_type)]
    let chosen: std::collections::HashSet<XNode<'_>> = nodes
        .iter()
        .map(|m| match m {
            XNode::Attribute(a) => a.parent().map_or(*m, XNode::Element),
            _ => *m,
        })
        .collect();
    let selected = |n: XNode<'_>| chosen.contains(&n);
    let mut outline = Vec::new();
    let mut stack: Vec<(ChildOfElement<'_>, usize)> = doc
        .root()
        .children()
        .into_iter()
        .rev()
        .filter_map(|c| c.element().map(|e| (ChildOfElement::Element(e), 0)))
        .collect();
    while let Some((node, depth)) = stack.pop() {
        if outline.len() >= MAX_LINES {
            break;
        }
        match node {
            ChildOfElement::Element(e) => {
                outline.push(OutlineLine {
                    depth,
                    text: start_tag(e),
                    matched: selected(XNode::Element(e)),
                });
                for c in e.children().into_iter().rev() {
                    stack.push((c, depth + 1));
                }
            }
            ChildOfElement::Text(t) if !t.text().trim().is_empty() => {
                outline.push(OutlineLine {
                    depth,
                    text: shorten(t.text()),
                    matched: selected(XNode::Text(t)),
                });
            }
            _ => {}
        }
    }
    Ok(XPathOutcome {
        selected: nodes.len(),
        matches,
        scalar,
        outline,
    })
}

/// What the cockpit's tester sends to `magpie xpath-test`, the child process it runs each
/// evaluation in (so an evaluation past its budget is killed, not left running).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct TestRequest {
    /// The expression.
    pub expr: String,
    /// The page.
    pub html: String,
}

/// `magpie xpath-test`: reads one [`TestRequest`] as JSON from `input`, writes the outcome as
/// JSON (`{"Ok": ...}` or `{"Err": "why"}`) to `output`.
pub fn run_request(input: impl std::io::Read, output: impl std::io::Write) -> std::io::Result<()> {
    let outcome = serde_json::from_reader::<_, TestRequest>(input)
        .map_err(|e| format!("the request is not a tester request: {e}"))
        .and_then(|r| test_xpath(&r.html, &r.expr));
    serde_json::to_writer(output, &outcome).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<html><head><title>T</title></head><body>
        <div class="post"><a href="/a">First</a></div>
        <div class="post"><a href="/b">Second <b>bold</b></a></div>
        <p>other</p></body></html>"#;

    #[test]
    fn matched_elements_are_listed_and_flagged() {
        let out = test_xpath(PAGE, "//div[@class='post']/a").unwrap();
        assert_eq!(out.matches.len(), 2);
        assert_eq!(out.matches[0].name, "a");
        assert_eq!(out.matches[1].text, "Second bold");
        let flagged: Vec<&str> = out
            .outline
            .iter()
            .filter(|l| l.matched)
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(flagged, vec!["<a href=\"/a\">", "<a href=\"/b\">"]);
        assert!(out.outline.iter().any(|l| l.text == "other" && !l.matched));
    }

    #[test]
    fn attributes_flag_their_element_and_scalars_are_values() {
        let out = test_xpath(PAGE, "//a/@href").unwrap();
        assert_eq!(out.matches[0].kind, "attribute");
        assert_eq!(out.matches[0].text, "/a");
        assert_eq!(out.outline.iter().filter(|l| l.matched).count(), 2);
        let out = test_xpath(PAGE, "count(//div)").unwrap();
        assert_eq!(out.scalar.as_deref(), Some("2"));
        assert!(out.matches.is_empty());
    }

    #[test]
    fn bad_expressions_say_why() {
        assert!(test_xpath(PAGE, "//div[").is_err());
        assert!(test_xpath(PAGE, "$x").is_err());
        assert!(test_xpath("", "//p").unwrap().matches.is_empty());
    }
}
