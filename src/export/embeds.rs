//! Page requisites of exported pages: the `outlink: URL E …` lines of each capture's metadata
//! record, followed through stylesheets (embeds of embeds) and redirects of embeds, each
//! resolved to the capture of that URL nearest in time to the page.

use super::ExportError;
use crate::archive::WarcReader;
use crate::index::{CaptureRef, Index, Location};
use std::collections::HashSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How many embed levels are followed (page → stylesheet → background image → ...).
const MAX_DEPTH: usize = 4;
/// Largest metadata record read.
const MAX_METADATA: u64 = 4 << 20;

/// The captures of the requisites of `pages`, excluding the pages themselves.
pub(super) fn requisites(
    index: &Index,
    warc_dir: &Path,
    pages: &[CaptureRef],
) -> Result<Vec<CaptureRef>, ExportError> {
    let mut seen_urls: HashSet<String> = pages.iter().map(|p| p.url.clone()).collect();
    let mut found = Vec::new();
    let mut level: Vec<(CaptureRef, bool)> = pages.iter().map(|p| (p.clone(), false)).collect();
    for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for (capture, is_embed) in &level {
            let Some(rel) = &capture.related else {
                continue;
            };
            for url in outlinks(warc_dir, rel, *is_embed)? {
                if !seen_urls.insert(url.clone()) {
                    continue;
                }
                if let Some(c) = nearest(index.captures_of(&url)?, &url, capture) {
                    next.push((c.clone(), true));
                    found.push(c);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    Ok(found)
}

/// The capture of exactly `url` closest in time to `page`.
fn nearest(all: Vec<CaptureRef>, url: &str, page: &CaptureRef) -> Option<CaptureRef> {
    all.into_iter().filter(|c| c.url == url).min_by_key(|c| {
        (c.time - page.time)
            .num_microseconds()
            .unwrap_or(i64::MAX)
            .abs()
    })
}

/// Embed targets named in the metadata record among the records at `rel` (and redirect
/// targets too when the capture is itself an embed).
fn outlinks(
    warc_dir: &Path,
    rel: &Location,
    follow_redirects: bool,
) -> Result<Vec<String>, ExportError> {
    let path = crate::index::record_path(warc_dir, &rel.file);
    let io_err = |e| ExportError::Io {
        path: path.clone(),
        source: e,
    };
    let mut f = File::open(&path).map_err(io_err)?;
    f.seek(SeekFrom::Start(rel.offset)).map_err(io_err)?;
    let mut bytes = Vec::with_capacity(rel.length.min(MAX_METADATA) as usize);
    f.take(rel.length.min(MAX_METADATA))
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    let mut r = WarcReader::with_origin(&bytes[..], rel.file.clone(), rel.offset)?;
    let mut urls = Vec::new();
    while let Some(head) = r.next_record()? {
        if head.record_type() != "metadata" {
            continue;
        }
        let mut block = Vec::new();
        r.block()
            .take(MAX_METADATA)
            .read_to_end(&mut block)
            .map_err(io_err)?;
        for line in String::from_utf8_lossy(&block).lines() {
            let Some(rest) = line.strip_prefix("outlink:") else {
                continue;
            };
            let mut parts = rest.split_whitespace();
            let (Some(url), Some(hop)) = (parts.next(), parts.next()) else {
                continue;
            };
            if hop == "E" || (follow_redirects && hop == "R") {
                urls.push(url.to_string());
            }
        }
    }
    Ok(urls)
}
