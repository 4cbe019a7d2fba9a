//! Language identification per site: a page whose declared language detection has confirmed on
//! its host several times running is taken at its word, with a spot check every few pages.
//!
//! whatlang's cost is fixed, not proportional to the sample: it compares the sample with the
//! 300-trigram profile of every language of the script (about 40 for Latin), some 0.06–0.1 ms a
//! page, the largest single cost of a topical crawl. Sites declare their language in a template,
//! so on most hosts the declaration is either always right or always wrong. A wrong template is
//! caught by the first pages (detection disagrees, so trust is never given); a site that is
//! right keeps being checked on one page in [`RECHECK_EVERY`], and one disagreement (or a check
//! on which whatlang is unsure) withdraws trust until [`TRUST_AFTER`] pages in a row agree
//! again. Pages without a declaration are always detected, and so is every page the topic
//! learns from (`ReferenceVector::of` reads pages without a host).
//!
//! The memory is per thread (each processor thread learns its hosts on its own) and bounded, so
//! which page of a host is checked depends on the order pages are processed in; the language of
//! a page that declares the same language as the rest of its site does not.

use super::lang::{identify, normalise, Detected, LangSource};
use super::terms::IdMap;
use std::cell::RefCell;
use std::hash::{BuildHasher, RandomState};

/// Pages in a row on which detection must agree with the declaration before it is trusted.
pub(crate) const TRUST_AFTER: u8 = 3;
/// Once trusted, one page in this many is still detected.
pub(crate) const RECHECK_EVERY: u8 = 16;
/// Most (host, declared language) pairs remembered per thread.
const MAX_SITES: usize = 4096;

/// What a thread knows of one (host, declared language) pair.
#[derive(Debug, Clone, Copy, Default)]
struct Trust {
    /// Pages in a row on which detection agreed with the declaration (saturating).
    streak: u8,
    /// Pages taken at their word since the last check.
    unchecked: u8,
}

thread_local! {
    /// Keyed by the seeded hash of (host, declared language), which the map uses as is.
    static SITES: RefCell<(RandomState, IdMap<Trust>)> =
        RefCell::new((RandomState::new(), IdMap::default()));
}

/// The language of a page of `host` (see the module docs); `sample` and `declared` as for
/// [`identify`].
pub(crate) fn identify_on(host: &str, sample: &str, declared: Option<&str>) -> Detected {
    let Some(decl) = declared.and_then(normalise) else {
        return identify(sample, declared);
    };
    SITES.with(|sites| {
        let mut sites = sites.borrow_mut();
        let (state, map) = &mut *sites;
        let key = state.hash_one((host, &*decl));
        if let Some(t) = map.get_mut(&key) {
            if t.streak >= TRUST_AFTER && t.unchecked + 1 < RECHECK_EVERY {
                t.unchecked += 1;
                return Detected {
                    lang: Some(decl),
                    confidence: 0.0,
                    source: LangSource::Confirmed,
                };
            }
        }
        let d = identify(sample, declared);
        if d.source == LangSource::Detector && d.lang == Some(decl) {
            if map.len() >= MAX_SITES && !map.contains_key(&key) {
                map.clear();
            }
            let t = map.entry(key).or_default();
            t.streak = t.streak.saturating_add(1);
            t.unchecked = 0;
        } else {
            map.remove(&key);
        }
        d
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EN: &str = "The wind farm off the coast now supplies enough electricity for the whole \
                      town, and the council plans a second one next to the harbour.";
    const FR: &str = "Le parc éolien au large de la côte fournit désormais assez d'électricité \
                      pour toute la ville, et la mairie prévoit un second parc près du port.";

    /// Runs each test on a fresh thread, so the thread's memory starts empty.
    fn fresh<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::spawn(f).join().expect("test thread")
    }

    #[test]
    fn trust_comes_after_agreement_and_is_spot_checked() {
        fresh(|| {
            for _ in 0..TRUST_AFTER {
                let d = identify_on("a.example", EN, Some("en-GB"));
                assert_eq!(d.source, LangSource::Detector);
                assert_eq!(d.lang.as_deref(), Some("en"));
            }
            // Trusted now: a French page declared English is taken at its word ...
            for _ in 1..RECHECK_EVERY {
                let d = identify_on("a.example", FR, Some("en"));
                assert_eq!(
                    (d.source, d.lang.as_deref()),
                    (LangSource::Confirmed, Some("en"))
                );
                assert_eq!(d.confidence, 0.0);
            }
            // ... until the spot check, which detects it and withdraws trust.
            let d = identify_on("a.example", FR, Some("en"));
            assert_eq!(
                (d.source, d.lang.as_deref()),
                (LangSource::Detector, Some("fr"))
            );
            let d = identify_on("a.example", EN, Some("en"));
            assert_eq!(d.source, LangSource::Detector, "trust starts over");
        });
    }

    #[test]
    fn a_wrong_template_is_never_trusted() {
        fresh(|| {
            for _ in 0..3 * RECHECK_EVERY {
                let d = identify_on("b.example", FR, Some("en"));
                assert_eq!(
                    (d.source, d.lang.as_deref()),
                    (LangSource::Detector, Some("fr"))
                );
            }
        });
    }

    #[test]
    fn trust_is_per_host_and_per_declaration() {
        fresh(|| {
            for _ in 0..TRUST_AFTER {
                identify_on("c.example", EN, Some("en"));
            }
            assert_eq!(
                identify_on("c.example", FR, Some("en")).source,
                LangSource::Confirmed
            );
            let other_host = identify_on("d.example", FR, Some("en"));
            assert_eq!(other_host.lang.as_deref(), Some("fr"));
            let other_decl = identify_on("c.example", FR, Some("fr"));
            assert_eq!(other_decl.source, LangSource::Detector);
            let undeclared = identify_on("c.example", FR, None);
            assert_eq!(undeclared.lang.as_deref(), Some("fr"));
        });
    }

    #[test]
    fn unreliable_pages_neither_build_nor_keep_trust() {
        fresh(|| {
            for _ in 0..TRUST_AFTER - 1 {
                identify_on("e.example", EN, Some("en"));
            }
            // Too short to be reliable: the declaration is used, and the streak starts over.
            let d = identify_on("e.example", "ok", Some("en"));
            assert_eq!(
                (d.source, d.lang.as_deref()),
                (LangSource::Declared, Some("en"))
            );
            assert_eq!(
                identify_on("e.example", EN, Some("en")).source,
                LangSource::Detector
            );
            assert_eq!(
                identify_on("e.example", FR, Some("en")).source,
                LangSource::Detector
            );
        });
    }
}
