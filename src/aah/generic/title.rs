//! What a page's `<title>` says once the site's name is taken out: its parts (split at
//! ` - `, ` | `, brackets, ...), the pieces of a part around a colon glued to a word, and the
//! core left when the parts (or pieces) that repeat over the host's titles are dropped.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::host::HostModel;

static TITLE_SEPARATORS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\s+(?:[-|\x{2013}\x{2014}\x{00b7}:\x{00bb}\x{00ab}/]|::)\s+|\s*[\[\]]\s*")
        .expect("a valid literal pattern")
});

/// The parts of a `<title>` ("Heron - Field Notes" has two).
pub(super) fn title_parts(title: &str) -> Vec<&str> {
    TITLE_SEPARATORS
        .split(title)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

static TITLE_COLON: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r":\s+").expect("a valid literal pattern"));

/// The pieces of a title part around a colon glued to a word ("Swift: Field Notes"): a
/// site's name can sit there as well as behind a dash, but so can a title's own colon
/// ("Rust: a language"), so a piece is left out only when it is the site's name.
fn colon_pieces(part: &str) -> Vec<&str> {
    TITLE_COLON
        .split(part)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// A part ending in a bracketed name, split there: "Heron (Field Notes)" is ("Heron", "Field
/// Notes"), GNU's "node (manual)". Brackets that are the title's own ("Mercury (planet)", "the
/// wren (11)") are split the same way, so the tail is left out only when it is the site's name.
fn bracket_tail(part: &str) -> Option<(&str, &str)> {
    let inner = part.strip_suffix(')')?;
    let open = inner.rfind('(')?;
    let (head, name) = (inner[..open].trim_end(), inner[open + 1..].trim());
    let spaced = inner[..open].ends_with(char::is_whitespace);
    (spaced && !head.is_empty() && !name.is_empty() && !name.contains(['(', ')']))
        .then_some((head, name))
}

/// The title parts, their colon pieces and bracketed tails, lowercased: what the host's
/// titles share.
pub(super) fn title_segments(parts: &[&str]) -> HashSet<String> {
    let mut segments = HashSet::new();
    let mut add = |s: &str| {
        for piece in std::iter::once(s).chain(colon_pieces(s)) {
            segments.insert(piece.to_lowercase());
        }
    };
    for part in parts {
        add(part);
        if let Some((head, name)) = bracket_tail(part) {
            add(head);
            add(name);
        }
    }
    segments
}

/// The core of a title: its parts that are not the site's name, and of a part holding the
/// site's name before its first colon or after its last, the rest as written ("Field Notes:
/// Winter visit: the ford" keeps the title's own colon); a name between colons leaves the
/// other pieces; a part ending in the site's name in brackets keeps what comes before.
pub(super) fn title_core(parts: &[&str], host: &HostModel) -> String {
    let site = |p: &str| host.is_site_name(&p.to_lowercase());
    let mut core: Vec<&str> = Vec::new();
    for part in parts.iter().copied().filter(|p| !site(p)) {
        let part = match bracket_tail(part) {
            Some((head, name)) if site(name) => head,
            _ => part,
        };
        let pieces = colon_pieces(part);
        if pieces.len() < 2 || !pieces.iter().any(|p| site(p)) {
            core.push(part);
            continue;
        }
        let colons: Vec<_> = TITLE_COLON.find_iter(part).collect();
        let (first, last) = (colons[0], colons[colons.len() - 1]);
        if site(part[..first.start()].trim()) {
            core.push(part[first.end()..].trim());
        } else if site(part[last.end()..].trim()) {
            core.push(part[..last.start()].trim());
        } else {
            core.extend(pieces.into_iter().filter(|p| !site(p)));
        }
    }
    core.join(" - ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aah::generic::template::Shape;
    use url::Url;

    #[test]
    fn a_site_name_after_a_colon_leaves_the_title_and_a_title_s_own_colon_stays() {
        let mut host = HostModel::default();
        for t in [
            "Heron: Field Notes",
            "Swift: Field Notes",
            "Rust: a language - Field Notes",
            "Field Notes: Kite",
        ] {
            observe(&mut host, t);
        }
        assert_eq!(title_core(&title_parts("Arch: Field Notes"), &host), "Arch");
        assert_eq!(
            title_core(&title_parts("Rust: a language - Field Notes"), &host),
            "Rust: a language"
        );
        assert_eq!(
            title_core(&title_parts("Field Notes: Winter visit: the ford"), &host),
            "Winter visit: the ford",
            "the name before the first colon, the title's own colon kept"
        );
    }

    fn observe(host: &mut HostModel, title: &str) {
        let url = Url::parse("http://w/x").expect("a URL");
        let segments = title_segments(&title_parts(title));
        host.observe(
            &url,
            None,
            &HashSet::new(),
            &segments,
            &[0; 6],
            Shape::of(&url),
        );
    }

    #[test]
    fn a_site_name_in_brackets_at_the_end_leaves_the_title_and_a_title_s_own_brackets_stay() {
        let mut host = HostModel::default();
        for t in [
            "Swift: Field Notes (Wiki)",
            "Kite: Field Notes (Wiki)",
            "Crow: Field Notes (Wiki)",
            "Mercury (planet) (Wiki)",
        ] {
            observe(&mut host, t);
        }
        let core = |t: &str| title_core(&title_parts(t), &host);
        assert_eq!(core("Heron: Field Notes (Wiki)"), "Heron", "both names");
        assert_eq!(
            core("Winter visit - the wren (11) (Wiki)"),
            "Winter visit - the wren (11)"
        );
        assert_eq!(core("Mercury (planet) (Wiki)"), "Mercury (planet)");
        assert_eq!(
            core("Venus (planet)"),
            "Venus (planet)",
            "not the site's name"
        );
    }
}
