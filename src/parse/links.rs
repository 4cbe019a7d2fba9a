//! Which links an HTML element's attributes name: the rules both page walks share (the tree
//! walk of `html.rs`, which also reads text, and the token stream of `stream.rs`, which reads
//! links only), so the two find the same links in the same order.

use super::attrs::{link_rel, refresh_url, robots_flags, srcset_urls, LinkRel};
use super::css;
use super::elements::Attrs;
use super::html::DISCOVERY_CONTEXT;
use crate::model::{Hop, Link};
use crate::uri::resolve_quiet;
use url::Url;

/// A found link, resolved against `base`; `None` for an empty attribute (browsers request
/// nothing for `src=""`) and for URLs that are not kept (see [`super::html`]).
pub(super) fn resolve(
    raw: &str,
    base: &Url,
    max_url_len: usize,
    hop: Hop,
    context: &'static str,
) -> Option<Link> {
    if raw.trim().is_empty() {
        return None;
    }
    let url = resolve_quiet(raw, base, max_url_len).ok()?;
    Some(Link {
        url: url.into(),
        hop,
        context: context.to_owned(),
        text: String::new(),
        block: None,
    })
}

/// Where a walk puts the links it finds.
pub(super) trait LinkSink {
    /// Adds a link (resolved against the current base, if acceptable); false once no more
    /// links are kept.
    fn link(&mut self, raw: &str, hop: Hop, context: &'static str) -> bool;
}

/// The links an HTML element names, other than the ones the walks treat themselves (`a` and
/// `area` anchors, `meta`, `base`, `<style>` text): resources it embeds, `<link>` relations,
/// and the URLs in its `style` attribute.
pub(super) fn element_links(sink: &mut impl LinkSink, name: &str, a: &Attrs<'_>) {
    match name {
        "link" => match link_rel(a.rel, a.kind) {
            LinkRel::Embed => opt(sink, a.href, Hop::Embed, "link/@href"),
            LinkRel::Navigate => opt(sink, a.href, Hop::Link, "link/@href"),
            LinkRel::Discovery => opt(sink, a.href, Hop::Link, DISCOVERY_CONTEXT),
            LinkRel::Ignore => {}
        },
        "img" => {
            opt(sink, a.src, Hop::Embed, "img/@src");
            srcset(sink, a.srcset, "img/@srcset");
            opt(sink, a.data_src, Hop::Embed, "img/@data-src");
            srcset(sink, a.data_srcset, "img/@data-srcset");
        }
        "source" => {
            opt(sink, a.src, Hop::Embed, "source/@src");
            srcset(sink, a.srcset, "source/@srcset");
        }
        "script" => opt(sink, a.src, Hop::Embed, "script/@src"),
        "iframe" => opt(sink, a.src, Hop::Embed, "iframe/@src"),
        "frame" => opt(sink, a.src, Hop::Embed, "frame/@src"),
        "embed" => opt(sink, a.src, Hop::Embed, "embed/@src"),
        "object" => opt(sink, a.data, Hop::Embed, "object/@data"),
        "video" => {
            opt(sink, a.src, Hop::Embed, "video/@src");
            opt(sink, a.poster, Hop::Embed, "video/@poster");
        }
        "audio" => opt(sink, a.src, Hop::Embed, "audio/@src"),
        "track" => opt(sink, a.src, Hop::Embed, "track/@src"),
        "input"
            if a.kind
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("image")) =>
        {
            opt(sink, a.src, Hop::Embed, "input/@src");
        }
        "body" => opt(sink, a.background, Hop::Embed, "body/@background"),
        "table" => opt(sink, a.background, Hop::Embed, "table/@background"),
        "td" => opt(sink, a.background, Hop::Embed, "td/@background"),
        "th" => opt(sink, a.background, Hop::Embed, "th/@background"),
        _ => {}
    }
    if let Some(style) = a.style {
        css_links(sink, style, "@style/url()", "@style/@import");
    }
}

fn opt(sink: &mut impl LinkSink, raw: Option<&str>, hop: Hop, context: &'static str) {
    if let Some(raw) = raw {
        sink.link(raw, hop, context);
    }
}

/// The candidates of a `srcset`, each an embed.
fn srcset(sink: &mut impl LinkSink, value: Option<&str>, context: &'static str) {
    if let Some(value) = value {
        srcset_urls(value, |raw| sink.link(raw, Hop::Embed, context));
    }
}

/// The `url()`s and `@import`s of CSS text (a `<style>` element or a `style` attribute).
pub(super) fn css_links(
    sink: &mut impl LinkSink,
    text: &str,
    url_context: &'static str,
    import_context: &'static str,
) {
    css::scan(text, |raw, import| {
        let context = if import { import_context } else { url_context };
        sink.link(&raw, Hop::Embed, context)
    });
}

/// A `<meta>`: robots directives (returned as `(nofollow, noindex)`) and a refresh target.
pub(super) fn meta(sink: &mut impl LinkSink, a: &Attrs<'_>) -> (bool, bool) {
    let mut flags = (false, false);
    if a.name
        .is_some_and(|n| n.trim().eq_ignore_ascii_case("robots"))
    {
        flags = robots_flags(a.content.unwrap_or_default());
    }
    if a.http_equiv
        .is_some_and(|h| h.trim().eq_ignore_ascii_case("refresh"))
    {
        if let Some(url) = a.content.and_then(refresh_url) {
            sink.link(url, Hop::Redirect, "meta/@content");
        }
    }
    flags
}
