//! Language identification and the per-language text processing it selects (stopwords, stemmer).
//!
//! whatlang guesses the language of a sample of the body text; its guess is trusted only when
//! whatlang itself calls it reliable. Otherwise the page's declared language (`<html lang>` or
//! `Content-Language`) is used, and failing that the topic's first language (English when the
//! topic names none), so a short or empty page is still processed like the pages it is compared
//! with. Languages are named by ISO 639-1 codes where one exists (`en`, `zh`), else ISO 639-3.

use rust_stemmers::Algorithm;
use std::borrow::Cow;

use super::stopwords::stopwords;

/// Bytes of body text given to the language detector: its accuracy stops improving long before
/// this on ordinary prose. (Most of whatlang's cost is fixed, one pass over each language's
/// profile, so a smaller sample saves little; see `site_lang`.)
pub(crate) const LANG_SAMPLE_BYTES: usize = 2048;

/// whatlang's ISO 639-3 codes paired with ISO 639-1 codes.
const ISO3_TO_ISO1: &[(&str, &str)] = &[
    ("afr", "af"),
    ("aka", "ak"),
    ("amh", "am"),
    ("ara", "ar"),
    ("aze", "az"),
    ("bel", "be"),
    ("ben", "bn"),
    ("bul", "bg"),
    ("cat", "ca"),
    ("ces", "cs"),
    ("cmn", "zh"),
    ("cym", "cy"),
    ("dan", "da"),
    ("deu", "de"),
    ("ell", "el"),
    ("eng", "en"),
    ("epo", "eo"),
    ("est", "et"),
    ("fin", "fi"),
    ("fra", "fr"),
    ("guj", "gu"),
    ("heb", "he"),
    ("hin", "hi"),
    ("hrv", "hr"),
    ("hun", "hu"),
    ("hye", "hy"),
    ("ind", "id"),
    ("ita", "it"),
    ("jav", "jv"),
    ("jpn", "ja"),
    ("kan", "kn"),
    ("kat", "ka"),
    ("khm", "km"),
    ("kor", "ko"),
    ("lat", "la"),
    ("lav", "lv"),
    ("lit", "lt"),
    ("mal", "ml"),
    ("mar", "mr"),
    ("mkd", "mk"),
    ("mya", "my"),
    ("nep", "ne"),
    ("nld", "nl"),
    ("nob", "nb"),
    ("ori", "or"),
    ("pan", "pa"),
    ("pes", "fa"),
    ("pol", "pl"),
    ("por", "pt"),
    ("ron", "ro"),
    ("rus", "ru"),
    ("sin", "si"),
    ("slk", "sk"),
    ("slv", "sl"),
    ("sna", "sn"),
    ("spa", "es"),
    ("srp", "sr"),
    ("swe", "sv"),
    ("tam", "ta"),
    ("tel", "te"),
    ("tgl", "tl"),
    ("tha", "th"),
    ("tuk", "tk"),
    ("tur", "tr"),
    ("ukr", "uk"),
    ("urd", "ur"),
    ("uzb", "uz"),
    ("vie", "vi"),
    ("yid", "yi"),
    ("zul", "zu"),
];

/// Normalises a language tag (`en-GB`, `EN`, `eng`, `zh_Hant`) to the code used here: the
/// primary subtag, lowercased, as ISO 639-1 when one exists. `None` for anything that is not
/// two or three ASCII letters. Codes whatlang does not know are kept as written (lowercased),
/// so a page declared in such a language is still known not to be in a wanted one.
pub(crate) fn normalise(tag: &str) -> Option<Cow<'static, str>> {
    let primary = tag.trim().split(['-', '_']).next()?;
    if !(2..=3).contains(&primary.len()) || !primary.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let mut buf = [0u8; 3];
    let lower = &mut buf[..primary.len()];
    lower.copy_from_slice(primary.as_bytes());
    lower.make_ascii_lowercase();
    let lower = std::str::from_utf8(lower).ok()?;
    if let Some((_, iso1)) = ISO3_TO_ISO1
        .iter()
        .find(|(i3, i1)| *i3 == lower || *i1 == lower)
    {
        return Some(Cow::Borrowed(iso1));
    }
    Some(match lower {
        // Norwegian: the macrolanguage code means Bokmål in practice.
        "no" | "nor" => Cow::Borrowed("nb"),
        _ => Cow::Owned(lower.to_owned()),
    })
}

/// Where a page's language came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LangSource {
    /// whatlang, sure of its guess.
    Detector,
    /// The page's declaration, whatlang not being sure.
    Declared,
    /// The page's declaration, which detection has confirmed on its site (see `site_lang`).
    Confirmed,
    /// Neither: the page's language is unknown.
    Unknown,
}

impl LangSource {
    /// The name given in analysis records; `None` for an unknown language.
    pub(crate) fn name(self) -> Option<&'static str> {
        match self {
            LangSource::Detector => Some("detected"),
            LangSource::Declared => Some("declared"),
            LangSource::Confirmed => Some("confirmed"),
            LangSource::Unknown => None,
        }
    }
}

