//! magpie: an archival-quality, focused web crawler.
//!
//! Module map, in the order data flows through a crawl:
//!
//! - [`model`]: the shared vocabulary (`CrawlUri`, `ExchangeInfo`, `ParsedPage`, `Link`); no I/O.
//! - [`uri`]: URL resolution, canonical form and fingerprint for the seen-test, host keys, registered domains, SURT.
//! - [`parse`]: documents to `ParsedPage`: charset decoding, HTML links with context and text blocks, CSS links, sitemaps.

pub mod model;
pub mod parse;
pub mod uri;
