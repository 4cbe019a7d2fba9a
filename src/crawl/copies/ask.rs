//! What the engine asks of the learned rules about a URL it is about to queue: whether it is
//! a copy to skip, or a likely copy to queue last.

use super::{fingerprint, reductions, Copies, RuleState, Variant, MAX_REPRESENTED};
use url::Url;

impl Copies {
    /// Whether `url`, about to be queued on `host`, is a copy to skip: the rule that makes it
    /// one, when an adopted rule matches it and its original is known (`known` is asked with
    /// the original's fingerprint: queued or fetched) or another variant of it was let through;
    /// or when `url` is itself the original of a variant, under a rule in force, that was let
    /// through or fetched (the page is archived under that variant). A matching URL that is let
    /// through stands for its original from then on.
    #[cfg(test)]
    pub fn skip(&mut self, host: &str, url: &Url, known: impl Fn(u64) -> bool) -> Option<Variant> {
        self.skip_arrival(host, url, false, known)
    }

    /// [`Copies::skip`] for a URL that may be a redirect's target (`redirected`): a final slash
    /// a redirect added is the page (`/d/5` answering 301 to `/d/5/`), never a copy of the URL
    /// it was added to, even on a host that serves other URLs both ways.
    pub fn skip_arrival(
        &mut self,
        host: &str,
        url: &Url,
        redirected: bool,
        known: impl Fn(u64) -> bool,
    ) -> Option<Variant> {
        let rules = self.hosts.get_mut(host)?;
        let fp = fingerprint(url);
        let fetched = self.window.variants.get(&fp).into_iter().flatten();
        let standing = fetched
            .map(|(v, _)| v)
            .chain(self.represented.get(&fp))
            .find(|v| rules.get(*v).is_some_and(|r| r.state == RuleState::Adopted))
            .cloned();
        if let Some(v) = standing {
            if let Some(rule) = rules.get_mut(&v) {
                rule.skipped += 1;
            }
            self.dirty = true;
            return Some(v);
        }
        let adopted_here: Vec<Variant> = rules
            .iter()
            .filter(|(_, r)| r.state == RuleState::Adopted)
            .map(|(v, _)| v.clone())
            .collect();
        let mut through = None;
        for (v, rule) in rules.iter_mut() {
            if rule.state != RuleState::Adopted || (redirected && *v == Variant::Slash) {
                continue;
            }
            let Some(orig) = v.original(url) else {
                continue;
            };
            let ofp = fingerprint(&orig);
            // A variant of the original fetched under a rule in force also holds its page.
            let held = self
                .window
                .variants
                .get(&ofp)
                .is_some_and(|l| l.iter().any(|(w, _)| w != v && adopted_here.contains(w)));
            if known(ofp) || held || self.represented.contains_key(&ofp) {
                rule.skipped += 1;
                self.dirty = true;
                return Some(v.clone());
            }
            through.get_or_insert((ofp, v.clone()));
        }
        if let Some((ofp, v)) = through {
            if self.represented.len() < MAX_REPRESENTED {
                self.represented.insert(ofp, v);
            }
        }
        None
    }

    /// Whether `url`, about to be queued on `host` (or queued there), is likely a copy: a rule
    /// of its name is in force on another host, not yet decided on this one, and the URL it
    /// would copy is queued or fetched here; or `url` is the original of a variant fetched
    /// here under such a rule. Such a URL is queued at the lowest priority: fetched when its
    /// host has nothing better, where it serves as an example, so a rule other hosts confirmed
    /// costs this host its examples only when its better URLs are fetched.
    pub fn suspect(&self, host: &str, url: &Url, known: impl Fn(u64) -> bool) -> bool {
        if !self.any() {
            return false;
        }
        let rules = self.hosts.get(host);
        let undecided_here = |v: &Variant| {
            rules
                .and_then(|r| r.get(v))
                .is_none_or(|r| r.state == RuleState::Candidate)
        };
        // The page was fetched under a variant: likely archived already.
        let held = self
            .window
            .variants
            .get(&fingerprint(url))
            .is_some_and(|l| {
                l.iter()
                    .any(|(v, _)| undecided_here(v) && self.in_force_elsewhere(host, v))
            });
        if held {
            return true;
        }
        // A variant, under a rule in force here, of a page fetched only under a variant of
        // another kind, still undecided here: it waits, in case that rule is adopted (then it
        // is dropped from the queue as a copy).
        let in_force = |v: &Variant| {
            rules
                .and_then(|r| r.get(v))
                .is_some_and(|r| r.state == RuleState::Adopted)
        };
        let waits = rules.is_some_and(|r| r.values().any(|r| r.state == RuleState::Adopted))
            && reductions(url).into_iter().any(|(v, orig)| {
                in_force(&v)
                    && self
                        .window
                        .variants
                        .get(&fingerprint(&orig))
                        .is_some_and(|l| l.iter().any(|(w, _)| *w != v && !in_force(w)))
            });
        if waits {
            return true;
        }
        reductions(url).into_iter().any(|(v, orig)| {
            undecided_here(&v) && self.in_force_elsewhere(host, &v) && known(fingerprint(&orig))
        })
    }
}
