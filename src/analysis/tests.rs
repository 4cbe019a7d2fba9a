//! Tests of the topical scorer: text pipeline, topic vector, cosine, each score component,
//! aggregation, language scaling and the spam blacklist.

use super::lang::Profile;
use super::terms::Terms;
use super::*;
use crate::analysis::{RawScoring, RawTopic, RawWeights};
use crate::model::{Hop, Link};

pub(super) fn topic(keywords: &[&str]) -> RawTopic {
    RawTopic {
        keywords: keywords.iter().map(|s| s.to_string()).collect(),
        ..RawTopic::default()
    }
}

pub(super) fn analyzer(keywords: &[&str]) -> Analyzer {
    Analyzer::new(&topic(keywords), &RawScoring::default()).unwrap()
}

pub(super) fn link(url: &str, text: &str, block: Option<u32>) -> Link {
    Link {
        url: url.into(),
        hop: Hop::Link,
        context: "a/@href".into(),
        text: text.into(),
        block,
    }
}

pub(super) fn page(blocks: &[&str], links: Vec<Link>) -> ParsedPage {
    ParsedPage {
        title: None,
        charset: "utf-8".into(),
        declared_lang: Some("en".into()),
        blocks: blocks.iter().map(|s| s.to_string()).collect(),
        links,
        ..ParsedPage::default()
    }
}

fn relevance(an: &Analyzer, text: &str) -> f32 {
    an.analyze(&page(&[text], vec![]), "http://p.example/", 0.0)
        .relevance
}

#[test]
fn stemming_conflates_inflections_and_case() {
    let compiled = Topic::default().compile();
    let mut terms = Terms::new(Profile::of("en"), &compiled, false);
    let a = terms.token("Connected");
    assert_eq!(terms.token("connection"), a);
    assert_eq!(terms.token("CONNECTING"), a);
    assert_ne!(terms.token("energy"), a);
    let mut de = Terms::new(Profile::of("de"), &compiled, false);
    assert_eq!(de.token("Häuser"), de.token("Haus"));
}

#[test]
fn terms_remembered_from_earlier_pages_equal_fresh_ones_in_each_language() {
    let compiled = Topic::default().compile();
    let words = [
        "Connected",
        "the",
        "Häuser",
        "die",
        "Energie",
        "energy",
        "Ünïcödé",
    ];
    // A recording table never uses the thread's memory of earlier pages: it is the reference.
    let read = |lang: &str, record: bool| {
        let mut t = Terms::new(Profile::of(lang), &compiled, record);
        words
            .iter()
            .map(|w| {
                let i = t.token(w) as usize;
                (t.info[i].id, t.info[i].stop)
            })
            .collect::<Vec<_>>()
    };
    let fresh = |lang: &str| read(lang, true);
    let remembered = |lang: &str| read(lang, false);
    for lang in ["en", "de", "en", "xx", "de"] {
        // Twice: the second page of each language reads what the first left behind.
        assert_eq!(remembered(lang), fresh(lang), "{lang}");
        assert_eq!(remembered(lang), fresh(lang), "{lang}, remembered");
    }
    assert_ne!(fresh("en"), fresh("de"), "the profiles differ");
}

#[test]
fn stopwords_do_not_count() {
    let an = analyzer(&["energy"]);
    assert!((relevance(&an, "energy") - 1.0).abs() < 1e-6);
    assert!((relevance(&an, "the energy of all of them") - 1.0).abs() < 1e-6);
    assert!(relevance(&an, "the energy of wind") < 0.99);
}

