//! magpie: an archival-quality, focused web crawler.
//!
//! Module map, in the order data flows through a crawl:
//!
//! - [`model`]: the shared vocabulary (`CrawlUri`, `ExchangeInfo`, `ParsedPage`, `Link`); no I/O.
//! - [`archive`]: WARC 1.1 records (one gzip member each), the rotating writer with checkpoints
//!   and crash recovery, the streaming reader and the `warc check` validator.

pub mod archive;
pub mod model;
