//! How much of a page is read for its text, derived from the spec once and stored with the
//! index, so a rebuild reads pages exactly as the crawl that wrote them did.

use crate::index::IndexError;
use crate::parse::ParseLimits;
use crate::spec::Spec;
use std::path::Path;

/// How much of a page is read for its text, the same in the live crawl and in a rebuild, so
/// rebuilt documents equal the ones written live: derived from the spec once
/// ([`TextLimits::from_spec`]) and stored with the index ([`TextLimits::save`]), so that
/// `magpie index rebuild` reads the limits the crawl used, not a spec that may have changed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TextLimits {
    /// Cap on the decoded body handed to the HTML parser.
    pub max_decoded_bytes: usize,
    /// Parser limits.
    pub parse: ParseLimits,
}

/// The file in an index folder that holds the limits its documents were made with.
const TEXT_LIMITS_FILE: &str = "text-limits.json";

impl Default for TextLimits {
    /// The limits of a crawl with the default spec.
    fn default() -> Self {
        TextLimits {
            max_decoded_bytes: 20 << 20,
            parse: ParseLimits {
                max_html_bytes: crate::parse::MAX_HTML_BYTES,
                max_links: 5_000,
                max_url_len: 2048,
                text: true,
            },
        }
    }
}

impl TextLimits {
    /// The limits the crawl pipeline uses for this spec (text collected; the pipeline turns it
    /// off when nothing reads it).
    pub fn from_spec(spec: &Spec) -> TextLimits {
        let l = &spec.limits;
        TextLimits {
            max_decoded_bytes: (l.max_bytes_per_page as usize).clamp(1 << 20, 64 << 20),
            parse: ParseLimits {
                max_html_bytes: crate::parse::MAX_HTML_BYTES,
                max_links: l.max_links_per_page,
                max_url_len: l.max_url_length,
                text: true,
            },
        }
    }

    /// Stores the limits in the index folder `dir` (written whole or not at all).
    pub fn save(&self, dir: &Path) -> Result<(), IndexError> {
        let path = dir.join(TEXT_LIMITS_FILE);
        let json = serde_json::to_vec_pretty(self).map_err(|e| IndexError::Damaged {
            what: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, json)
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|source| IndexError::Io { path, source })
    }

    /// The limits stored in the index folder `dir`; `None` when none were stored (an index
    /// made before they were). A file that does not parse is damage, not a default.
    pub fn load(dir: &Path) -> Result<Option<TextLimits>, IndexError> {
        let path = dir.join(TEXT_LIMITS_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(IndexError::Io { path, source }),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| IndexError::Damaged {
                what: path.display().to_string(),
                reason: format!("{e}; delete it to take the limits from the crawl's spec.json"),
            })
    }
}
