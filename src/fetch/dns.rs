//! Host name resolution with a per-host cache, and the test for addresses a crawl must not reach.

use super::FetchError;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Entries kept before expired ones are swept out (bounds memory on wide crawls).
const SWEEP_AT: usize = 65_536;

/// Resolved addresses by host, each valid until its expiry instant.
///
/// One address per host is kept and reused for `ttl`, so every fetch from a host in that window
/// goes to the same (already checked) address, and a DNS answer cannot change between the
/// private-address check and the connect.
pub(crate) struct DnsCache {
    ttl: Duration,
    timeout: Duration,
    map: Mutex<HashMap<String, (IpAddr, Instant)>>,
}

impl DnsCache {
    /// An empty cache; `timeout` bounds each lookup.
    pub(crate) fn new(ttl: Duration, timeout: Duration) -> DnsCache {
        DnsCache {
            ttl,
            timeout,
            map: Mutex::new(HashMap::new()),
        }
    }

    /// The address for `host`: an IP literal as is, else the cached or freshly resolved address
    /// (the first IPv4 address if there is one, since IPv6 routes are often missing).
    pub(crate) async fn resolve(&self, host: &str) -> Result<IpAddr, FetchError> {
        if let Some(ip) = ip_literal(host) {
            return Ok(ip);
        }
        let now = Instant::now();
        if let Some(&(ip, expires)) = self.lock().get(host) {
            if expires > now {
                return Ok(ip);
            }
        }
        let dns_err = |reason: String| FetchError::Dns {
            host: host.to_string(),
            reason,
        };
        let lookup = tokio::net::lookup_host((host, 0u16));
        let addrs = match tokio::time::timeout(self.timeout, lookup).await {
            Err(_) => return Err(dns_err("timed out".into())),
            // getaddrinfo needs a socket (or a file) too: running out of them is not the
            // name's failure.
            Ok(Err(e)) => {
                return Err(match crate::process::out_of_descriptors(&e) {
                    Some(errno) => FetchError::OutOfDescriptors {
                        url: host.to_string(),
                        errno,
                        source: e,
                    },
                    None => dns_err(e.to_string()),
                })
            }
            Ok(Ok(addrs)) => addrs,
        };
        let mut first = None;
        let mut v4 = None;
        for a in addrs {
            first.get_or_insert(a.ip());
            if a.is_ipv4() {
                v4 = Some(a.ip());
                break;
            }
        }
        let ip = v4.or(first).ok_or_else(|| dns_err("no addresses".into()))?;
        let mut map = self.lock();
        if map.len() >= SWEEP_AT {
            map.retain(|_, (_, exp)| *exp > now);
            if map.len() >= SWEEP_AT {
                map.clear();
            }
        }
        map.insert(host.to_string(), (ip, now + self.ttl));
        Ok(ip)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (IpAddr, Instant)>> {
        // A panic elsewhere while holding the lock leaves a usable map; keep going.
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Parses `host` as an IP literal, with or without the brackets URLs put around IPv6.
fn ip_literal(host: &str) -> Option<IpAddr> {
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    bare.parse().ok()
}

/// Whether an address is not publicly routable: loopback, RFC 1918, link-local, CGNAT,
/// unspecified, multicast, broadcast, documentation and benchmarking ranges, IPv6 ULA and
/// site-local, and IPv6 forms that embed such an IPv4 address (mapped, compatible, NAT64, 6to4).
///
/// A crawler that follows links from the open web must not be steered into the network it runs
/// in (router admin pages, cloud metadata at 169.254.169.254, internal services).
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_private_v4(v4),
        IpAddr::V6(v6) => is_private_v6(v6),
    }
}

fn is_private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    a == 0 // "this network", including 0.0.0.0
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b)) // CGNAT 100.64.0.0/10
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 168)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // TEST-NET-1
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // TEST-NET-3
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 224 // multicast, reserved, broadcast
}

fn is_private_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_private_v4(v4);
    }
    let s = ip.segments();
    let embedded_low =
        || Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..6] == [0; 6] {
        // :: and ::1 (embedded 0.0.0.x), and the deprecated IPv4-compatible form ::a.b.c.d.
        return is_private_v4(embedded_low());
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_private_v4(embedded_low()); // NAT64 well-known prefix
    }
    if s[0] == 0x2002 {
        // 6to4 carries an IPv4 address in bits 16..48.
        let v4 = Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8);
        return is_private_v4(v4);
    }
    (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (s[0] & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated)
        || (s[0] & 0xff00) == 0xff00 // multicast
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]) // discard 100::/64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("test address")
    }

    #[test]
    fn private_ranges() {
        for s in [
            "127.0.0.1",
            "127.255.0.9",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.2.5",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::10.0.0.1",
            "2002:c0a8:0101::1",
            "2001:db8::1",
        ] {
            assert!(is_private(ip(s)), "{s} should be private");
        }
        for s in [
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
            "172.32.0.1",
            "172.15.255.255",
            "100.63.255.255",
            "100.128.0.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:0808:0808::1",
        ] {
            assert!(!is_private(ip(s)), "{s} should be public");
        }
    }

    #[tokio::test]
    async fn literals_skip_dns_and_localhost_resolves() {
        let cache = DnsCache::new(Duration::from_secs(60), Duration::from_secs(5));
        assert_eq!(cache.resolve("192.0.2.7").await.ok(), Some(ip("192.0.2.7")));
        assert_eq!(cache.resolve("[::1]").await.ok(), Some(ip("::1")));
        let local = cache
            .resolve("localhost")
            .await
            .expect("localhost resolves");
        assert!(local.is_loopback(), "localhost gave {local}");
        assert!(cache.lock().contains_key("localhost"), "cached");
        // Served from the cache: same answer.
        assert_eq!(cache.resolve("localhost").await.ok(), Some(local));
    }

    #[tokio::test]
    async fn cache_is_used_until_expiry() {
        let cache = DnsCache::new(Duration::from_secs(60), Duration::from_secs(5));
        // A name that cannot resolve (reserved TLD), pre-seeded: the cache answers.
        let planted = ip("203.0.113.9");
        cache.lock().insert(
            "cached.invalid".into(),
            (planted, Instant::now() + Duration::from_secs(60)),
        );
        assert_eq!(cache.resolve("cached.invalid").await.ok(), Some(planted));
        // Expired: a real lookup happens, and `.invalid` never resolves.
        cache
            .lock()
            .insert("cached.invalid".into(), (planted, Instant::now()));
        let err = cache.resolve("cached.invalid").await.expect_err("expired");
        assert_eq!(err.kind(), "dns");
        assert!(err.to_string().contains("cached.invalid"));
    }
}
