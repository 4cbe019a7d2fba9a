//! Stopword lists: the function words left out of term vectors, one sorted list per language.
//!
//! Short lists of the most frequent function words (articles, pronouns, prepositions,
//! conjunctions, auxiliaries) of each language, written for this crawler. They are kept small on
//! purpose: a stopword only has to be frequent enough to drown topical terms, and an over-long
//! list removes words that can be topical. Each list is sorted (byte order) so lookups are a
//! binary search; the tests check the order.

/// The stopword list of an ISO 639-1 language code; empty for languages without one.
pub(crate) fn stopwords(lang: &str) -> &'static [&'static str] {
    match lang {
        "en" => EN,
        "de" => DE,
        "fr" => FR,
        "es" => ES,
        "it" => IT,
        "nl" => NL,
        "pt" => PT,
        _ => &[],
    }
}

/// Whether `word` (already lowercased) is in `list`.
pub(crate) fn is_stopword(list: &[&str], word: &str) -> bool {
    list.binary_search(&word).is_ok()
}

/// English.
const EN: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "d",
    "did",
    "didn",
    "do",
    "does",
    "doesn",
    "doing",
    "don",
    "down",
    "during",
    "each",
    "etc",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn",
    "has",
    "hasn",
    "have",
    "haven",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "itself",
    "just",
    "let",
    "ll",
    "m",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "o",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "per",
    "re",
    "s",
    "same",
    "shall",
    "she",
    "should",
    "shouldn",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "ve",
    "very",
    "via",
    "was",
    "wasn",
    "we",
    "were",
    "weren",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "won",
    "would",
    "wouldn",
    "y",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// German.
const DE: &[&str] = &[
    "aber", "alle", "allem", "allen", "aller", "alles", "als", "also", "am", "an", "ander",
    "andere", "anderem", "anderen", "anderer", "anderes", "auch", "auf", "aus", "bei", "beim",
    "bin", "bis", "bist", "da", "damit", "dann", "das", "dass", "dein", "deine", "dem", "den",
    "denn", "der", "des", "dich", "die", "dies", "diese", "diesem", "diesen", "dieser", "dieses",
    "dir", "doch", "dort", "du", "durch", "ein", "eine", "einem", "einen", "einer", "eines", "er",
    "es", "etwas", "euch", "euer", "eure", "für", "gegen", "gewesen", "hab", "habe", "haben",
    "hat", "hatte", "hatten", "hier", "hin", "hinter", "ich", "ihm", "ihn", "ihnen", "ihr", "ihre",
    "ihrem", "ihren", "ihrer", "ihres", "im", "in", "indem", "ins", "ist", "jede", "jedem",
    "jeden", "jeder", "jedes", "jene", "jetzt", "kann", "kein", "keine", "keinem", "keinen",
    "keiner", "können", "könnte", "man", "manche", "mein", "meine", "mich", "mir", "mit", "muss",
    "musste", "nach", "nicht", "nichts", "noch", "nun", "nur", "ob", "oder", "ohne", "sehr",
    "sein", "seine", "seinem", "seinen", "seiner", "sich", "sie", "sind", "so", "solche", "soll",
    "sollte", "sondern", "sonst", "um", "und", "uns", "unser", "unsere", "unter", "vom", "von",
    "vor", "war", "waren", "warum", "was", "weil", "welche", "welchem", "welchen", "welcher",
    "welches", "wenn", "wer", "werde", "werden", "wie", "wieder", "will", "wir", "wird", "wo",
    "wollen", "wurde", "würde", "zu", "zum", "zur", "zwar", "zwischen", "über",
];

/// French.
const FR: &[&str] = &[
    "au", "aussi", "autre", "autres", "aux", "avait", "avec", "avoir", "c", "ce", "ceci", "cela",
    "celle", "celles", "celui", "ces", "cet", "cette", "chez", "comme", "d", "dans", "de", "des",
    "donc", "dont", "du", "elle", "elles", "en", "entre", "est", "et", "eu", "faire", "fait",
    "ici", "il", "ils", "j", "je", "l", "la", "le", "les", "leur", "leurs", "lui", "m", "ma",
    "mais", "me", "mes", "moi", "mon", "même", "n", "ne", "nos", "notre", "nous", "on", "ont",
    "ou", "où", "par", "pas", "peu", "plus", "pour", "qu", "que", "quel", "quelle", "qui", "s",
    "sa", "sans", "se", "sera", "serait", "ses", "si", "son", "sont", "sous", "sur", "t", "ta",
    "te", "tes", "toi", "ton", "tous", "tout", "toute", "toutes", "très", "tu", "un", "une", "vos",
    "votre", "vous", "y", "à", "étaient", "était", "été", "être",
];

