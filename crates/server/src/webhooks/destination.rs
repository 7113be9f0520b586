//! Where a webhook may point. Outside the sandbox: https to a public address only, never to a
//! loopback, private, link-local, shared or metadata address (SSRF). The sandbox also allows
//! http and https to loopback, so a developer's local server receives its events.
//!
//! The rule is checked when an endpoint is saved (a clear 400) and again at every delivery,
//! on the addresses the connection will use: a name that resolved to a public address at
//! registration and to a private one later is refused then (DNS rebinding), and redirects are
//! not followed.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// What the environment allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub allow_loopback: bool,
}

/// Whether a connection to `address` is allowed.
pub fn address_allowed(policy: Policy, address: IpAddr) -> bool {
    let address = match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    if address.is_loopback() {
        return policy.allow_loopback;
    }
    match address {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                // Shared address space (carrier-grade NAT) and the benchmarking range.
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (18..20).contains(&b))
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            !(v6.is_unspecified()
                || v6.is_multicast()
                // Unique local (fc00::/7, also cloud metadata fd00:ec2::254) and link-local.
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                // NAT64 and the documentation range can reach anything.
                || first == 0x0064
                || first == 0x2001 && v6.segments()[1] == 0x0db8)
        }
    }
}

/// Why a URL cannot receive webhooks.
pub fn refusal(policy: Policy, scheme: &str, host: &str, addresses: &[SocketAddr]) -> Option<String> {
    if addresses.is_empty() {
        return Some(format!("{host} does not resolve to an address"));
    }
    let all_loopback = addresses.iter().all(|address| address.ip().is_loopback());
    if scheme != "https" && !(policy.allow_loopback && all_loopback) {
        return Some(if policy.allow_loopback {
            "must be https (the sandbox also takes http to a loopback address)".to_owned()
        } else {
            "must be https".to_owned()
        });
    }
    if let Some(address) = addresses.iter().find(|address| !address_allowed(policy, address.ip())) {
        return Some(format!(
            "must point to a public address: {host} resolves to {}, a loopback, private, link-local or reserved \
             address",
            address.ip()
        ));
    }
    None
}

/// The addresses of `host` (an IP address, or a name to look up).
pub async fn resolve(host: &str, port: u16) -> Vec<SocketAddr> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(address) = bare.parse::<IpAddr>() {
        return vec![SocketAddr::new(address, port)];
    }
    match tokio::net::lookup_host((bare, port)).await {
        Ok(addresses) => addresses.collect(),
        Err(_) => Vec::new(),
    }
}

/// The delivery client's resolver: only addresses the policy allows.
pub struct GuardedResolver(pub Policy);

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.0;
        let future: Pin<Box<dyn Future<Output = _> + Send>> = Box::pin(async move {
            let addresses = resolve(name.as_str(), 0).await;
            let allowed: Vec<SocketAddr> =
                addresses.into_iter().filter(|address| address_allowed(policy, address.ip())).collect();
            if allowed.is_empty() {
                return Err(format!("{} resolves to no address webhooks may reach", name.as_str()).into());
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        });
        future
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_outside_the_sandbox() {
        let live = Policy { allow_loopback: false };
        let sandbox = Policy { allow_loopback: true };
        for blocked in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fe80::1",
            "fd00:ec2::254",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "224.0.0.1",
        ] {
            let address: IpAddr = blocked.parse().expect("an address");
            assert!(!address_allowed(live, address), "{blocked}");
        }
        assert!(address_allowed(sandbox, "127.0.0.1".parse().expect("an address")));
        assert!(!address_allowed(sandbox, "10.0.0.1".parse().expect("an address")));
        for public in ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"] {
            assert!(address_allowed(live, public.parse().expect("an address")), "{public}");
        }
    }

    #[test]
    fn http_only_to_loopback_and_only_in_the_sandbox() {
        let loopback = [SocketAddr::from(([127, 0, 0, 1], 9000))];
        let public = [SocketAddr::from(([93, 184, 216, 34], 443))];
        let sandbox = Policy { allow_loopback: true };
        let live = Policy { allow_loopback: false };
        assert_eq!(refusal(sandbox, "http", "127.0.0.1", &loopback), None);
        assert!(refusal(sandbox, "http", "example.com", &public).is_some());
        assert_eq!(refusal(sandbox, "https", "example.com", &public), None);
        assert!(refusal(live, "https", "localhost", &loopback).is_some());
        assert!(refusal(live, "http", "example.com", &public).is_some());
        assert_eq!(refusal(live, "https", "example.com", &public), None);
        assert!(refusal(live, "https", "nowhere.invalid", &[]).is_some());
    }
}
