//! What HTML elements mean to the page walk: which ones delimit text blocks, which hide their
//! text, and the attributes read from them.

use scraper::node::Element;

/// Elements that start and end a text block; the helper's field text separates words at them
/// too.
pub(crate) fn is_block(name: &str) -> bool {
    matches!(
        name,
        "html"
            | "head"
            | "body"
            | "address"
            | "article"
            | "aside"
            | "blockquote"
            | "caption"
            | "center"
            | "dd"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "legend"
            | "li"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "thead"
            | "tfoot"
            | "tr"
            | "td"
            | "th"
            | "ul"
            | "option"
            | "select"
            | "textarea"
            | "button"
    )
}

/// Elements whose text is not visible content.
pub(super) fn is_hidden(name: &str) -> bool {
    matches!(
        name,
        "head"
            | "script"
            | "style"
            | "noscript"
            | "template"
            | "title"
            | "iframe"
            | "noembed"
            | "noframes"
    )
}

/// Elements (or landmark roles) that hold page furniture: navigation, the page's header and
/// footer, asides. A `header` or `footer` inside an `article` or `main` (`in_content`) is the
/// content's own (title, byline), not furniture.
pub(super) fn is_boilerplate(name: &str, role: Option<&str>, in_content: bool) -> bool {
    match name {
        "nav" | "aside" | "menu" => true,
        "header" | "footer" => !in_content,
        _ => role.is_some_and(|r| {
            r.split_ascii_whitespace().any(|r| {
                matches!(
                    r,
                    "navigation" | "banner" | "contentinfo" | "complementary" | "search"
                )
            })
        }),
    }
}

/// Elements whose `header` and `footer` belong to the content.
pub(super) fn is_content_root(name: &str) -> bool {
    matches!(name, "article" | "main")
}

/// The value of one attribute, by scanning the element's few attributes (`Element::attr`
/// would intern the name as an atom on every call).
pub(super) fn attr<'a>(el: &'a Element, name: &str) -> Option<&'a str> {
    el.attrs().find(|(n, _)| *n == name).map(|(_, v)| v)
}

/// The attributes the walker reads, gathered in one pass over an element's attributes.
#[derive(Default)]
pub(super) struct Attrs<'a> {
    pub(super) href: Option<&'a str>,
    pub(super) src: Option<&'a str>,
    pub(super) srcset: Option<&'a str>,
    pub(super) data_src: Option<&'a str>,
    pub(super) data_srcset: Option<&'a str>,
    pub(super) data: Option<&'a str>,
    pub(super) poster: Option<&'a str>,
    pub(super) background: Option<&'a str>,
    pub(super) style: Option<&'a str>,
    pub(super) alt: Option<&'a str>,
    pub(super) rel: Option<&'a str>,
    pub(super) kind: Option<&'a str>,
    pub(super) lang: Option<&'a str>,
    pub(super) role: Option<&'a str>,
    pub(super) name: Option<&'a str>,
    pub(super) content: Option<&'a str>,
    pub(super) http_equiv: Option<&'a str>,
    pub(super) title: Option<&'a str>,
}

impl<'a> Attrs<'a> {
    pub(super) fn of(el: &'a Element) -> Attrs<'a> {
        Attrs::from_pairs(el.attrs())
    }

    /// From `(name, value)` pairs, as a tag gives them (the tokenizer drops duplicates).
    pub(super) fn from_pairs(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Attrs<'a> {
        let mut a = Attrs::default();
        for (name, value) in pairs {
            let slot = match name {
                "href" => &mut a.href,
                "src" => &mut a.src,
                "srcset" => &mut a.srcset,
                "data-src" => &mut a.data_src,
                "data-srcset" => &mut a.data_srcset,
                "data" => &mut a.data,
                "poster" => &mut a.poster,
                "background" => &mut a.background,
                "style" => &mut a.style,
                "alt" => &mut a.alt,
                "rel" => &mut a.rel,
                "type" => &mut a.kind,
                "lang" => &mut a.lang,
                "role" => &mut a.role,
                "name" => &mut a.name,
                "content" => &mut a.content,
                "http-equiv" => &mut a.http_equiv,
                "title" => &mut a.title,
                _ => continue,
            };
            *slot = Some(value);
        }
        a
    }
}
