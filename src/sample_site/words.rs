//! Vocabularies and the deterministic text generator that fills sample pages with topical prose.
//!
//! Each topic has its own nouns, verbs and adjectives, so pages about one topic share
//! distinctive words that topical scoring can pick up; function words are shared.

/// A small deterministic PRNG (splitmix64): pages must be reproducible from the seed alone.
/// Tests and benchmarks draw their reproducible inputs from it too, so magpie has one.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// A generator for one `(a, b)` cell under `seed` (for example host and page).
    pub fn for_cell(seed: u64, a: u64, b: u64) -> SplitMix {
        let mut s = SplitMix(seed ^ 0x6a09_e667_f3bc_c908);
        s.0 ^= s.next_u64() ^ a.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        s.0 ^= s.next_u64() ^ b.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        SplitMix(s.next_u64())
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// One subject area: its URL slug and the words that make its prose recognisable.
pub(crate) struct Topic {
    pub slug: &'static str,
    pub nouns: &'static [&'static str],
    pub verbs: &'static [&'static str],
    pub adjectives: &'static [&'static str],
}

/// The topics pages are written about.
pub(crate) const TOPICS: [Topic; 4] = [
    Topic {
        slug: "energy",
        nouns: &[
            "turbine",
            "solar panel",
            "battery",
            "grid",
            "inverter",
            "wind farm",
            "heat pump",
            "substation",
            "photovoltaic cell",
            "hydrogen",
            "megawatt",
            "transmission line",
            "rooftop array",
            "storage system",
            "tariff",
            "carbon emission",
            "offshore platform",
            "biomass plant",
            "geothermal well",
            "power purchase agreement",
            "kilowatt hour",
            "smart meter",
            "microgrid",
            "electrolyser",
            "capacity factor",
            "feed-in tariff",
        ],
        verbs: &[
            "generates",
            "stores",
            "converts",
            "supplies",
            "balances",
            "reduces",
            "feeds",
            "powers",
            "stabilises",
            "decarbonises",
            "harvests",
            "exports",
        ],
        adjectives: &[
            "renewable",
            "efficient",
            "sustainable",
            "low-carbon",
            "intermittent",
            "distributed",
            "clean",
            "offshore",
            "residential",
            "reliable",
            "modular",
            "green",
        ],
    },
    Topic {
        slug: "cooking",
        nouns: &[
            "recipe",
            "saucepan",
            "garlic",
            "onion",
            "olive oil",
            "oven",
            "dough",
            "butter",
            "risotto",
            "broth",
            "spice",
            "marinade",
            "skillet",
            "tomato sauce",
            "pastry",
            "cutting board",
            "stew",
            "basil",
            "lemon zest",
            "roast chicken",
            "flour",
            "simmering stock",
            "chef",
            "kitchen",
            "vinaigrette",
            "caramel",
        ],
        verbs: &[
            "simmers",
            "roasts",
            "seasons",
            "whisks",
            "bakes",
            "braises",
            "chops",
            "stirs",
            "sears",
            "garnishes",
            "kneads",
            "tastes",
        ],
        adjectives: &[
            "crispy",
            "savoury",
            "tender",
            "golden",
            "aromatic",
            "homemade",
            "fresh",
            "creamy",
            "spicy",
            "rustic",
            "seasonal",
            "caramelised",
        ],
    },
    Topic {
        slug: "football",
        nouns: &[
            "striker",
            "goalkeeper",
            "midfielder",
            "penalty",
            "stadium",
            "league",
            "referee",
            "corner kick",
            "offside trap",
            "transfer window",
            "defender",
            "coach",
            "tactics",
            "free kick",
            "derby",
            "supporters",
            "trophy",
            "header",
            "formation",
            "winger",
            "season",
            "equaliser",
            "clean sheet",
            "kickoff",
            "captain",
            "scoreline",
        ],
        verbs: &[
            "scores",
            "defends",
            "tackles",
            "dribbles",
            "passes",
            "shoots",
            "concedes",
            "presses",
            "crosses",
            "saves",
            "celebrates",
            "substitutes",
        ],
        adjectives: &[
            "attacking",
            "defensive",
            "decisive",
            "late",
            "dramatic",
            "tactical",
            "home",
            "away",
            "unbeaten",
            "relegated",
            "clinical",
            "young",
        ],
    },
    Topic {
        slug: "gardening",
        nouns: &[
            "compost",
            "seedling",
            "greenhouse",
            "perennial",
            "raised bed",
            "mulch",
            "pruning",
            "vegetable patch",
            "soil",
            "watering can",
            "rose bush",
            "herb garden",
            "trowel",
            "fertiliser",
            "hedge",
            "allotment",
            "bulb",
            "orchard",
            "weed",
            "trellis",
            "lawn",
            "potting mix",
            "cutting",
            "flower border",
            "aphid",
            "rainwater butt",
        ],
        verbs: &[
            "plants",
            "prunes",
            "waters",
            "sows",
            "harvests",
            "mulches",
            "blooms",
            "thrives",
            "propagates",
            "shelters",
            "nourishes",
            "digs",
        ],
        adjectives: &[
            "hardy",
            "organic",
            "flowering",
            "evergreen",
            "shady",
            "fertile",
            "seasonal",
            "native",
            "drought-tolerant",
            "lush",
            "climbing",
            "fragrant",
        ],
    },
];

