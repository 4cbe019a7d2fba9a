//! magpie: an archival-quality, focused web crawler.
//!
//! Module map, in the order data flows through a crawl:
//!
//! - [`model`]: the shared vocabulary (`CrawlUri`, `ExchangeInfo`, `ParsedPage`, `Link`); no I/O.
//! - [`sample_site`]: a deterministic multi-host loopback web for the demo and the crawl benchmark.

pub mod model;
pub mod sample_site;
