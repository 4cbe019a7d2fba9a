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

/// The title parts and their colon pieces, lowercased: what the host's titles share.
pub(super) fn title_segments(parts: &[&str]) -> HashSet<String> {
    parts
        .iter()
        .flat_map(|p| std::iter::once(*p).chain(colon_pieces(p)))
        .map(str::to_lowercase)
        .collect()
}

/// The core of a title: its parts that are not the site's name, and of a part holding the
/// site's name before its first colon or after its last, the rest as written ("Field Notes:
/// Winter visit: the ford" keeps the title's own colon); a name between colons leaves the
/// other pieces.
pub(super) fn title_core(parts: &[&str], host: &HostModel) -> String {
    let site = |p: &str| host.is_site_name(&p.to_lowercase());
    let mut core: Vec<&str> = Vec::new();
    for part in parts.iter().copied().filter(|p| !site(p)) {
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
            let parts = title_parts(t);
            let url = Url::parse("http://w/x").expect("a URL");
            host.observe(
                &url,
                None,
                &HashSet::new(),
                &title_segments(&parts),
                &[0; 6],
                Shape::of(&url),
            );
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
}
