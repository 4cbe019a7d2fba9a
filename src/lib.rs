//! magpie: an archival-quality, focused web crawler.
//!
//! Module map, in the order data flows through a crawl:
//!
//! - [`model`]: the shared vocabulary (`CrawlUri`, `ExchangeInfo`, `ParsedPage`, `Link`); no I/O.
//! - [`fetch`]: HTTP/1.0 recording client (exact wire bytes, digests, caps, timeouts) and robots.txt policy.

pub mod fetch;
pub mod model;