#[test]
fn phrases_count_as_units_as_well_as_words() {
    let an = analyzer(&["climate change"]);
    let words = an.topic().top_terms(10);
    assert!(words.iter().any(|(t, _)| t == "climat chang"), "{words:?}");
    let phrase = relevance(&an, "climate change threatens harvests");
    let scattered = relevance(&an, "change threatens the climate of harvests");
    assert!(phrase > scattered, "{phrase} <= {scattered}");
    assert!(scattered > 0.0);
    // A phrase with a stopword inside is matched with it.
    let an = analyzer(&["ministry of finance"]);
    let inside = relevance(&an, "the ministry of finance said");
    let apart = relevance(&an, "the ministry said finance");
    assert!(inside > apart, "{inside} <= {apart}");
}

#[test]
fn cosine_is_bounded_scale_free_and_zero_when_disjoint() {
    let an = analyzer(&["solar", "battery"]);
    let once = relevance(&an, "solar battery storage");
    let twice = relevance(&an, "solar battery storage solar battery storage");
    assert!((once - twice).abs() < 1e-6, "{once} vs {twice}");
    assert!(once > 0.0 && once < 1.0);
    assert_eq!(relevance(&an, "football striker penalty"), 0.0);
    assert!((relevance(&an, "solar battery") - 1.0).abs() < 1e-6);
}

#[test]
fn reference_pages_build_the_topic() {
    let mut an = analyzer(&[]);
    assert_eq!(
        relevance(&an, "telescope galaxy nebula"),
        0.0,
        "empty topic scores 0"
    );
    an.add_reference(&page(
        &["The telescope observed a distant galaxy and a bright nebula near the galaxy core."],
        vec![],
    ));
    assert_eq!(an.topic().reference_count, 1);
    let on = relevance(&an, "A galaxy seen through the telescope");
    let off = relevance(&an, "A recipe for tomato soup");
    assert!(on > 0.4 && off == 0.0, "{on} {off}");
    let top = an.topic().top_terms(1);
    assert_eq!(top[0].0, "galaxi");
}

#[test]
fn a_reference_read_once_adds_what_reading_it_in_place_adds() {
    let p = page(
        &["Offshore wind turbine farms feed the grid through a substation."],
        vec![],
    );
    let mut direct = analyzer(&["wind turbine"]);
    direct.add_reference(&p);
    let mut shipped = analyzer(&["wind turbine"]);
    let v = shipped.reference_vector(&p).expect("the page has terms");
    shipped.add_reference_vector(&v);
    assert_eq!(direct.topic(), shipped.topic());
    assert!(analyzer(&[])
        .reference_vector(&page(&["the of and"], vec![]))
        .is_none());
}

#[test]
fn keywords_outweigh_any_ordinary_term() {
    let mut an = analyzer(&["nebula"]);
    for _ in 0..20 {
        an.add_reference(&page(&["galaxy galaxy galaxy galaxy telescope"], vec![]));
    }
    let w = an.topic().weights();
    assert!(w["nebula"] >= w["galaxi"], "{w:?}");
    assert!(w["galaxi"] > 0.0);
}

#[test]
fn stored_topic_scores_the_same() {
    let mut an = analyzer(&["wind turbine", "grid"]);
    an.add_reference(&page(
        &["Offshore wind turbine farms feed the grid."],
        vec![],
    ));
    let json = serde_json::to_string(an.topic()).unwrap();
    let back: Topic = serde_json::from_str(&json).unwrap();
    let scoring = crate::analysis::Scoring::validate(&RawScoring::default()).unwrap();
    let again = Analyzer::from_topic(back, &scoring);
    let p = page(&["the wind turbine and the grid"], vec![]);
    assert_eq!(
        an.analyze(&p, "http://x.example/", 0.0),
        again.analyze(&p, "http://x.example/", 0.0)
    );
}

fn components_page() -> ParsedPage {
    page(
        &[
            "Solar panels and battery storage for homes. Read about solar inverters.",
            "Our office is closed on public holidays. Contact us by phone.",
        ],
        vec![
            link("http://a.example/guide", "solar panel guide", Some(0)),
            link("http://b.example/solar-battery/", "click here", Some(1)),
            link("http://c.example/x", "", None),
        ],
    )
}

