//! A rule name's evidence over all hosts, which makes it likely crawl-wide.

use super::EXAMPLES_TO_ADOPT;

/// What the hosts learnt about one rule name, together. Before any host has adopted a rule,
/// every host meets it at once at the start of a crawl and each would fetch its own examples;
/// a name with [`EXAMPLES_TO_ADOPT`] examples over at least two hosts and no counter-example
/// anywhere is *likely*, so the other hosts' variants of it wait last (see [`super::Copies::suspect`])
/// instead of being fetched as examples. Only adoption on a host skips a URL.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Tally {
    pub(super) examples: u32,
    pub(super) hosts: u32,
    pub(super) refuted: bool,
}

impl Tally {
    pub(super) fn likely(self) -> bool {
        !self.refuted && self.examples >= EXAMPLES_TO_ADOPT && self.hosts >= 2
    }
}
