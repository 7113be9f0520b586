//! The environment the dashboard talks to, and the typed clients it talks through.

use std::time::Duration;

use subscriber_client::{Client, RetryPolicy};
use subscriber_protocol::Environment;
use subscriber_server::config::{LOCAL_SECRET_HEADER, LocalGuard};

use crate::error::{CommandError, codes};
use crate::views::{ConnectionInfo, ConnectionTarget};

/// A service that does not accept a connection within this is reported as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const USER_AGENT: &str = concat!("subscriber-dashboard/", env!("CARGO_PKG_VERSION"));
/// As `subscriber-client` writes it after ours when it makes its own HTTP client.
const CLIENT_USER_AGENT: &str = concat!("subscriber-client/", env!("CARGO_PKG_VERSION"));

/// A chosen, reachable service.
#[derive(Debug, Clone)]
pub struct Connection {
    pub target: ConnectionTarget,
    /// Without a trailing slash.
    pub base_url: String,
    /// As chosen, then as the service reports it once signed in.
    pub environment: Environment,
    /// The embedded sandbox's guard, whose secret goes on every request to it.
    pub guard: Option<LocalGuard>,
}

impl Connection {
    pub fn info(&self) -> ConnectionInfo {
        ConnectionInfo {
            target: self.target.clone(),
            base_url: self.base_url.clone(),
            environment: self.environment,
            embedded: self.target == ConnectionTarget::Sandbox,
        }
    }

    /// A client without credentials (sign-up, the probe).
    pub fn anonymous(&self) -> Result<Client, CommandError> {
        Ok(self.builder()?.build()?)
    }

    /// The signed-in session's client: it logs in with these credentials by itself and renews
    /// its token before expiry.
    pub fn client(&self, email: &str, secret: &str) -> Result<Client, CommandError> {
        Ok(self.builder()?.credentials(email, secret).build()?)
    }

    /// A client builder for this service: on the embedded sandbox, over an HTTP client that
    /// sends the guard's secret on every request (streams included).
    pub fn builder(&self) -> Result<subscriber_client::ClientBuilder, CommandError> {
        let builder =
            Client::builder().base_url(&self.base_url).user_agent(USER_AGENT).connect_timeout(CONNECT_TIMEOUT);
        let Some(guard) = &self.guard else {
            return Ok(builder);
        };
        let mut secret = reqwest::header::HeaderValue::from_str(guard.secret())
            .map_err(|_| CommandError::new(codes::SANDBOX_FAILED, "the sandbox's secret is not a header value"))?;
        secret.set_sensitive(true);
        let http = reqwest::Client::builder()
            .user_agent(format!("{USER_AGENT} {CLIENT_USER_AGENT}"))
            .connect_timeout(CONNECT_TIMEOUT)
            .default_headers(reqwest::header::HeaderMap::from_iter([(
                reqwest::header::HeaderName::from_static(LOCAL_SECRET_HEADER),
                secret,
            )]))
            .build()
            .map_err(|error| CommandError::new(codes::SANDBOX_FAILED, format!("no HTTP client: {error}")))?;
        Ok(builder.http_client(http))
    }

    /// Whether the service answers at all: any contract JSON (here the 401 of a call without a
    /// token) proves it is there. Asked once, without retries, so an address that is wrong
    /// says so at once.
    pub async fn probe(&self) -> Result<(), CommandError> {
        let client = self.builder()?.retry_policy(RetryPolicy::none()).build()?;
        match client.subscriber().await {
            Ok(_) => Ok(()),
            Err(error) => match error.api() {
                Some(api) if api.code != codes::UNEXPECTED_RESPONSE => Ok(()),
                Some(api) => Err(CommandError {
                    status: Some(api.status.as_u16()),
                    request_id: api.request_id.clone(),
                    ..CommandError::new(
                        codes::UNEXPECTED_RESPONSE,
                        format!(
                            "{} answers, but not as a Subscriber Data service (HTTP {})",
                            self.base_url,
                            api.status.as_u16()
                        ),
                    )
                }),
                None => Err(error.into()),
            },
        }
    }