#[test]
fn each_component_measures_its_own_evidence() {
    let an = analyzer(&["solar panel", "battery"]);
    let a = an.analyze(&components_page(), "http://p.example/", 0.0);
    let [on, off, none] = [a.links[0], a.links[1], a.links[2]];
    // document: the same for every link of the page.
    assert!(on.parts.document > 0.0);
    assert_eq!(on.parts.document, off.parts.document);
    // paragraph: the block the link sits in; no block falls back to the document. A text with
    // no topic word is pulled up towards the page only by its shortness (see `shrink`).
    assert!(on.parts.paragraph > a.relevance && off.parts.paragraph < a.relevance / 2.0);
    assert_eq!(none.parts.paragraph, a.relevance);
    // anchor: an empty anchor is no evidence, so it scores as its page.
    assert!(
        on.parts.anchor > 0.5 && off.parts.anchor < a.relevance && none.parts.anchor == a.relevance
    );
    // url: words of host and path.
    assert!(
        off.parts.url > on.parts.url && on.parts.url < a.relevance,
        "{} {}",
        off.parts.url,
        on.parts.url
    );
    // parent: the page's inherited value, for every link.
    assert_eq!(on.parts.parent, a.inherited);
    for s in &a.links {
        for v in s.parts.to_array() {
            assert!((0.0..=1.0).contains(&v));
        }
    }
}

#[test]
fn url_words_containing_a_keyword_stem_count() {
    let an = analyzer(&["climate"]);
    let p = page(
        &[],
        vec![
            link("http://x.example/climatechange/", "", None),
            link("http://x.example/weather/", "", None),
        ],
    );
    let a = an.analyze(&p, "http://x.example/", 0.0);
    assert!(a.links[0].parts.url > 0.0 && a.links[1].parts.url == 0.0);
}

#[test]
fn huge_blocks_are_scored_by_a_window_around_the_anchor() {
    let an = analyzer(&["telescope", "galaxy"]);
    let mut words: Vec<String> = (0..1200).map(|i| format!("filler{}", i % 97)).collect();
    for w in &mut words[900..930] {
        *w = "telescope galaxy".into();
    }
    words[600] = "early".into();
    words[601] = "anchor".into();
    words[915] = "late".into();
    words[916] = "anchor".into();
    let block = words.join(" ");
    let p = page(
        &[&block],
        vec![
            link("http://x.example/1", "early anchor", Some(0)),
            link("http://x.example/2", "late anchor", Some(0)),
            link("http://x.example/3", "not in the text", Some(0)),
        ],
    );
    let a = an.analyze(&p, "http://x.example/", 0.0);
    assert!(
        a.links[0].parts.paragraph < 0.05,
        "the early window sees only filler: {}",
        a.links[0].parts.paragraph
    );
    assert!(
        a.links[1].parts.paragraph > 0.5,
        "{}",
        a.links[1].parts.paragraph
    );
    // Not found: the window stays where the previous one was.
    assert!(
        a.links[2].parts.paragraph > 0.5,
        "{}",
        a.links[2].parts.paragraph
    );
}

#[test]
fn total_is_the_weighted_average() {
    let weights = RawWeights {
        document: 1.0,
        paragraph: 2.0,
        anchor: 3.0,
        url: 0.5,
        parent: 1.0,
    };
    let scoring = RawScoring {
        weights: weights.clone(),
        ..RawScoring::default()
    };
    let an = Analyzer::new(&topic(&["solar panel", "battery"]), &scoring).unwrap();
    let a = an.analyze(&components_page(), "http://p.example/", 0.8);
    for s in &a.links {
        let expect = (s.parts.document
            + 2.0 * s.parts.paragraph
            + 3.0 * s.parts.anchor
            + 0.5 * s.parts.url
            + s.parts.parent)
            / 7.5;
        assert!((s.parts.total - expect).abs() < 1e-6, "{s:?}");
    }
    // One weight alone: the total is that component.
    let only_anchor = RawScoring {
        weights: RawWeights {
            document: 0.0,
            paragraph: 0.0,
            anchor: 1.0,
            url: 0.0,
            parent: 0.0,
        },
        ..RawScoring::default()
    };
    let an = Analyzer::new(&topic(&["solar panel", "battery"]), &only_anchor).unwrap();
    for s in an.analyze(&components_page(), "http://p/", 0.0).links {
        assert_eq!(s.parts.total, s.parts.anchor);
    }
}

