//! magpie's robots.txt verdicts on a corpus of cases (tests/fixtures/robots/cases.json), checked
//! against the verdicts the corpus records and compared with Protego, Scrapy's parser.
//!
//! Protego runs through `tests/fixtures/robots/protego_verdicts.py`. Without python3 and
//! Protego the comparison is skipped with a note, unless `MAGPIE_REQUIRE_PROTEGO=1` (as in CI),
//! the same way `MAGPIE_REQUIRE_WARCIO` works for warcio.

use magpie::fetch::Robots;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

#[derive(Deserialize)]
struct Corpus {
    user_agent: String,
    cases: Vec<Case>,
    expected_differences: Vec<Difference>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    robots: Body,
    user_agent: Option<String>,
    /// `(url, allowed)`: the verdict magpie must give (RFC 9309).
    urls: Vec<(String, bool)>,
}

/// A robots.txt body: its text, or parts with repeated runs (for very long files).
#[derive(Deserialize)]
#[serde(untagged)]
enum Body {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Part {
    Text(String),
    Repeat { repeat: String, times: usize },
}

impl Body {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Body::Text(t) => t.as_bytes().to_vec(),
            Body::Parts(parts) => parts
                .iter()
                .map(|p| match p {
                    Part::Text(t) => t.clone(),
                    Part::Repeat { repeat, times } => repeat.repeat(*times),
                })
                .collect::<String>()
                .into_bytes(),
        }
    }
}

#[derive(Deserialize)]
struct Difference {
    case: String,
    url: String,
    magpie: bool,
    protego: bool,
    reason: String,
}

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/robots")
}

fn corpus() -> Corpus {
    let text = std::fs::read_to_string(fixture_dir().join("cases.json")).unwrap();
    serde_json::from_str(&text).expect("cases.json is a valid corpus")
}

/// magpie's verdicts, per case, in URL order.
fn magpie_verdicts(corpus: &Corpus) -> BTreeMap<String, Vec<bool>> {
    corpus
        .cases
        .iter()
        .map(|case| {
            let agent = case.user_agent.as_deref().unwrap_or(&corpus.user_agent);
            let robots = Robots::from_response(200, &case.robots.bytes(), agent);
            let verdicts = case.urls.iter().map(|(u, _)| robots.allowed(u)).collect();
            (case.name.clone(), verdicts)
        })
        .collect()
}

#[test]
fn corpus_is_large_and_well_formed() {
    let corpus = corpus();
    assert!(corpus.cases.len() >= 30, "at least 30 cases");
    let names: BTreeSet<_> = corpus.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), corpus.cases.len(), "case names are unique");
    for d in &corpus.expected_differences {
        let case = corpus.cases.iter().find(|c| c.name == d.case);
        let listed = case.and_then(|c| c.urls.iter().find(|(u, _)| *u == d.url));
        assert_eq!(
            listed.map(|(_, v)| *v),
            Some(d.magpie),
            "difference {} {} names a URL of the corpus with magpie's verdict",
            d.case,
            d.url
        );
        assert_ne!(d.magpie, d.protego, "{} {}", d.case, d.url);
        assert!(d.reason.len() > 20, "{} {} gives its reason", d.case, d.url);
    }
}

#[test]
fn magpie_gives_the_corpus_verdicts() {
    let corpus = corpus();
    let verdicts = magpie_verdicts(&corpus);
    let mut wrong = Vec::new();
    for case in &corpus.cases {
        for ((url, expected), got) in case.urls.iter().zip(&verdicts[&case.name]) {
            if expected != got {
                wrong.push(format!(
                    "{} {url}: expected {expected}, got {got}",
                    case.name
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "magpie disagrees with the corpus:\n{}",
        wrong.join("\n")
    );
}

/// Protego's verdicts from the script, or `None` (with a note) when it cannot run and is not
/// required.
fn protego_verdicts() -> Option<BTreeMap<String, Vec<bool>>> {
    let required = std::env::var("MAGPIE_REQUIRE_PROTEGO").as_deref() == Ok("1");
    let script = fixture_dir().join("protego_verdicts.py");
    let out = match Command::new("python3").arg(&script).output() {
        Ok(o) if o.status.success() => o,
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            if required || o.status.code() != Some(2) {
                panic!("protego_verdicts.py failed ({}):\n{err}", o.status);
            }
            eprintln!("note: {}; Protego comparison skipped", err.trim());
            return None;
        }
        Err(e) => {
            if required {
                panic!("Protego is required but python3 cannot run: {e}");
            }
            eprintln!("note: python3 not available ({e}); Protego comparison skipped");
            return None;
        }
    };
    Some(serde_json::from_slice(&out.stdout).expect("the script prints JSON"))
}

#[test]
fn protego_agrees_except_for_the_listed_differences() {
    let Some(protego) = protego_verdicts() else {
        return;
    };
    let corpus = corpus();
    let magpie = magpie_verdicts(&corpus);
    let listed: BTreeMap<(&str, &str), &Difference> = corpus
        .expected_differences
        .iter()
        .map(|d| ((d.case.as_str(), d.url.as_str()), d))
        .collect();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for case in &corpus.cases {
        let theirs = &protego[&case.name];
        assert_eq!(theirs.len(), case.urls.len(), "{}", case.name);
        for (((url, _), ours), theirs) in case.urls.iter().zip(&magpie[&case.name]).zip(theirs) {
            let key = (case.name.as_str(), url.as_str());
            match listed.get(&key) {
                _ if ours == theirs && listed.contains_key(&key) => {
                    problems.push(format!("{} {url}: listed, but both say {ours}", case.name))
                }
                _ if ours == theirs => {}
                Some(d) if d.magpie == *ours && d.protego == *theirs => {
                    seen.insert(key);
                }
                _ => problems.push(format!(
                    "{} {url}: magpie {ours}, Protego {theirs}, not in expected_differences",
                    case.name
                )),
            }
        }
    }
    for key in listed.keys().filter(|k| !seen.contains(*k)) {
        if !problems
            .iter()
            .any(|p| p.starts_with(&format!("{} {}", key.0, key.1)))
        {
            problems.push(format!("{} {}: listed difference not found", key.0, key.1));
        }
    }
    let urls: usize = corpus.cases.iter().map(|c| c.urls.len()).sum();
    eprintln!(
        "{} cases, {urls} URLs, {} expected differences",
        corpus.cases.len(),
        seen.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
