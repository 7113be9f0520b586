//! The client's address, decided once per request: the connection's, or, when the connection
//! comes from a proxy named in `--trusted-proxies`, the address that proxy says it forwarded
//! for (`X-Forwarded-For` or `Forwarded`). Rate limits and failed-login counts key on it, so
//! behind a proxy each client has a bucket of its own, and nobody can choose an address by
//! sending the headers past the proxies.
//!
//! The chain is read from the right, the hop nearest the service first: each trusted proxy
//! vouches for the address left of it, and the first address that is not a trusted proxy is the
//! client. A hop that cannot be read ends the walk at the last proxy that was trusted. When a
//! request carries both headers and they name different clients (a trusted proxy appended to
//! one; the other came from the client), neither is believed: the proxy's address is used.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::Response;
use ipnet::IpNet;

use crate::state::AppState;

/// The client's address, as [`resolve`] decided it for this request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

/// Middleware outside the rate limits: puts the request's [`ClientAddress`] in its extensions.
pub async fn resolve(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let address = client_of(connection_address(request.extensions()), request.headers(), &state.config.trusted_proxies);
    request.extensions_mut().insert(ClientAddress(address));
    next.run(request).await
}

/// The connection's address; loopback when the service runs without connection info (tests of
/// the router alone).
fn connection_address(extensions: &axum::http::Extensions) -> IpAddr {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |ConnectInfo(address)| address.ip())
}

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<ClientAddress>()
            .copied()
            .unwrap_or(ClientAddress(connection_address(&parts.extensions))))
    }
}

/// The client behind `peer` (the connection's address), given what the headers say.
pub fn client_of(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let peer = peer.to_canonical();
    let is_trusted = |address: IpAddr| trusted.iter().any(|range| range.contains(&address));
    if !is_trusted(peer) {
        return peer;
    }
    let walk = |hops: &[Option<IpAddr>]| {
        let mut client = peer;
        for hop in hops.iter().rev() {
            if !is_trusted(client) {
                break;
            }
            match hop {
                Some(address) => client = *address,
                None => break,
            }
        }
        client
    };
    match (hops(headers, "forwarded", forwarded_for), hops(headers, "x-forwarded-for", bare_address)) {
        (None, None) => peer,
        (Some(hops), None) | (None, Some(hops)) => walk(&hops),
        (Some(forwarded), Some(x_forwarded)) => {
            let (one, other) = (walk(&forwarded), walk(&x_forwarded));
            if one == other { one } else { peer }
        }
    }
}

/// The hops a header lists, left to right (`None` for one that cannot be read); `None` when
/// the request has no such header.
fn hops(headers: &HeaderMap, name: &str, parse: fn(&str) -> Option<IpAddr>) -> Option<Vec<Option<IpAddr>>> {
    let mut values = headers.get_all(name).iter().peekable();
    values.peek()?;
    let mut hops = Vec::new();
    for value in values {
        match value.to_str() {
            Ok(text) => hops.extend(text.split(',').map(|hop| parse(hop.trim()).map(|address| address.to_canonical()))),
            Err(_) => hops.push(None),
        }
    }
    Some(hops)
}

/// An `X-Forwarded-For` hop: an address, possibly with a port (`192.0.2.1:443`,
/// `[2001:db8::1]:443`) or in brackets.
fn bare_address(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim_matches('"');
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|address| address.ip()))
        .or_else(|| hop.strip_prefix('[')?.strip_suffix(']')?.parse().ok())
}

/// The `for=` of a `Forwarded` element (RFC 7239): `for=192.0.2.60;proto=https`,
/// `for="[2001:db8:cafe::17]:4711"`. `unknown` and obfuscated names are not addresses.
fn forwarded_for(element: &str) -> Option<IpAddr> {
    element.split(';').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        key.trim().eq_ignore_ascii_case("for").then(|| bare_address(value.trim())).flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    fn ranges(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|range| range.parse().expect("a range")).collect()
    }

    #[test]
    fn only_a_trusted_proxy_is_believed() {
        let trusted = ranges(&["10.0.0.0/8"]);
        let forged = headers(&[("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(client_of(ip("198.51.100.4"), &forged, &trusted), ip("198.51.100.4"));
        assert_eq!(client_of(ip("10.0.0.2"), &forged, &trusted), ip("203.0.113.9"));
        assert_eq!(client_of(ip("10.0.0.2"), &forged, &[]), ip("10.0.0.2"), "no proxy is trusted by default");
        assert_eq!(client_of(ip("10.0.0.2"), &HeaderMap::new(), &trusted), ip("10.0.0.2"));
    }

    #[test]
    fn the_chain_is_read_from_the_right() {
        let trusted = ranges(&["10.0.0.0/8"]);
        // The client sent a forged first hop; the proxies appended what they saw.
        let chain = headers(&[("x-forwarded-for", "1.2.3.4, 203.0.113.9, 10.0.0.7")]);
        assert_eq!(client_of(ip("10.0.0.2"), &chain, &trusted), ip("203.0.113.9"));
        let split = headers(&[("x-forwarded-for", "1.2.3.4"), ("x-forwarded-for", "203.0.113.9:5100")]);
        assert_eq!(client_of(ip("10.0.0.2"), &split, &trusted), ip("203.0.113.9"));
        let unreadable = headers(&[("x-forwarded-for", "203.0.113.9, garbage")]);
        assert_eq!(client_of(ip("10.0.0.2"), &unreadable, &trusted), ip("10.0.0.2"));
        let all_proxies = headers(&[("x-forwarded-for", "10.0.0.9, 10.0.0.7")]);
        assert_eq!(client_of(ip("10.0.0.2"), &all_proxies, &trusted), ip("10.0.0.9"));
    }

    #[test]
    fn forwarded_is_read_as_rfc_7239_writes_it() {
        let trusted = ranges(&["127.0.0.1/32", "::1/128"]);
        let v6 = headers(&[("forwarded", "for=192.0.2.43, for=\"[2001:db8:cafe::17]:4711\";proto=https")]);
        assert_eq!(client_of(ip("127.0.0.1"), &v6, &trusted), ip("2001:db8:cafe::17"));
        let unknown = headers(&[("forwarded", "for=unknown")]);
        assert_eq!(client_of(ip("::1"), &unknown, &trusted), ip("::1"));
        let mapped = headers(&[("forwarded", "for=198.51.100.1")]);
        assert_eq!(client_of(ip("::ffff:127.0.0.1"), &mapped, &trusted), ip("198.51.100.1"));
    }

    #[test]
    fn two_headers_that_disagree_are_neither_believed() {
        let trusted = ranges(&["127.0.0.1/32"]);
        let both = headers(&[("forwarded", "for=198.51.100.1"), ("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(client_of(ip("127.0.0.1"), &both, &trusted), ip("127.0.0.1"));
        let agree = headers(&[("forwarded", "for=203.0.113.9"), ("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(client_of(ip("127.0.0.1"), &agree, &trusted), ip("203.0.113.9"));
    }
}