/// Spanish.
const ES: &[&str] = &[
    "a", "al", "algo", "algunas", "algunos", "ante", "antes", "como", "con", "contra", "cual",
    "cuando", "de", "del", "desde", "donde", "durante", "e", "el", "ella", "ellas", "ellos", "en",
    "entre", "era", "eres", "es", "esa", "esas", "ese", "eso", "esos", "esta", "estaba", "estado",
    "estas", "este", "esto", "estos", "fue", "fueron", "ha", "había", "han", "hasta", "hay", "la",
    "las", "le", "les", "lo", "los", "me", "mi", "mis", "mucho", "muy", "más", "nada", "ni", "no",
    "nos", "nosotros", "o", "os", "otra", "otras", "otro", "otros", "para", "pero", "poco", "por",
    "porque", "que", "quien", "se", "ser", "si", "sin", "sobre", "son", "su", "sus", "sí",
    "también", "tanto", "te", "tiene", "tienen", "todo", "todos", "tu", "tus", "un", "una", "uno",
    "unos", "usted", "y", "ya", "yo", "él",
];

/// Italian.
const IT: &[&str] = &[
    "a", "ad", "agli", "ai", "al", "alla", "alle", "allo", "anche", "avere", "c", "che", "chi",
    "ci", "come", "con", "contro", "cui", "da", "dagli", "dai", "dal", "dalla", "dalle", "dei",
    "del", "della", "delle", "dello", "di", "dove", "e", "ed", "era", "erano", "essere", "gli",
    "ha", "hanno", "ho", "i", "il", "in", "io", "l", "la", "le", "lei", "li", "lo", "loro", "lui",
    "ma", "me", "mi", "mia", "mio", "molto", "ne", "negli", "nei", "nel", "nella", "nelle", "noi",
    "non", "nostro", "o", "per", "perché", "più", "poi", "quale", "quando", "quella", "quelle",
    "quelli", "quello", "questa", "queste", "questi", "questo", "se", "sei", "si", "sia", "siamo",
    "sono", "su", "sua", "sue", "sui", "sul", "sulla", "suo", "suoi", "tra", "tu", "tutti",
    "tutto", "un", "una", "uno", "voi", "è",
];

/// Dutch.
const NL: &[&str] = &[
    "aan", "al", "alle", "als", "altijd", "ben", "bij", "daar", "dan", "dat", "de", "der", "deze",
    "die", "dit", "doch", "doen", "door", "dus", "een", "eens", "en", "er", "ge", "geen",
    "geweest", "haar", "had", "heb", "hebben", "heeft", "hem", "het", "hier", "hij", "hoe", "hun",
    "iets", "ik", "in", "is", "ja", "je", "kan", "kon", "kunnen", "maar", "me", "meer", "men",
    "met", "mij", "mijn", "moet", "na", "naar", "niet", "niets", "nog", "nu", "of", "om", "omdat",
    "onder", "ons", "ook", "op", "over", "reeds", "te", "tegen", "toch", "toen", "tot", "u", "uit",
    "uw", "van", "veel", "voor", "want", "waren", "was", "wat", "we", "wel", "werd", "wezen",
    "wie", "wij", "wil", "worden", "wordt", "zal", "ze", "zelf", "zich", "zij", "zijn", "zo",
    "zonder", "zou",
];

/// Portuguese.
const PT: &[&str] = &[
    "a", "ao", "aos", "as", "até", "com", "como", "da", "das", "de", "dela", "dele", "deles", "do",
    "dos", "e", "ela", "elas", "ele", "eles", "em", "entre", "era", "eram", "essa", "essas",
    "esse", "esses", "esta", "estas", "este", "estes", "eu", "foi", "foram", "há", "isso", "isto",
    "já", "lhe", "lhes", "mais", "mas", "me", "mesmo", "meu", "minha", "muito", "na", "nas", "nem",
    "no", "nos", "não", "nós", "o", "os", "ou", "para", "pela", "pelas", "pelo", "pelos", "por",
    "qual", "quando", "que", "quem", "se", "sem", "ser", "seu", "seus", "sua", "suas", "só",
    "também", "te", "tem", "têm", "um", "uma", "umas", "uns", "você", "vocês", "à", "às",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_unique_and_lowercase() {
        for lang in ["en", "de", "fr", "es", "it", "nl", "pt"] {
            let list = stopwords(lang);
            assert!(list.len() > 50, "{lang} list is too short");
            for pair in list.windows(2) {
                assert!(
                    pair[0] < pair[1],
                    "{lang}: {:?} before {:?}",
                    pair[0],
                    pair[1]
                );
            }
            for w in list {
                assert_eq!(w.to_lowercase(), *w, "{lang}: {w} is not lowercase");
            }
        }
    }

    #[test]
    fn lookups_hit_function_words_only() {
        assert!(is_stopword(stopwords("en"), "the"));
        assert!(is_stopword(stopwords("de"), "über"));
        assert!(is_stopword(stopwords("fr"), "où"));
        assert!(!is_stopword(stopwords("en"), "energy"));
        assert!(!is_stopword(stopwords("xx"), "the"));
    }
}