#[test]
fn inherited_score_decays_with_irrelevant_hops() {
    let an = analyzer(&["solar"]);
    let relevant = an.analyze(&page(&["solar solar power"], vec![]), "http://x/", 0.9);
    assert!(relevant.relevant);
    assert!((relevant.inherited - PARENT_DECAY * relevant.relevance).abs() < 1e-6);
    let mut inherited = relevant.inherited;
    let off = page(&["football results"], vec![link("http://y/", "next", None)]);
    for _ in 0..3 {
        let a = an.analyze(&off, "http://x/", inherited);
        assert!(!a.relevant);
        assert!((a.inherited - PARENT_DECAY * inherited).abs() < 1e-7);
        assert_eq!(a.links[0].parts.parent, a.inherited);
        inherited = a.inherited;
    }
    assert!(an.analyze(&off, "http://x/", f32::NAN).inherited == 0.0);
}

#[test]
fn threshold_decides_relevance() {
    let strict = RawScoring {
        threshold: 0.9,
        ..RawScoring::default()
    };
    let an = Analyzer::new(&topic(&["solar"]), &strict).unwrap();
    let a = an.analyze(&page(&["solar power plants"], vec![]), "http://x/", 0.0);
    assert!(a.relevance > 0.1 && a.relevance < 0.9 && !a.relevant);
    assert!(
        analyzer(&["solar"])
            .analyze(&page(&["solar power plants"], vec![]), "http://x/", 0.0)
            .relevant
    );
}

#[test]
fn unwanted_languages_are_scaled_down() {
    let german = page(
        &[
            "Die Solaranlage auf dem Dach erzeugt Strom für das ganze Haus, und der Speicher \
           hält die Energie für die Nacht bereit. Solar ist die Zukunft der Energie.",
        ],
        vec![link("http://x.example/solar", "Solar Energie", Some(0))],
    );
    let any = RawTopic {
        keywords: vec!["solar".into(), "energie".into()],
        ..RawTopic::default()
    };
    let english_only = RawTopic {
        languages: vec!["en".into()],
        ..any.clone()
    };
    let a_any = Analyzer::new(&any, &RawScoring::default()).unwrap();
    let a_en = Analyzer::new(&english_only, &RawScoring::default()).unwrap();
    let free = a_any.analyze(&german, "http://x.example/", 0.0);
    let scaled = a_en.analyze(&german, "http://x.example/", 0.0);
    assert_eq!(free.lang.as_deref(), Some("de"));
    assert!(free.lang_wanted && free.relevant);
    assert!(!scaled.lang_wanted && !scaled.relevant);
    assert!(free.links[0].parts.total > 0.0);
    assert!(
        (scaled.links[0].parts.total - LANGUAGE_PENALTY * free.links[0].parts.total).abs() < 1e-6
    );
    assert_eq!(
        scaled.links[0].parts.anchor, free.links[0].parts.anchor,
        "components are kept"
    );
}

