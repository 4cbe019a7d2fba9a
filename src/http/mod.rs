//! The one place HTTP/1.x messages are read: the lenient response-head parser ([`head`]), the
//! chunked-framing decoder ([`chunked`]) and the content decoding over both ([`body`]), used alike by the fetcher on the wire and by the
//! archive, the index, replay and export on stored blocks, so that a response the fetcher
//! wrote and digested is read back the same way by `magpie warc check` (warcio's tolerance).

pub(crate) mod body;
pub(crate) mod chunked;
pub(crate) mod head;