const DETERMINERS: &[&str] = &["the", "a", "every", "this", "our", "each", "one"];
const PREPOSITIONS: &[&str] = &["with", "for", "near", "after", "before", "under", "beside"];
const CONNECTIVES: &[&str] = &["while", "because", "although", "and", "so", "whereas"];
const TITLE_JOINERS: &[&str] = &["and", "for", "of", "in", "with"];

/// Appends `words` with the first letter of each space-separated word upper-cased.
fn push_capitalised(out: &mut String, words: &str) {
    for (i, word) in words.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.push_str(chars.as_str());
        }
    }
}

/// Appends a noun phrase such as "the efficient turbine" (with "an" before a vowel).
fn noun_phrase(rng: &mut SplitMix, t: &Topic, out: &mut String) {
    let det = rng.pick(DETERMINERS);
    let adjective = if rng.chance(50) {
        Some(rng.pick(t.adjectives))
    } else {
        None
    };
    let noun = rng.pick(t.nouns);
    let next = adjective.unwrap_or(noun);
    out.push_str(
        if det == "a" && next.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            det
        },
    );
    out.push(' ');
    if let Some(a) = adjective {
        out.push_str(a);
        out.push(' ');
    }
    out.push_str(noun);
}

/// Appends one sentence (capitalised, ending in a full stop) about topic `t`.
pub(crate) fn sentence(rng: &mut SplitMix, t: &Topic, out: &mut String) {
    let start = out.len();
    noun_phrase(rng, t, out);
    out.push(' ');
    out.push_str(rng.pick(t.verbs));
    out.push(' ');
    noun_phrase(rng, t, out);
    if rng.chance(40) {
        out.push(' ');
        out.push_str(rng.pick(PREPOSITIONS));
        out.push(' ');
        noun_phrase(rng, t, out);
    }
    if rng.chance(35) {
        out.push(' ');
        out.push_str(rng.pick(CONNECTIVES));
        out.push(' ');
        noun_phrase(rng, t, out);
        out.push(' ');
        out.push_str(rng.pick(t.verbs));
        out.push(' ');
        noun_phrase(rng, t, out);
    }
    out.push('.');
    // Determiners are ASCII, so the first byte is the first character.
    out[start..start + 1].make_ascii_uppercase();
}

/// Appends `<p>` + 2..=6 sentences + `</p>\n`.
pub(crate) fn paragraph(rng: &mut SplitMix, t: &Topic, out: &mut String) {
    out.push_str("<p>");
    for i in 0..rng.range(2, 6) {
        if i > 0 {
            out.push(' ');
        }
        sentence(rng, t, out);
    }
    out.push_str("</p>\n");
}

/// Appends a short title-cased headline, at most five words long.
pub(crate) fn headline(rng: &mut SplitMix, t: &Topic, out: &mut String) {
    push_capitalised(out, rng.pick(t.adjectives));
    out.push(' ');
    push_capitalised(out, rng.pick(t.nouns));
    if rng.chance(60) {
        out.push(' ');
        out.push_str(rng.pick(TITLE_JOINERS));
        out.push(' ');
        push_capitalised(out, rng.pick(t.nouns));
    }
}

/// Appends single topical words separated by spaces while they fit in `budget` bytes;
/// returns the bytes written. Used to pad a page to its exact size.
pub(crate) fn words_within(
    rng: &mut SplitMix,
    t: &Topic,
    budget: usize,
    out: &mut String,
) -> usize {
    let start = out.len();
    let mut misses = 0;
    while misses < 4 {
        let w = if rng.chance(50) {
            rng.pick(t.nouns)
        } else {
            rng.pick(t.adjectives)
        };
        let sep = usize::from(out.len() > start);
        if out.len() - start + sep + w.len() <= budget {
            if sep == 1 {
                out.push(' ');
            }
            out.push_str(w);
        } else {
            misses += 1;
        }
    }
    out.len() - start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_text_and_different_seed_differs() {
        let gen = |seed| {
            let mut rng = SplitMix::new(seed);
            let mut s = String::new();
            paragraph(&mut rng, &TOPICS[1], &mut s);
            s
        };
        assert_eq!(gen(5), gen(5));
        assert_ne!(gen(5), gen(6));
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SplitMix::new(1);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let v = rng.below(7);
            assert!(v < 7);
            seen[v] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(rng.below(0), 0);
    }

    #[test]
    fn sentences_are_capitalised_and_topical() {
        let mut rng = SplitMix::new(9);
        let mut s = String::new();
        sentence(&mut rng, &TOPICS[0], &mut s);
        assert!(s.starts_with(|c: char| c.is_ascii_uppercase()), "{s}");
        assert!(s.ends_with('.'));
        assert!(TOPICS[0].nouns.iter().any(|n| s.contains(n)), "{s}");
    }

    #[test]
    fn words_within_respects_budget() {
        let mut rng = SplitMix::new(3);
        for budget in [0, 1, 5, 40, 300] {
            let mut s = String::new();
            let n = words_within(&mut rng, &TOPICS[3], budget, &mut s);
            assert_eq!(n, s.len());
            assert!(n <= budget);
        }
    }
}
