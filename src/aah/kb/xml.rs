//! The XML layer of knowledge-base files: quick-xml events to a small element tree with line
//! numbers. A DOCTYPE is refused outright and only XML's five predefined entities and character
//! references are accepted, so no external or expanding entity is ever resolved.

use std::path::Path;

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::Event;
use quick_xml::Reader;

use crate::aah::error::AahError;

/// An element as read, before interpretation.
pub(super) struct El {
    pub(super) name: String,
    pub(super) line: usize,
    pub(super) attrs: Vec<(String, String)>,
    pub(super) children: Vec<El>,
    pub(super) text: String,
}

/// 1-based line of a byte offset.
fn line_of(src: &str, pos: u64) -> usize {
    let end = (pos as usize).min(src.len());
    1 + src.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// Reads the element tree of a file.
pub(super) fn tree(src: &str, file: &Path) -> Result<El, AahError> {
    let mut reader = Reader::from_str(src);
    reader.config_mut().trim_text(false);
    let mut stack: Vec<El> = Vec::new();
    let mut root: Option<El> = None;
    loop {
        let start = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            AahError::kb(
                file,
                line_of(src, reader.error_position()),
                format!("not well-formed XML: {e}"),
            )
        })?;
        let line = line_of(src, start);
        match event {
            Event::DocType(_) => return Err(AahError::kb(
                file,
                line,
                "DOCTYPE declarations are refused: entities are never resolved in a knowledge base",
            )),
            Event::Start(e) => {
                let el = element(&e, line, file, &root)?;
                stack.push(el);
            }
            Event::Empty(e) => {
                let el = element(&e, line, file, &root)?;
                close(el, &mut stack, &mut root);
            }
            Event::End(_) => {
                if let Some(el) = stack.pop() {
                    close(el, &mut stack, &mut root);
                }
            }
            Event::Text(t) => {
                let text = t
                    .decode()
                    .map_err(|e| AahError::kb(file, line, format!("bad text: {e}")))?;
                push_text(&mut stack, &text, file, line)?;
            }
            Event::CData(t) => {
                let text = String::from_utf8_lossy(t.as_ref()).into_owned();
                push_text(&mut stack, &text, file, line)?;
            }
            Event::GeneralRef(r) => {
                let name = String::from_utf8_lossy(r.as_ref()).into_owned();
                let resolved = if let Some(c) = r.resolve_char_ref().map_err(|e| {
                    AahError::kb(file, line, format!("bad character reference: {e}"))
                })? {
                    c.to_string()
                } else if let Some(s) = resolve_predefined_entity(&name) {
                    s.to_owned()
                } else {
                    return Err(AahError::kb(
                        file,
                        line,
                        format!("unknown entity &{name}; (only &amp; &lt; &gt; &quot; &apos; and character references are allowed)"),
                    ));
                };
                push_text(&mut stack, &resolved, file, line)?;
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) => {}
        }
    }
    if !stack.is_empty() {
        return Err(AahError::kb(
            file,
            line_of(src, src.len() as u64),
            "unexpected end of file: an element is not closed",
        ));
    }
    root.ok_or_else(|| AahError::kb(file, 1, "no root element"))
}

/// An element's name and attributes (entity references in values resolved, XML's five
/// predefined ones and character references only).
fn element(
    e: &quick_xml::events::BytesStart<'_>,
    line: usize,
    file: &Path,
    root: &Option<El>,
) -> Result<El, AahError> {
    if root.is_some() {
        return Err(AahError::kb(file, line, "content after the root element"));
    }
    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
    let mut attrs = Vec::new();
    for a in e.attributes().with_checks(true) {
        let a =
            a.map_err(|err| AahError::kb(file, line, format!("bad attribute in <{name}>: {err}")))?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a.unescape_value().map_err(|err| {
            AahError::kb(
                file,
                line,
                format!("attribute `{key}` of <{name}>: {err} (only &amp; &lt; &gt; &quot; &apos; and character references are allowed)"),
            )
        })?;
        attrs.push((key, value.into_owned()));
    }
    Ok(El {
        name,
        line,
        attrs,
        children: Vec::new(),
        text: String::new(),
    })
}

fn close(el: El, stack: &mut [El], root: &mut Option<El>) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(el),
        None => *root = Some(el),
    }
}

fn push_text(stack: &mut [El], text: &str, file: &Path, line: usize) -> Result<(), AahError> {
    match stack.last_mut() {
        Some(el) => {
            el.text.push_str(text);
            Ok(())
        }
        None if text.trim().is_empty() => Ok(()),
        None => Err(AahError::kb(file, line, "text outside the root element")),
    }
}
