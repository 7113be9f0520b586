//! Where a hosted page (`crate::hosted`) sends the person's browser when they are done: the `returnUrl` of
//! `POST /card/session`, `POST /account` (and every other hosted page's opening request, which
//! must call [`for_page`]). Never an open redirect: it must begin with one of the subscriber's
//! registered return URLs (`PATCH /subscriber`), compared parsed (scheme, host, port, then the
//! path at a segment boundary), or, in the sandbox only, be on this machine (`localhost`,
//! `127.0.0.1`), where a developer's app runs.

use reqwest::Url;
use subscriber_protocol::Environment;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::rules::hosted::RETURN_URLS_MAX;

use crate::error::{ApiError, Validation};
use crate::state::AppState;

/// The longest URL kept, as the webhook endpoints' limit.
pub const URL_MAX: usize = 2048;

/// The field of the opening requests.
const FIELD: &str = "returnUrl";

/// An absolute `http(s)` URL with a host and no user info nor fragment, or why not.
fn parse_absolute(text: &str) -> Result<Url, String> {
    if text.is_empty() {
        return Err("must not be empty".into());
    }
    if text.chars().count() > URL_MAX {
        return Err(format!("must be at most {URL_MAX} characters"));
    }
    if text.chars().any(|character| character.is_control() || character.is_whitespace()) {
        return Err("must not contain spaces or control characters".into());
    }
    // `//evil.org` and `/path` have no base here: they are refused, never resolved against us.
    let url = Url::parse(text).map_err(|_| "must be an absolute URL (https://…)".to_owned())?;
    if !matches!(url.scheme(), "https" | "http") {
        return Err(format!("must be an https URL, not {}:", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("must name a host".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not carry a user name or password (`user@host`)".into());
    }
    if url.fragment().is_some() {
        return Err("must not have a fragment (`#…`)".into());
    }
    Ok(url)
}

/// `PATCH /subscriber` `returnUrls`: at most 10 absolute `https` URLs without fragment or user
/// info; kept as parsed (normalized), without repeats.
pub fn registered(violations: &mut Validation, urls: &[String]) -> Option<Vec<String>> {
    if urls.len() > RETURN_URLS_MAX {
        violations.reject("returnUrls", format!("must hold at most {RETURN_URLS_MAX} URLs"));
        return None;
    }
    let mut kept: Vec<String> = Vec::with_capacity(urls.len());
    let mut valid = true;
    for (index, text) in urls.iter().enumerate() {
        let field = format!("returnUrls[{index}]");
        match parse_absolute(text.trim()) {
            Ok(url) if url.scheme() == "https" => {
                if !kept.iter().any(|known| known == url.as_str()) {
                    kept.push(url.into());
                }
            }
            Ok(_) => {
                violations.reject(&field, "must be an https URL");
                valid = false;
            }
            Err(why) => {
                violations.reject(&field, why);
                valid = false;
            }
        }
    }
    valid.then_some(kept)
}

/// Whether `candidate` begins with `prefix`: the same scheme, host and port, the prefix's path
/// at a segment boundary (`/app` covers `/app` and `/app/x`, not `/application`), and the
/// prefix's query, when it has one, first in the candidate's.
fn begins_with(candidate: &Url, prefix: &Url) -> bool {
    if candidate.scheme() != prefix.scheme()
        || candidate.host() != prefix.host()
        || candidate.port_or_known_default() != prefix.port_or_known_default()
    {
        return false;
    }
    let (path, base) = (candidate.path(), prefix.path());
    let path_ok = if base.ends_with('/') {
        path.starts_with(base)
    } else {
        path == base || path.strip_prefix(base).is_some_and(|rest| rest.starts_with('/'))
    };
    let query_ok = match prefix.query().filter(|query| !query.is_empty()) {
        None => true,
        Some(base) => candidate
            .query()
            .is_some_and(|query| query == base || query.strip_prefix(base).is_some_and(|rest| rest.starts_with('&'))),
    };
    path_ok && query_ok
}

/// The sandbox's developer machine: `localhost` or `127.0.0.1`, any port, http or https.
fn is_loopback(url: &Url) -> bool {
    // The parser lowers a domain's case and writes an IPv4 address in its one dotted form
    // (`127.1` is `127.0.0.1`).
    matches!(url.host_str(), Some("localhost" | "127.0.0.1"))
}

/// The rule itself, pure: the URL to keep (as parsed), or why it is refused.
pub fn check(text: &str, registered: &[String], environment: Environment) -> Result<String, String> {
    let url = parse_absolute(text.trim())?;
    if environment == Environment::Sandbox && is_loopback(&url) {
        return Ok(url.into());
    }
    let allowed =
        registered.iter().filter_map(|prefix| Url::parse(prefix).ok()).any(|prefix| begins_with(&url, &prefix));
    if !allowed {
        let sandbox = if environment == Environment::Sandbox {
            " (in the sandbox, http://localhost or http://127.0.0.1 also do)"
        } else {
            ""
        };
        return Err(format!(
            "must begin with one of the return URLs registered with PATCH /subscriber (returnUrls){sandbox}"
        ));
    }
    Ok(url.into())
}

/// The `returnUrl` of a request opening a hosted page for the subscriber, checked against its
/// registered return URLs: the URL to keep, `None` when none was given, a 400 on `returnUrl`
/// otherwise. Every request that opens a hosted page calls this.
pub async fn for_page(
    state: &AppState,
    subscriber_id: SubscriberId,
    return_url: Option<&str>,
) -> Result<Option<String>, ApiError> {
    let Some(text) = return_url else { return Ok(None) };
    let registered = match state.db.subscriber(subscriber_id).await? {
        Some(subscriber) => stored_urls(&subscriber.return_urls),
        None => Vec::new(),
    };
    check(text, &registered, state.environment()).map(Some).map_err(|why| ApiError::invalid_field(FIELD, why))
}

/// The registered return URLs as stored (a JSON array; anything else reads as none).
pub fn stored_urls(stored: &str) -> Vec<String> {
    serde_json::from_str(stored).unwrap_or_default()
}

/// `return_url` with the outcome's parameters added to its query (after any it has).
pub fn with_outcome(return_url: &str, pairs: &[(&str, &str)]) -> Option<String> {
    let mut url = Url::parse(return_url).ok()?;
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in pairs {
            query.append_pair(name, value);
        }
    }
    Some(url.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const REGISTERED: &[&str] = &["https://app.example.com/", "https://shop.example.org/return"];

    fn registered_urls() -> Vec<String> {
        REGISTERED.iter().map(|url| (*url).to_owned()).collect()
    }

    fn allowed(text: &str, environment: Environment) -> bool {
        check(text, &registered_urls(), environment).is_ok()
    }

    #[test]
    fn registered_prefixes_pass() {
        for good in [
            "https://app.example.com/",
            "https://app.example.com/done?x=1",
            "https://APP.example.com:443/a/b",
            "https://shop.example.org/return",
            "https://shop.example.org/return/card",
            "https://shop.example.org/return?x=1",
        ] {
            assert!(allowed(good, Environment::Established), "{good}");
        }
    }

    #[test]
    fn lookalikes_and_tricks_fail() {
        for bad in [
            "https://app.example.com.evil.org/",
            "https://app.example.com@evil.org/",
            "https://app.example.com:8443/",
            "http://app.example.com/",
            "https://shop.example.org/returnx",
            "https://shop.example.org/other",
            "https://shop.example.org/return/../other",
            "//evil.org",
            "/relative",
            "javascript:alert(1)",
            "data:text/html,hi",
            "https://evil.org/",
            "https://app.example.com/#frag",
            "https:\\\\evil.org",
            "",
            "http://localhost:3000/",
        ] {
            assert!(!allowed(bad, Environment::Established), "{bad}");
        }
    }

    #[test]
    fn the_sandbox_also_takes_this_machine() {
        for good in ["http://localhost:3000/done", "https://127.0.0.1/", "http://LOCALHOST/"] {
            assert!(allowed(good, Environment::Sandbox), "{good}");
        }
        for bad in ["http://localhost.evil.org/", "http://127.0.0.2/", "http://user@localhost/", "http://[::1]/"] {
            assert!(!allowed(bad, Environment::Sandbox), "{bad}");
        }
    }

    #[test]
    fn registration_wants_https() {
        let mut violations = Validation::new();
        let urls = vec!["https://App.example.com".to_owned(), "https://app.example.com/".to_owned()];
        assert_eq!(registered(&mut violations, &urls), Some(vec!["https://app.example.com/".to_owned()]));
        for bad in ["http://app.example.com/", "https://u:p@app.example.com/", "https://a.example/#x", "ftp://a/"] {
            assert_eq!(registered(&mut violations, &[bad.to_owned()]), None, "{bad}");
        }
        assert_eq!(registered(&mut violations, &vec!["https://a.example/".to_owned(); 11]), None);
    }

    #[test]
    fn outcomes_are_added_to_the_query() {
        assert_eq!(
            with_outcome("https://a.example/done?x=1", &[("sessionId", "7"), ("status", "completed")]).as_deref(),
            Some("https://a.example/done?x=1&sessionId=7&status=completed")
        );
        assert_eq!(
            with_outcome("https://a.example/done", &[("accountId", "3")]).as_deref(),
            Some("https://a.example/done?accountId=3")
        );
    }
}
