//! Webhook endpoints: the URL's form and the event types. Where the URL points (no private or
//! loopback address outside the sandbox) only the service can check, as it resolves the name.

use super::Violations;
use crate::{ALL_EVENTS, EVENT_TYPES};

pub const URL_MAX: usize = 2048;
pub const DESCRIPTION_MAX: usize = 200;

/// The URL's scheme and host, when its form is right: `http(s)://host[:port][/path][?query]`,
/// no user name or password, no fragment.
pub fn url(violations: &mut Violations, url: &str) -> Option<(String, String)> {
    let url = url.trim();
    let reject = |violations: &mut Violations, message: &str| {
        violations.reject("url", message);
        None
    };
    if url.is_empty() {
        return reject(violations, "is required");
    }
    if url.chars().count() > URL_MAX {
        return reject(violations, &format!("must be at most {URL_MAX} characters"));
    }
    if url.chars().any(|character| character.is_control() || character.is_whitespace()) {
        return reject(violations, "must not hold spaces or control characters");
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return reject(violations, "must be an absolute URL (https://example.com/webhooks)");
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "https" && scheme != "http" {
        return reject(violations, "must be an https URL");
    }
    if url.contains('#') {
        return reject(violations, "must not have a fragment (#…)");
    }
    let authority = rest.split(['/', '?']).next().unwrap_or_default();
    if authority.contains('@') {
        return reject(violations, "must not hold a user name or password");
    }
    let host = if let Some(bracketed) = authority.strip_prefix('[') {
        bracketed.split_once(']').map(|(host, _)| host).unwrap_or_default()
    } else {
        authority.rsplit_once(':').map_or(authority, |(host, _)| host)
    };
    if host.is_empty() {
        return reject(violations, "must name a host");
    }
    Some((scheme, host.to_ascii_lowercase()))
}

/// The event types an endpoint wants: known types, or `["*"]` for all; at least one.
pub fn events(violations: &mut Violations, events: &[String]) -> Option<Vec<String>> {
    if events.is_empty() {
        violations.reject("events", "must name at least one event type, or \"*\" for all");
        return None;
    }
    let mut wanted: Vec<String> = Vec::new();
    for (index, event) in events.iter().enumerate() {
        let event = event.trim();
        if event != ALL_EVENTS && !EVENT_TYPES.contains(&event) {
            violations
                .reject(&format!("events[{index}]"), format!("must be \"*\" or one of {}", EVENT_TYPES.join(", ")));
            return None;
        }
        if !wanted.iter().any(|known| known == event) {
            wanted.push(event.to_owned());
        }
    }
    if wanted.iter().any(|event| event == ALL_EVENTS) {
        wanted = vec![ALL_EVENTS.to_owned()];
    }
    Some(wanted)
}

/// An optional description: at most 200 characters as sent (surrounding spaces included, as
/// OpenAPI's `maxLength` counts), no control characters inside; empty clears it.
pub fn description(violations: &mut Violations, description: &str) -> Option<String> {
    let sent_length = description.chars().count();
    let description = description.trim();
    if sent_length > DESCRIPTION_MAX {
        violations.reject("description", format!("must be at most {DESCRIPTION_MAX} characters"));
        return None;
    }
    if description.chars().any(char::is_control) {
        violations.reject("description", "must not hold control characters");
        return None;
    }
    Some(description.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_for_form() {
        let check = |text: &str| url(&mut Violations::new(), text);
        assert_eq!(check("https://Example.com:8443/hooks?x=1"), Some(("https".into(), "example.com".into())));
        assert_eq!(check("http://127.0.0.1:9000/"), Some(("http".into(), "127.0.0.1".into())));
        assert_eq!(check("https://[::1]:9000/"), Some(("https".into(), "::1".into())));
        for bad in [
            "",
            "example.com/hooks",
            "ftp://example.com",
            "https://user:pw@example.com",
            "https:///x",
            "https://example.com/#frag",
            "https://exa mple.com",
        ] {
            assert_eq!(check(bad), None, "{bad}");
        }
    }

    #[test]
    fn event_types_are_known_or_all() {
        let check = |events: &[&str]| {
            self::events(&mut Violations::new(), &events.iter().map(|e| (*e).to_owned()).collect::<Vec<_>>())
        };
        assert_eq!(check(&["transaction.created", "transaction.created"]), Some(vec!["transaction.created".into()]));
        assert_eq!(check(&["*", "card.enrolled"]), Some(vec!["*".into()]));
        assert_eq!(check(&[]), None);
        assert_eq!(check(&["card.deleted"]), None);
    }
}