#[test]
fn spam_domains_are_blacklisted() {
    let scoring = RawScoring {
        spam_domains: vec!["Spam.example".into()],
        ..RawScoring::default()
    };
    let an = Analyzer::new(&topic(&["solar"]), &scoring).unwrap();
    let p = page(
        &["solar solar"],
        vec![
            link("http://cheap.spam.example/solar", "solar", Some(0)),
            link("http://notspam.example/solar", "solar", Some(0)),
        ],
    );
    let a = an.analyze(&p, "http://good.example/", 0.0);
    assert!(a.links[0].blacklist && a.links[0].parts.total == 0.0);
    assert!(a.links[0].parts.anchor > 0.0, "components are kept");
    assert!(!a.links[1].blacklist && a.links[1].parts.total > 0.0);
    let farm = an.analyze(&p, "http://spam.example/farm", 0.0);
    assert!(farm
        .links
        .iter()
        .all(|l| l.blacklist && l.parts.total == 0.0));
}

#[test]
fn analyzer_is_shareable_between_workers() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Analyzer>();
}

#[test]
fn bad_configurations_name_the_field() {
    let negative = RawScoring {
        weights: RawWeights {
            anchor: -1.0,
            ..RawWeights::default()
        },
        ..RawScoring::default()
    };
    let e = Analyzer::new(&topic(&["solar"]), &negative).unwrap_err();
    assert_eq!(e.path(), "scoring.weights.anchor");
    let e = Analyzer::new(&topic(&["solar", "the"]), &RawScoring::default()).unwrap_err();
    assert_eq!(e.path(), "topic.keywords[1]");
    assert!(e.to_string().contains("stopword"), "{e}");
    let e = Analyzer::new(&topic(&["--"]), &RawScoring::default()).unwrap_err();
    assert_eq!(e.path(), "topic.keywords[0]");
    // Only stopwords, but several: a phrase ("The Who").
    let an = analyzer(&["The Who"]);
    assert!(relevance(&an, "the who played live") > 0.0);
    assert_eq!(relevance(&an, "who is the singer"), 0.0);
}

#[test]
fn entities_weigh_their_words_less() {
    let an = Analyzer::new(
        &RawTopic {
            entities: vec!["European Central Bank".into()],
            ..RawTopic::default()
        },
        &RawScoring::default(),
    )
    .unwrap();
    let w = an.topic().weights();
    assert_eq!(w["european central bank"], KEYWORD_WEIGHT);
    assert_eq!(w["central"], ENTITY_WORD_WEIGHT);
    assert!(relevance(&an, "the European Central Bank") > relevance(&an, "the central bank"));
}

#[test]
fn page_furniture_does_not_count_towards_the_document_score() {
    let an = analyzer(&["solar power"]);
    let menu = "Solar power news solar power panels";
    let content = "Pasta recipes with tomato and basil for a quick dinner";
    let mut with_menu = page(
        &[menu, content],
        vec![link("http://p.example/solar", "Solar power news", Some(0))],
    );
    let plain = an.analyze(&with_menu, "http://p.example/", 0.0);
    assert!(
        plain.relevance > 0.3,
        "a menu counted as content: {}",
        plain.relevance
    );
    with_menu.boilerplate = vec![0];
    let a = an.analyze(&with_menu, "http://p.example/", 0.0);
    assert_eq!(a.relevance, 0.0, "the off-topic content alone decides");
    assert_eq!(a.links[0].parts.document, 0.0);
    assert!(
        a.links[0].parts.paragraph > 0.5,
        "the menu is still the link's context"
    );
    // A page of nothing but furniture keeps its text.
    let only_menu = ParsedPage {
        boilerplate: vec![0],
        ..page(&[menu], vec![])
    };
    assert!(an.analyze(&only_menu, "http://p.example/", 0.0).relevance > 0.5);
    // Reference pages are learned from their content too.
    let mut t = Topic::from_spec(&topic(&[])).unwrap();
    t.add_reference(&with_menu);
    let terms: Vec<String> = t.top_terms(20).into_iter().map(|(w, _)| w).collect();
    assert!(terms.iter().any(|w| w == "pasta"), "{terms:?}");
    assert!(!terms.iter().any(|w| w == "solar"), "{terms:?}");
}
