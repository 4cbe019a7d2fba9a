//! Hostile or malformed content for end-to-end tests: a gzip bomb, broken and legacy
//! encodings, and bodies whose Content-Type lies.

use super::scenarios::page;
use super::{FixtureWeb, Reply};
use flate2::{Compress, Compression, Crc, FlushCompress};
use magpie::sample_site::tiny_png;
use std::sync::OnceLock;

/// Size of one independently compressed run of zeros in [`gzip_zeros`].
const SEGMENT: usize = 1 << 20;

/// A gzip member that inflates to `mib` MiB of zero bytes, built in milliseconds: one MiB of
/// zeros is deflated once, ending in a full flush (byte-aligned, no back-references across
/// the boundary), and that segment is repeated `mib` times before an empty final block.
/// About 1 KiB of output per MiB.
pub fn gzip_zeros(mib: u32) -> Vec<u8> {
    let zeros = vec![0u8; SEGMENT];
    let mut deflate = Compress::new(Compression::best(), false);
    let mut segment = Vec::with_capacity(4096);
    loop {
        let consumed = deflate.total_in() as usize;
        deflate
            .compress_vec(&zeros[consumed..], &mut segment, FlushCompress::Full)
            .expect("deflate zeros");
        if deflate.total_in() as usize == SEGMENT && segment.len() < segment.capacity() {
            break;
        }
        segment.reserve(4096);
    }
    let mut one = Crc::new();
    one.update(&zeros);
    let mut crc = Crc::new();
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff];
    out.reserve(segment.len() * mib as usize + 18);
    for _ in 0..mib {
        out.extend_from_slice(&segment);
        crc.combine(&one);
    }
    out.extend_from_slice(&[0x01, 0x00, 0x00, 0xff, 0xff]); // final, empty stored block
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&crc.amount().to_le_bytes()); // ISIZE: length mod 2^32
    out
}

/// The 1 GiB bomb, built once per test binary (about 1 MiB compressed).
pub fn gzip_bomb_bytes() -> &'static [u8] {
    static BOMB: OnceLock<Vec<u8>> = OnceLock::new();
    BOMB.get_or_init(|| gzip_zeros(1024))
}

/// `/bomb.html`: `Content-Encoding: gzip` HTML whose body inflates to 1 GiB; returns its URL.
pub fn gzip_bomb(web: &FixtureWeb, host: usize) -> String {
    let headers = vec![
        (
            "Content-Type".to_string(),
            "text/html; charset=utf-8".to_string(),
        ),
        ("Content-Encoding".to_string(), "gzip".to_string()),
    ];
    web.route(
        host,
        "/bomb.html",
        Reply::Status {
            status: 200,
            headers,
            body: gzip_bomb_bytes().to_vec(),
        },
    );
    web.url(host, "/bomb.html")
}

/// `/invalid-utf8.html`: declared UTF-8 (header and meta) but containing invalid bytes (a
/// stray continuation byte, a truncated sequence, 0xFF) in the title and text; it still
/// links to `/after-invalid.html`. Returns its URL.
pub fn invalid_utf8(web: &FixtureWeb, host: usize) -> String {
    let mut body = Vec::new();
    body.extend_from_slice(b"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Broken \xff\xfe title</title></head>\n");
    body.extend_from_slice(
        b"<body><p>A stray \x80 byte, a truncated \xe2\x82 sequence, and \xc3\xa9 valid.</p>\n",
    );
    body.extend_from_slice(
        b"<p><a href=\"/after-invalid.html\">still a link</a></p></body></html>\n",
    );
    web.route(
        host,
        "/invalid-utf8.html",
        Reply::typed("text/html; charset=utf-8", body),
    );
    web.route(
        host,
        "/after-invalid.html",
        Reply::html(page("After invalid", "", &[])),
    );
    web.url(host, "/invalid-utf8.html")
}

/// URLs of [`wrong_content_type`].
#[derive(Debug, Clone)]
pub struct WrongTypes {
    /// `/looks-like.png`: an HTML page (linking to `/from-mislabelled.html`) served as `image/png`.
    pub html_as_png: String,
    /// `/picture.html`: PNG bytes served as `text/html; charset=utf-8`.
    pub png_as_html: String,
}

/// Two bodies whose Content-Type lies; see [`WrongTypes`].
pub fn wrong_content_type(web: &FixtureWeb, host: usize) -> WrongTypes {
    let html = page("Mislabelled page", "", &["/from-mislabelled.html"]);
    web.route(host, "/looks-like.png", Reply::typed("image/png", html));
    web.route(
        host,
        "/from-mislabelled.html",
        Reply::html(page("Reached via a mislabelled page", "", &[])),
    );
    web.route(
        host,
        "/picture.html",
        Reply::typed("text/html; charset=utf-8", tiny_png([1, 2, 3])),
    );
    WrongTypes {
        html_as_png: web.url(host, "/looks-like.png"),
        png_as_html: web.url(host, "/picture.html"),
    }
}

/// `/latin1.html`: windows-1252 bytes (é, è, û, €, curly quotes) served as `text/html`
/// without a charset parameter and declared in a `<meta http-equiv>` tag. The title decodes
/// to "Crème brûlée" and the text contains "“quoted” 5 €"; links to `/latin1-next.html`.
pub fn latin1_page(web: &FixtureWeb, host: usize) -> String {
    let mut body = Vec::new();
    body.extend_from_slice(b"<!DOCTYPE html>\n<html lang=\"fr\"><head>\n");
    body.extend_from_slice(
        b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">\n",
    );
    body.extend_from_slice(b"<title>Cr\xe8me br\xfbl\xe9e</title></head>\n");
    body.extend_from_slice(b"<body><p>Le caf\xe9 co\xfbte \x93quoted\x94 5 \x80 ici.</p>\n");
    body.extend_from_slice(b"<p><a href=\"/latin1-next.html\">suite</a></p></body></html>\n");
    web.route(host, "/latin1.html", Reply::typed("text/html", body));
    web.route(
        host,
        "/latin1-next.html",
        Reply::html(page("After latin1", "", &[])),
    );
    web.url(host, "/latin1.html")
}
