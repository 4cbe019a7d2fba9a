//! Bounds on a search query string, checked before tantivy's parser sees it.
//!
//! tantivy's query parser is recursive: 3,000 nested parentheses (6 KB) overflow a thread's
//! stack and abort the whole process, with every crawl it runs. Every route that takes a query
//! (search, export preview, export, the cockpit's search and export pages) goes through
//! [`check`], which bounds length, nesting and the number of terms, so that parsing and running
//! the query take bounded stack and time. Real queries are far inside these bounds.

/// Longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 1024;
/// Deepest nesting of parentheses accepted.
pub const MAX_QUERY_DEPTH: usize = 8;
/// Most terms (words, phrases, operators) accepted.
pub const MAX_QUERY_TERMS: usize = 64;

/// Why a query string is refused before parsing; the message says what to change.
pub fn check(q: &str) -> Result<(), String> {
    if q.len() > MAX_QUERY_BYTES {
        return Err(format!(
            "the query has {} bytes; at most {MAX_QUERY_BYTES} are accepted",
            q.len()
        ));
    }
    if let Some(c) = q
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(format!("the query contains the control character {c:?}"));
    }
    let (mut depth, mut deepest, mut quoted) = (0usize, 0usize, false);
    for c in q.chars() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' if !quoted => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_QUERY_DEPTH {
        return Err(format!(
            "the query nests parentheses {deepest} deep; at most {MAX_QUERY_DEPTH} are accepted"
        ));
    }
    // Operators glued to words (`+a`, `-(b`) count with them; runs of punctuation count as one.
    let terms = q
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter(|t| !t.is_empty())
        .count();
    if terms > MAX_QUERY_TERMS {
        return Err(format!(
            "the query has {terms} terms; at most {MAX_QUERY_TERMS} are accepted"
        ));
    }
    Ok(())
}

/// The start of a refused query, to name it in an error without echoing kilobytes back.
pub fn excerpt(q: &str) -> String {
    // Characters of the query shown.
    const SHOWN: usize = 80;
    match q.char_indices().nth(SHOWN) {
        Some((i, _)) => format!("{}…", &q[..i]),
        None => q.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_queries_pass() {
        for q in [
            "",
            "solar power",
            "\"wind turbine\" -offshore",
            "title:energy AND (solar OR (wind AND (tidal OR wave)))",
            "status:404 host:example.org",
        ] {
            assert_eq!(check(q), Ok(()), "{q}");
        }
    }

    #[test]
    fn long_deep_wide_or_binary_queries_are_refused_with_the_reason() {
        let deep = format!("{}a{}", "(".repeat(3000), ")".repeat(3000));
        let err = check(&deep).unwrap_err();
        assert!(err.contains("bytes"), "{err}");
        let nine = format!("{}a{}", "(".repeat(9), ")".repeat(9));
        assert!(check(&nine)
            .unwrap_err()
            .contains("nests parentheses 9 deep"));
        let eight = format!("{}a{}", "(".repeat(8), ")".repeat(8));
        assert_eq!(check(&eight), Ok(()));
        // Parentheses inside a phrase are words, not nesting.
        let phrase = format!("\"{}\"", "(".repeat(20));
        assert_eq!(check(&phrase), Ok(()));
        let wide = vec!["w"; 65].join(" ");
        assert!(check(&wide).unwrap_err().contains("65 terms"));
        assert!(check("a\0b").unwrap_err().contains("control character"));
    }

    #[test]
    fn excerpts_are_short_and_cut_on_characters() {
        assert_eq!(excerpt("abc"), "abc");
        let long = "é".repeat(200);
        let e = excerpt(&long);
        assert_eq!(e.chars().count(), 81);
        assert!(e.ends_with('…'));
    }
}
