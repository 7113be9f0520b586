//! Where a webhook may point. By default: https to a public address only, never to a
//! loopback, private, link-local, shared or metadata address (SSRF). A sandbox started with
//! `--webhooks-allow-private` (the dashboard's embedded one) also sends to loopback and
//! private-network addresses, over http too, so a developer's local server receives its
//! events; link-local and cloud-metadata addresses stay refused even then.
//!
//! The rule is checked when an endpoint is saved (a clear 400) and again at every delivery,
//! on the addresses the connection will use: a name that resolved to a public address at
//! registration and to a private one later is refused then (DNS rebinding), and redirects are
//! not followed. Names are looked up by an asynchronous resolver (hickory) with a time limit,
//! never on the threads database work uses.

use std::future::Future;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hickory_resolver::TokioResolver;
use hickory_resolver::config::ResolverConfig;
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The longest a name's look-up may take, at registration and at delivery.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);

/// The cloud metadata service's IPv6 address (AWS): a unique-local address never allowed.
const METADATA_V6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254);

/// What the configuration allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Loopback and private-network addresses, and http to them (`--webhooks-allow-private`).
    pub allow_private: bool,
}

/// Whether `address` is on this machine or a private network (RFC 1918, unique-local IPv6).
fn is_loopback_or_private(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private(),
        IpAddr::V6(v6) => v6.is_loopback() || ((v6.segments()[0] & 0xfe00) == 0xfc00 && v6 != METADATA_V6),
    }
}

