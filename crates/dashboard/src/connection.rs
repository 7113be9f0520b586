//! The environment the dashboard talks to.

use subscriber_protocol::Environment;

use crate::error::CommandError;
use crate::service::Service;
use crate::views::{ConnectionInfo, ConnectionTarget};

/// A chosen, reachable service.
#[derive(Debug, Clone)]
pub struct Connection {
    pub target: ConnectionTarget,
    pub service: Service,
    /// As chosen, then as the service reports it once signed in.
    pub environment: Environment,
}

impl Connection {
    pub fn info(&self) -> ConnectionInfo {
        ConnectionInfo {
            target: self.target.clone(),
            base_url: self.service.base_url().to_owned(),
            environment: self.environment,
            embedded: self.target == ConnectionTarget::Sandbox,
        }
    }
}

/// A base URL as typed, checked: `http` or `https`, a host, no query or fragment; trailing
/// slashes dropped.
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
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked_and_trimmed() {
        assert_eq!(normalize_base_url(" https://api.example.com/v1/ ").expect("valid"), "https://api.example.com/v1");
        assert_eq!(normalize_base_url("http://127.0.0.1:8080").expect("valid"), "http://127.0.0.1:8080");
        for bad in ["api.example.com", "ftp://x", "https://", "https://:80", "https://a.b/?x=1", "https://a b"] {
            let error = normalize_base_url(bad).expect_err(bad);
            assert_eq!(error.code, "invalid_input", "{bad}");
            assert_eq!(error.details[0].field, "baseUrl");
        }
    }
}
