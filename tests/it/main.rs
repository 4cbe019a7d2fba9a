//! magpie's integration tests, one binary: a module per topic, and the support modules they
//! share (`support`: the loopback fixture web and its scenarios; `web_support`: a served
//! `magpie serve`; `cockpit_support`: the cockpit in a browser; `aah_sites`: the helper's
//! fixture sites). One binary links the library once, where a binary per topic linked it fifty
//! times. Run one topic with `cargo test --test it TOPIC::`.

mod aah_sites;
mod cockpit_support;
mod support;
mod web_support;

mod aah_bandwidth;
mod aah_cli;
mod aah_kb;
mod aah_real;
mod aah_relax;
mod api_cli;
mod api_crawls;
mod api_idle;
mod api_index;
mod api_intake;
mod api_learned;
mod api_openapi;
mod api_scored_crawl;
mod api_views;
mod boundaries;
mod cdxj_pywb;
mod cli;
mod cockpit_browser;
mod cockpit_pages;
mod cockpit_replay;
mod cockpit_reports;
mod cockpit_search;
mod cockpit_trust;
mod cockpit_workflows;
mod cockpit_xpath_limits;
mod constants;
mod crawl_basic;
mod crawl_copies;
mod crawl_descriptors;
mod crawl_failures;
mod crawl_features;
mod crawl_focus;
mod crawl_hostile;
mod crawl_log;
mod crawl_nginx;
mod crawl_pacing;
mod crawl_resume;
mod crawl_state;
mod demo;
mod export_replay;
mod export_wacz;
mod fixture_scenarios;
mod fixture_web;
mod focus_eval;
mod frontier_model;
mod fuzz_regressions;
mod index_search;
mod replay_pywb;
mod robots_protego;
mod web_rebinding;
mod web_sessions;