/// The outcome of language identification for one page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Detected {
    /// The language the page is processed as, if any could be established.
    pub lang: Option<Cow<'static, str>>,
    /// whatlang's confidence in its own guess (0 when it made none), even when that guess was
    /// not trusted.
    pub confidence: f64,
    /// Where `lang` came from.
    pub source: LangSource,
}

/// Identifies the language of `sample` (a prefix of the page text), falling back to `declared`.
pub(crate) fn identify(sample: &str, declared: Option<&str>) -> Detected {
    let info = whatlang::detect(sample);
    let confidence = info.as_ref().map_or(0.0, |i| i.confidence());
    if let Some(info) = info.filter(|i| i.is_reliable()) {
        if let Some(code) = normalise(info.lang().code()) {
            return Detected {
                lang: Some(code),
                confidence,
                source: LangSource::Detector,
            };
        }
    }
    let lang = declared.and_then(normalise);
    let source = if lang.is_some() {
        LangSource::Declared
    } else {
        LangSource::Unknown
    };
    Detected {
        lang,
        confidence,
        source,
    }
}

/// How text in one language is turned into terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Profile {
    /// Snowball stemmer, when one exists for the language.
    pub stemmer: Option<Algorithm>,
    /// Sorted stopword list (possibly empty).
    pub stopwords: &'static [&'static str],
}

impl Profile {
    /// The profile of a language code (as returned by [`normalise`]).
    pub(crate) fn of(lang: &str) -> Profile {
        let stemmer = match lang {
            "ar" => Some(Algorithm::Arabic),
            "da" => Some(Algorithm::Danish),
            "nl" => Some(Algorithm::Dutch),
            "en" => Some(Algorithm::English),
            "fi" => Some(Algorithm::Finnish),
            "fr" => Some(Algorithm::French),
            "de" => Some(Algorithm::German),
            "el" => Some(Algorithm::Greek),
            "hu" => Some(Algorithm::Hungarian),
            "it" => Some(Algorithm::Italian),
            "nb" => Some(Algorithm::Norwegian),
            "pt" => Some(Algorithm::Portuguese),
            "ro" => Some(Algorithm::Romanian),
            "ru" => Some(Algorithm::Russian),
            "es" => Some(Algorithm::Spanish),
            "sv" => Some(Algorithm::Swedish),
            "ta" => Some(Algorithm::Tamil),
            "tr" => Some(Algorithm::Turkish),
            _ => None,
        };
        Profile {
            stemmer,
            stopwords: stopwords(lang),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_normalise_to_iso_639_1() {
        let n = |t: &str| normalise(t).map(|c| c.into_owned());
        assert_eq!(n("en-GB").as_deref(), Some("en"));
        assert_eq!(n("DE").as_deref(), Some("de"));
        assert_eq!(n("eng").as_deref(), Some("en"));
        assert_eq!(n("zh_Hant").as_deref(), Some("zh"));
        assert_eq!(n("no").as_deref(), Some("nb"));
        assert_eq!(n("GA-ie").as_deref(), Some("ga"));
        assert_eq!(normalise("x"), None);
        assert_eq!(normalise("english"), None);
        assert_eq!(normalise(""), None);
        assert_eq!(normalise("e1"), None);
    }

    #[test]
    fn reliable_detection_wins_over_the_declaration() {
        let text = "Der Klimawandel verändert die Landwirtschaft in ganz Europa, und die Bauern \
                    müssen sich auf längere Dürreperioden und heftigere Unwetter einstellen.";
        let d = identify(text, Some("en"));
        assert_eq!(d.lang.as_deref(), Some("de"));
        assert!(d.source == LangSource::Detector && d.confidence > 0.9);
    }

    #[test]
    fn unreliable_detection_falls_back_to_the_declaration() {
        let d = identify("ok", Some("fr-CA"));
        assert_eq!(d.lang.as_deref(), Some("fr"));
        assert_eq!(d.source, LangSource::Declared);
        let none = identify("", None);
        assert_eq!((none.lang, none.source), (None, LangSource::Unknown));
        assert_eq!(none.confidence, 0.0);
    }

    #[test]
    fn scripts_without_word_separators_are_identified() {
        let d = identify("ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ", None);
        assert_eq!(d.lang.as_deref(), Some("th"));
        let d = identify(
            "气候变化对全球农业产生了深远的影响，科学家们正在研究对策。",
            None,
        );
        assert_eq!(d.lang.as_deref(), Some("zh"));
    }

    #[test]
    fn profiles_pick_stemmer_and_stopwords() {
        let en = Profile::of("en");
        assert_eq!(en.stemmer, Some(Algorithm::English));
        assert!(!en.stopwords.is_empty());
        let zh = Profile::of("zh");
        assert!(zh.stemmer.is_none() && zh.stopwords.is_empty());
    }
}
