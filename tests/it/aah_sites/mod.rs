//! Fixture sites of real web applications for the bandwidth evaluation: what they serve, and
//! the small generators they share.

use crate::support::Reply;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// A phpBB 3.3 board with the prosilver style, as a guest sees it.
pub mod forum;

/// A WordPress 6.7 blog with the Twenty Twenty-Five theme and default settings, as a visitor
/// (not logged in) sees it.
pub mod blog;

/// One response of a fixture site: what kind of target it is, the terminal page it shows (a
/// content key independent of the URL form, e.g. `t=3&start=10`), and the reply.
pub struct Served {
    pub class: &'static str,
    pub terminal: Option<String>,
    pub reply: Reply,
    pub body_len: usize,
}

pub fn served(class: &'static str, terminal: Option<String>, ctype: &str, body: String) -> Served {
    let body_len = body.len();
    let reply = if ctype.starts_with("text/html") {
        Reply::html(body)
    } else {
        Reply::typed(ctype, body)
    };
    Served {
        class,
        terminal,
        reply,
        body_len,
    }
}

pub fn redirect(class: &'static str, location: String) -> Served {
    Served {
        class,
        terminal: None,
        reply: Reply::redirect(301, &location),
        body_len: 0,
    }
}

pub fn missing() -> Served {
    Served {
        class: "missing (404)",
        terminal: None,
        reply: Reply::not_found(),
        body_len: 0,
    }
}

/// A deterministic pseudo-random number (splitmix64) for the content generators.
pub fn rnd(seed: u64) -> u64 {
    magpie::sample_site::SplitMix::new(seed).next_u64()
}

pub const WORDS: &[&str] = &[
    "heron",
    "egret",
    "bittern",
    "reed",
    "marsh",
    "canal",
    "colony",
    "nest",
    "wing",
    "water",
    "morning",
    "evening",
    "scope",
    "binoculars",
    "photo",
    "light",
    "wind",
    "tide",
    "fish",
    "frog",
    "shallow",
    "grey",
    "white",
    "patient",
    "still",
    "flight",
    "season",
    "spring",
    "we",
    "saw",
    "the",
    "a",
    "two",
    "three",
    "near",
    "along",
    "across",
    "again",
    "today",
    "stood",
    "waited",
    "caught",
    "flew",
    "landed",
    "over",
    "under",
    "by",
    "with",
    "old",
    "young",
    "pair",
    "juvenile",
    "plumage",
    "count",
    "survey",
    "ringed",
    "watched",
    "bank",
];

/// `n` words of deterministic prose, as sentences.
pub fn prose(seed: u64, n: usize) -> String {
    let mut out = String::new();
    let mut start = true;
    for i in 0..n {
        let w = WORDS[(rnd(seed * 1000 + i as u64) % WORDS.len() as u64) as usize];
        if start {
            let mut c = w.chars();
            let first = c.next().unwrap().to_ascii_uppercase();
            out.push(first);
            out.push_str(c.as_str());
            start = false;
        } else {
            out.push(' ');
            out.push_str(w);
        }
        if rnd(seed * 7 + i as u64) % 9 == 0 || i + 1 == n {
            out.push('.');
            start = true;
        }
    }
    out
}

/// The query parameters of a request target.
pub fn query(target: &str) -> BTreeMap<String, String> {
    let q = target.split_once('?').map(|(_, q)| q).unwrap_or("");
    q.split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub fn path_of(target: &str) -> &str {
    target.split('?').next().unwrap_or(target)
}