    /// Whether `url` is a page of this service (same scheme, host and port, under its base
    /// path): the only links the app opens in the browser.
    pub fn owns_url(&self, url: &str) -> bool {
        let (Ok(base), Ok(url)) = (reqwest::Url::parse(&self.base_url), reqwest::Url::parse(url.trim())) else {
            return false;
        };
        let base_path = base.path().trim_end_matches('/');
        url.scheme() == base.scheme()
            && url.host_str() == base.host_str()
            && url.port_or_known_default() == base.port_or_known_default()
            && url.username().is_empty()
            && url.password().is_none()
            && (url.path() == base_path || url.path().starts_with(&format!("{base_path}/")))
    }
}

/// A base URL as typed, checked: `https`, or `http` to this machine only (a local service
/// under development); a host, no query or fragment; trailing slashes dropped. Plain `http`
/// to another machine would send the secret and every token in the clear.
pub fn normalize_base_url(text: &str) -> Result<String, CommandError> {
    let text = text.trim().trim_end_matches('/');
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .ok_or_else(|| CommandError::invalid_input("baseUrl", "must start with https:// or http://"))?;
    let host = rest.split('/').next().unwrap_or_default();
    if host.is_empty() || host.starts_with(':') {
        return Err(CommandError::invalid_input("baseUrl", "must name a host, such as https://api.example.com"));
    }
    if rest.contains(['?', '#']) || rest.chars().any(char::is_whitespace) {
        return Err(CommandError::invalid_input("baseUrl", "must be a plain address without spaces, ? or #"));
    }
    if text.starts_with("http://") && !is_loopback_host(host) {
        return Err(CommandError::invalid_input(
            "baseUrl",
            "must start with https:// (plain http:// is accepted only for this machine: localhost, 127.0.0.1 or [::1])",
        ));
    }
    Ok(text.to_owned())
}

/// `localhost`, `127.x.x.x` or `[::1]`, with or without a port; a user part is not a host.
fn is_loopback_host(authority: &str) -> bool {
    if authority.contains('@') {
        return false;
    }
    let host = match authority.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked_and_trimmed() {
        assert_eq!(normalize_base_url(" https://api.example.com/v1/ ").expect("valid"), "https://api.example.com/v1");
        assert_eq!(normalize_base_url("http://127.0.0.1:8080").expect("valid"), "http://127.0.0.1:8080");
        assert_eq!(normalize_base_url("http://localhost:8080/").expect("valid"), "http://localhost:8080");
        assert_eq!(normalize_base_url("http://[::1]:8080").expect("valid"), "http://[::1]:8080");
        for bad in [
            "api.example.com",
            "ftp://x",
            "https://",
            "https://:80",
            "https://a.b/?x=1",
            "https://a b",
            "http://api.example.com",
            "http://10.0.0.5:8080",
            "http://127.0.0.1.evil.example",
            "http://localhost@evil.example",
        ] {
            let error = normalize_base_url(bad).expect_err(bad);
            assert_eq!(error.code, "invalid_input", "{bad}");
            assert_eq!(error.details[0].field, "baseUrl");
        }
    }

    #[test]
    fn only_pages_of_the_connected_service_are_its_own() {
        let connection = |base_url: &str| Connection {
            target: ConnectionTarget::Sandbox,
            base_url: base_url.to_owned(),
            environment: Environment::Sandbox,
            guard: None,
        };
        let local = connection("http://127.0.0.1:41234");
        assert!(local.owns_url("http://127.0.0.1:41234/secure/card?session=abc"));
        assert!(local.owns_url("http://127.0.0.1:41234/secure/bank/login?link=abc"));
        for foreign in [
            "http://127.0.0.1:41235/secure/card?session=abc",
            "https://127.0.0.1:41234/secure/card",
            "http://localhost:41234/secure/card",
            "http://evil@127.0.0.1:41234/secure/card",
            "http://127.0.0.1:41234.evil.example/secure/card",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "not a url",
        ] {
            assert!(!local.owns_url(foreign), "{foreign} was taken as the service's");
        }
        let prefixed = connection("https://api.example.com/v1");
        assert!(prefixed.owns_url("https://api.example.com/v1/secure/card?session=x"));
        assert!(prefixed.owns_url("https://api.example.com:443/v1/secure/card"));
        assert!(!prefixed.owns_url("https://api.example.com/v10/secure/card"));
        assert!(!prefixed.owns_url("https://api.example.com/other"));
    }
}