/// Whether a connection to `address` is allowed.
pub fn address_allowed(policy: Policy, address: IpAddr) -> bool {
    let address = address.to_canonical();
    if is_loopback_or_private(address) {
        return policy.allow_private;
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

/// Why a URL cannot receive webhooks. The answer never says what a name resolves to, nor
/// whether it resolves at all: the service's resolver sees the internal network, and a
/// subscriber must not learn its names and addresses through this message (a name that does
/// not resolve and one that resolves inside read alike).
pub fn refusal(policy: Policy, scheme: &str, host: &str, addresses: &[SocketAddr]) -> Option<String> {
    let all_local =
        !addresses.is_empty() && addresses.iter().all(|address| is_loopback_or_private(address.ip().to_canonical()));
    if scheme != "https" && !(policy.allow_private && all_local) {
        return Some(if policy.allow_private {
            "must be https (http only to a loopback or private address)".to_owned()
        } else {
            "must be https".to_owned()
        });
    }
    if addresses.is_empty() || addresses.iter().any(|address| !address_allowed(policy, address.ip())) {
        return Some(format!(
            "{host} is not allowed: webhooks go to hosts with public addresses that resolve within {} s{}",
            LOOKUP_TIMEOUT.as_secs(),
            if policy.allow_private {
                " (or to this machine and private networks)"
            } else {
                " (a sandbox reaches this machine and private networks only with --webhooks-allow-private)"
            }
        ));
    }
    None
}

/// Looks names up asynchronously, with the system's resolver configuration and hosts file.
#[derive(Clone)]
pub struct Resolver(Arc<TokioResolver>);

impl Resolver {
    /// The system's configuration (`/etc/resolv.conf`, `/etc/hosts`); without one, the hosts
    /// file alone (a name it does not list does not resolve).
    pub fn from_system() -> Self {
        let builder = TokioResolver::builder_tokio().unwrap_or_else(|error| {
            tracing::warn!(error = %error, "no DNS configuration: webhook hosts resolve from /etc/hosts only");
            TokioResolver::builder_with_config(ResolverConfig::default(), TokioRuntimeProvider::default())
        });
        let resolver = match builder.build() {
            Ok(resolver) => resolver,
            Err(error) => {
                tracing::warn!(error = %error, "DNS resolver not configured: webhook hosts resolve from /etc/hosts only");
                TokioResolver::builder_with_config(ResolverConfig::default(), TokioRuntimeProvider::default())
                    .build()
                    .unwrap_or_else(|_| unreachable!("an empty configuration builds"))
            }
        };
        Self(Arc::new(resolver))
    }

    /// A resolver asking only the DNS server at `server` (UDP), for tests.
    #[cfg(test)]
    fn asking(server: SocketAddr) -> Self {
        use hickory_resolver::config::{ConnectionConfig, NameServerConfig, ResolveHosts};
        let mut connection = ConnectionConfig::udp();
        connection.port = server.port();
        let config =
            ResolverConfig::from_name_servers(vec![NameServerConfig::new(server.ip(), true, vec![connection])]);
        let mut builder = TokioResolver::builder_with_config(config, TokioRuntimeProvider::default());
        builder.options_mut().use_hosts_file = ResolveHosts::Never;
        Self(Arc::new(builder.build().expect("a resolver")))
    }

    /// The addresses of `host` (an IP address, or a name to look up within
    /// [`LOOKUP_TIMEOUT`]); none when it does not resolve in time.
    pub async fn resolve(&self, host: &str, port: u16) -> Vec<SocketAddr> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(address) = bare.parse::<IpAddr>() {
            return vec![SocketAddr::new(address, port)];
        }
        match tokio::time::timeout(LOOKUP_TIMEOUT, self.0.lookup_ip(bare)).await {
            Ok(Ok(found)) => found.iter().map(|address| SocketAddr::new(address, port)).collect(),
            Ok(Err(_)) | Err(_) => Vec::new(),
        }
    }
}

/// The delivery client's resolver: only addresses the policy allows.
pub struct GuardedResolver {
    pub policy: Policy,
    pub resolver: Resolver,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let (policy, resolver) = (self.policy, self.resolver.clone());
        let future: Pin<Box<dyn Future<Output = _> + Send>> = Box::pin(async move {
            let addresses = resolver.resolve(name.as_str(), 0).await;
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
    fn only_public_addresses_by_default() {
        let public_only = Policy { allow_private: false };
        let local = Policy { allow_private: true };
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
            assert!(!address_allowed(public_only, address), "{blocked}");
        }
        for private in ["127.0.0.1", "10.0.0.1", "192.168.1.1", "::1", "fd12::1", "::ffff:127.0.0.1"] {
            assert!(address_allowed(local, private.parse().expect("an address")), "{private}");
        }
        for never in ["169.254.169.254", "fd00:ec2::254", "fe80::1", "0.0.0.0", "100.64.0.1"] {
            assert!(!address_allowed(local, never.parse().expect("an address")), "{never}");
        }
        for public in ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"] {
            assert!(address_allowed(public_only, public.parse().expect("an address")), "{public}");
        }
    }

    #[test]
    fn http_only_to_this_machine_or_a_private_network_and_only_when_allowed() {
        let loopback = [SocketAddr::from(([127, 0, 0, 1], 9000))];
        let private = [SocketAddr::from(([192, 168, 1, 20], 9000))];
        let public = [SocketAddr::from(([93, 184, 216, 34], 443))];
        let local = Policy { allow_private: true };
        let public_only = Policy { allow_private: false };
        assert_eq!(refusal(local, "http", "127.0.0.1", &loopback), None);
        assert_eq!(refusal(local, "http", "nas.lan", &private), None);
        assert!(refusal(local, "http", "example.com", &public).is_some());
        assert_eq!(refusal(local, "https", "example.com", &public), None);
        assert!(refusal(public_only, "http", "127.0.0.1", &loopback).is_some());
        assert!(refusal(public_only, "https", "localhost", &loopback).is_some());
        assert!(refusal(public_only, "http", "example.com", &public).is_some());
        assert_eq!(refusal(public_only, "https", "example.com", &public), None);
        assert!(refusal(public_only, "https", "nowhere.invalid", &[]).is_some());
    }

    /// Whatever a name resolves to, or whether it resolves, the refusal reads the same: no
    /// internal-DNS oracle.
    #[test]
    fn a_refusal_never_says_what_a_name_resolves_to() {
        let public_only = Policy { allow_private: false };
        let inside = [SocketAddr::from(([10, 20, 30, 40], 443)), SocketAddr::from(([93, 184, 216, 34], 443))];
        let refused = refusal(public_only, "https", "db.corp", &inside).expect("refused");
        assert!(!refused.contains("10.20.30.40") && !refused.contains("93.184") && refused.contains("not allowed"));
        assert_eq!(refusal(public_only, "https", "db.corp", &[]), Some(refused), "alike when it does not resolve");
    }

    /// A DNS server that never answers: each look-up gives up after 5 s, and a hundred of them
    /// at once hold no thread of the blocking pool (the one database work uses), which stays
    /// free for a job meanwhile.
    #[test]
    fn a_name_that_never_resolves_gives_up_within_the_limit_off_the_blocking_pool() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let silent = std::net::UdpSocket::bind("127.0.0.1:0").expect("a socket that never answers");
            let resolver = Resolver::asking(silent.local_addr().expect("bound"));
            let started = std::time::Instant::now();
            let lookups: Vec<_> = (0..100)
                .map(|index| {
                    let resolver = resolver.clone();
                    tokio::spawn(async move { resolver.resolve(&format!("slow-{index}.example"), 443).await })
                })
                .collect();
            tokio::time::sleep(Duration::from_millis(200)).await;
            let blocking = tokio::time::timeout(Duration::from_secs(2), tokio::task::spawn_blocking(|| 42)).await;
            assert_eq!(blocking.ok().and_then(Result::ok), Some(42), "the blocking pool is free during look-ups");
            for lookup in lookups {
                assert_eq!(lookup.await.expect("the look-up ends"), Vec::<SocketAddr>::new());
            }
            let waited = started.elapsed();
            assert!(waited < LOOKUP_TIMEOUT + Duration::from_secs(3), "the look-ups ended after {waited:?}");
        });
    }

    #[tokio::test]
    async fn names_resolve_asynchronously_from_the_hosts_file() {
        let resolver = Resolver::from_system();
        let addresses = resolver.resolve("localhost", 80).await;
        assert!(addresses.iter().any(|address| address.ip().is_loopback()), "{addresses:?}");
        assert_eq!(resolver.resolve("[::1]", 8).await, vec![SocketAddr::from((Ipv6Addr::LOCALHOST, 8))]);
    }
}
