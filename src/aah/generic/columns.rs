//! Column headers of a board index or a topic list ("Topics", "Posts", "Last Post"), whether
//! the page draws them as a table's `<th>` cells (phpBB, PyBBM) or as a row of `<div>`s
//! (FlaskBB's Bootstrap grid): evidence of a forum, and of a list where it is the content's.

use ego_tree::NodeRef;
use scraper::Node;

use super::name;
use super::page::Page;

/// The words of a forum's list columns.
const COLUMNS: [&str; 6] = [
    "topics",
    "posts",
    "replies",
    "views",
    "last post",
    "threads",
];

/// Cells of a header row, at most: a wider row is content, not a header.
const MAX_CELLS: usize = 8;

/// Characters of a header cell, at most.
const MAX_CELL_CHARS: usize = 24;

/// How many distinct forum column words head columns under `root`: the texts of `<th>` cells,
/// and of the cells of a row of three to [`MAX_CELLS`] short elements. Elements for which
/// `skip` holds (hidden, furniture) and everything in them are not read.
pub(super) fn forum_columns(
    page: &Page<'_>,
    root: NodeRef<'_, Node>,
    skip: &dyn Fn(NodeRef<'_, Node>) -> bool,
) -> usize {
    let cell = |n: NodeRef<'_, Node>| -> Option<String> {
        let t = page.text(n).trim().to_lowercase();
        (t.chars().count() <= MAX_CELL_CHARS).then_some(t)
    };
    let mut found = [false; COLUMNS.len()];
    let mut mark = |texts: &[String]| {
        for (f, w) in found.iter_mut().zip(COLUMNS) {
            *f |= texts.iter().any(|t| t == w);
        }
    };
    // In document order, leaving out what `skip` holds for and all inside it, each element
    // visited once.
    let mut stack = vec![root];
    let mut rows = 0;
    while let Some(n) = stack.pop() {
        if rows > 2_000 {
            break;
        }
        if skip(n) {
            continue;
        }
        let cells: Vec<_> = n.children().filter(|c| c.value().is_element()).collect();
        stack.extend(cells.iter().rev());
        if name(n) == "th" {
            if let Some(t) = cell(n) {
                mark(&[t]);
            }
            continue;
        }
        if !(3..=MAX_CELLS).contains(&cells.len()) || name(n) == "tr" {
            continue;
        }
        rows += 1;
        let texts: Option<Vec<String>> = cells.iter().map(|c| cell(*c)).collect();
        if let Some(texts) = texts {
            // A header row: at least two of its cells name forum columns.
            if COLUMNS
                .iter()
                .filter(|w| texts.iter().any(|t| t == *w))
                .count()
                >= 2
            {
                mark(&texts);
            }
        }
    }
    found.iter().filter(|f| **f).count()
}
