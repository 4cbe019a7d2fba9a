//! magpie: an archival-quality, focused web crawler.
//!
//! Module map, in the order data flows through a crawl
//! (spec → frontier → fetch → parse → aah → analysis → scope → archive → index; `crawl` wires
//! them together), then the server, export and supporting modules:
//!
//! - [`model`]: the shared vocabulary (`CrawlUri`, `ExchangeInfo`, `ParsedPage`, `Link`); no I/O.
//! - [`spec`]: the crawl specification, parsed then validated into typed per-stage sections;
//!   errors name the JSON path.
//! - [`uri`]: URL resolution, canonical form, fingerprints, registered domains, SURT.
//! - [`intake`]: the scored-URL JSON format external scorers POST, and its report.
//! - [`scope`]: decide rules: is a discovered URL part of the crawl?
//! - [`store`]: the only sled user: every key family, and atomic, durable commits of the
//!   crawl's one transaction.
//! - [`frontier`]: per-host priority queues in compact memory over a durable log, the seen-test,
//!   politeness; the engine is written against [`frontier::contract`] (only opening a crawl,
//!   which replays the log and migrates an older crawl's state, and `Engine::new` name the
//!   concrete `Frontier`).
//! - [`http`]: the one lenient HTTP response-head parser, chunked decoder and entity decoder,
//!   for the wire and for stored blocks.
//! - [`fetch`]: the recording HTTP client (exact wire bytes, kept connections), DNS, robots.txt.
//! - [`parse`]: HTML, CSS and sitemap parsing: links with context, text blocks, charsets.
//! - [`aah`]: the application-aware helper: detects web applications and page kinds by XPath from
//!   an XML knowledge base, extracts web objects, judges links, relaxes failing patterns.
//! - [`analysis`]: online analysis: page relevance and outlink scores against the topic.
//! - [`archive`]: WARC 1.1 records, the writer with crash recovery, the reader and validator.
//! - [`index`]: the capture index (tantivy): search, facets, capture lookup and replay.
//! - [`crawl`]: the engine, the per-exchange processor chain and the threads that run it;
//!   rebuilding an index from the WARC files the same way (`reindex`); stats; progress; layout.
//! - [`manager`]: the crawls of `magpie serve`: lifecycle, control, intake routing, restart.
//! - [`web`]: `magpie serve`: the HTTP API (`/api/v1`, events, metrics), the browser cockpit
//!   (askama pages), and `magpie submit`.
//! - [`export`]: selected captures as a new WARC file with its CDXJ index; CDXJ of any WARC.
//! - [`sample_site`]: a built-in loopback web site for the demo and benchmarks, also written out
//!   as files for other servers (`magpie sample-web`).
//! - [`process`]: process-wide setup every command does first (the open-file limit raised).
//! - [`blocking`]: blocking work (fsyncs, rotations, a full queue) run from async code without
//!   holding a tokio worker.
//! - `alloc` (private): mimalloc as every magpie process's allocator, arenas committed on use.
//! - `fuzzing` (hidden): the bodies of the cargo-fuzz targets in `fuzz/`, one function per
//!   target, shared with the regression test `tests/it/fuzz_regressions.rs` (see `docs/fuzzing.md`).

// Everything public says what it is for (CI's clippy denies warnings).
#![warn(missing_docs)]

mod alloc;

pub mod aah;
pub mod analysis;
pub mod archive;
pub mod blocking;
pub mod crawl;
pub mod export;
pub mod fetch;
pub mod frontier;
#[doc(hidden)]
pub mod fuzzing;
pub mod http;
pub mod index;
pub mod intake;
pub mod manager;
pub mod model;
pub mod parse;
pub mod process;
pub mod sample_site;
pub mod scope;
pub mod spec;
pub mod store;
pub mod uri;
pub mod web;
