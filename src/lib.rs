//! magpie: an archival-quality, focused web crawler.
//!
//! Module map, in the order data flows through a crawl
//! (scope → frontier → fetch → parse → archive; `crawl` wires them together):
//!
//! - [`model`]: the shared vocabulary (`CrawlUri`, `ExchangeInfo`, `ParsedPage`, `Link`); no I/O.
//! - [`spec`]: the crawl specification, parsed then validated; errors name the JSON path.
//! - [`uri`]: URL resolution, canonical form, fingerprints, registered domains, SURT.
//! - [`scope`]: decide rules: is a discovered URL part of the crawl?
//! - [`store`]: the only sled user: atomic, durable commits of the crawl state.
//! - [`frontier`]: per-host priority queues on the store, the seen-test, politeness.
//! - [`fetch`]: the recording HTTP client (exact wire bytes), DNS, robots.txt.
//! - [`parse`]: HTML, CSS and sitemap parsing: links with context, text blocks, charsets.
//! - [`archive`]: WARC 1.1 records, the writer with crash recovery, the reader and validator.
//! - [`crawl`]: the engine and the per-exchange processor chain; stats; progress; layout.
//! - [`index`]: the capture index (tantivy): search, facets, capture lookup and replay.
//! - [`export`]: selected captures as a new WARC file with its CDXJ index; CDXJ of any WARC.
//! - [`sample_site`]: a built-in loopback web site for the demo and benchmarks.

pub mod archive;
pub mod crawl;
pub mod export;
pub mod fetch;
pub mod frontier;
pub mod index;
pub mod model;
pub mod parse;
pub mod sample_site;
pub mod scope;
pub mod spec;
pub mod store;
pub mod uri;
