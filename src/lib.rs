//! magpie: an archival-quality, focused web crawler.
//!
//! Module map, in the order data flows through a crawl:
//!
//! - [`model`]: the shared vocabulary (`CrawlUri`, `ExchangeInfo`, `ParsedPage`, `Link`); no I/O.

pub mod frontier;
pub mod model;
pub mod spec;
pub mod store;
