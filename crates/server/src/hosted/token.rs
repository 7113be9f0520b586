//! Secrets of the hosted pages: the browser nonce cookie, and CSRF tokens bound to both a
//! session and that browser. The one-time link tokens are `crate::link_token`.

use axum::http::{HeaderMap, HeaderValue, Uri, header};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::link_token::new_token;

/// A query parameter of a hosted page's link.
pub fn query_param(uri: &Uri, name: &str) -> Option<String> {
    form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
        .filter(|value| !value.is_empty() && value.len() <= 128)
}

/// The fields of a submitted form (`application/x-www-form-urlencoded`). A repeated field
/// keeps its first value.
pub fn form_fields(body: &[u8]) -> std::collections::HashMap<String, String> {
    let mut fields = std::collections::HashMap::new();
    for (key, value) in form_urlencoded::parse(body) {
        fields.entry(key.into_owned()).or_insert_with(|| value.into_owned());
    }
    fields
}

const BROWSER_COOKIE: &str = "sd_browser";

/// A random value the browser keeps in an HttpOnly, SameSite=Strict cookie. A page from
/// another site can neither read it nor make the browser send it, so a form token bound to
/// it proves the submission came from a page this service rendered in this browser.
pub struct Browser {
    pub nonce: String,
    is_new: bool,
}

impl Browser {
    pub fn from_headers(headers: &HeaderMap) -> Self {
        match Self::existing(headers) {
            Some(nonce) => Self { nonce, is_new: false },
            None => Self { nonce: new_token(), is_new: true },
        }
    }

    /// A nonce the browser already holds.
    pub fn known(nonce: String) -> Self {
        Self { nonce, is_new: false }
    }

    /// The nonce the browser sent, if any.
    pub fn existing(headers: &HeaderMap) -> Option<String> {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, value)| *name == BROWSER_COOKIE && (16..=128).contains(&value.len()))
            .map(|(_, value)| value.to_owned())
    }

    /// The `Set-Cookie` value when the browser has no nonce yet.
    pub fn set_cookie(&self, secure: bool) -> Option<HeaderValue> {
        if !self.is_new {
            return None;
        }
        let secure = if secure { "; Secure" } else { "" };
        HeaderValue::from_str(&format!(
            "{BROWSER_COOKIE}={}; Path=/secure; HttpOnly; SameSite=Strict{secure}",
            self.nonce
        ))
        .ok()
    }
}

/// `session` is the typed id of the page's session, whatever its kind (a card session, a bank
/// link, an identity session): `purpose` tells the kinds apart.
fn csrf_mac(key: &[u8], purpose: &str, session: impl Into<i64>, nonce: &str) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC accepts keys of every length");
    mac.update(format!("{purpose}\n{}\n{nonce}", session.into()).as_bytes());
    mac
}

/// The form token of one page (`purpose`, e.g. `card`) of one session, for one browser.
pub fn csrf_token(key: &[u8], purpose: &str, session: impl Into<i64>, nonce: &str) -> String {
    URL_SAFE_NO_PAD.encode(csrf_mac(key, purpose, session, nonce).finalize().into_bytes())
}

/// Compares in constant time.
pub fn csrf_valid(key: &[u8], purpose: &str, session: impl Into<i64>, nonce: &str, presented: &str) -> bool {
    let Ok(presented) = URL_SAFE_NO_PAD.decode(presented.trim()) else {
        return false;
    };
    csrf_mac(key, purpose, session, nonce).verify_slice(&presented).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csrf_tokens_bind_purpose_session_and_browser() {
        let token = csrf_token(b"key", "card", 7, "browser-nonce-1234");
        assert!(csrf_valid(b"key", "card", 7, "browser-nonce-1234", &token));
        assert!(!csrf_valid(b"key", "card", 8, "browser-nonce-1234", &token));
        assert!(!csrf_valid(b"key", "bank", 7, "browser-nonce-1234", &token));
        assert!(!csrf_valid(b"key", "card", 7, "another-browser-99", &token));
        assert!(!csrf_valid(b"other", "card", 7, "browser-nonce-1234", &token));
        assert!(!csrf_valid(b"key", "card", 7, "browser-nonce-1234", "not base64 !"));
    }

    #[test]
    fn the_browser_cookie_is_read_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_static("a=1; sd_browser=abcdefghijklmnopqrst; b=2"));
        assert_eq!(Browser::existing(&headers).as_deref(), Some("abcdefghijklmnopqrst"));
        let browser = Browser::from_headers(&headers);
        assert!(browser.set_cookie(false).is_none(), "an existing nonce is kept");
        let fresh = Browser::from_headers(&HeaderMap::new());
        let cookie = fresh.set_cookie(true).expect("a new nonce is set");
        let cookie = cookie.to_str().expect("text");
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Secure"));
    }
}
