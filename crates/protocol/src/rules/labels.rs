//! Whose an object is and what the subscriber noted on it (contract: "Lifecycle", fourth
//! round): `clientUserId`, the subscriber's own id for its user, on cards, bank accounts and
//! persons; `metadata`, string pairs on those and on locations. Both are the subscriber's own
//! and never used for anything else.

use std::collections::BTreeMap;

use super::Violations;

/// The subscriber's string pairs on an object, keys in order.
pub type Metadata = BTreeMap<String, String>;

/// The most pairs an object holds.
pub const METADATA_PAIRS_AT_MOST: usize = 20;
/// The longest key, in characters.
pub const METADATA_KEY_CHARS_AT_MOST: usize = 40;
/// The longest value, in characters.
pub const METADATA_VALUE_CHARS_AT_MOST: usize = 500;
/// The longest `clientUserId`, in characters.
pub const CLIENT_USER_ID_CHARS_AT_MOST: usize = 128;

/// A `clientUserId` as given: 1 to 128 characters, no control characters, no surrounding
/// spaces (it is matched exactly in `/users/{clientUserId}`).
pub fn client_user_id(violations: &mut Violations, field: &str, id: &str) -> Option<String> {
    let chars = id.chars().count();
    if chars == 0 || chars > CLIENT_USER_ID_CHARS_AT_MOST {
        violations.reject(field, format!("must be 1 to {CLIENT_USER_ID_CHARS_AT_MOST} characters"));
        None
    } else if id.chars().any(char::is_control) || id.trim() != id {
        violations.reject(field, "must have no control characters and no spaces at either end");
        None
    } else {
        Some(id.to_owned())
    }
}

/// Whose an object is and what the subscriber noted on it, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Labels {
    pub client_user_id: Option<String>,
    pub metadata: Metadata,
}

/// `clientUserId` and `metadata` as sent with a creating request.
pub fn labels(violations: &mut Violations, client_user_id_sent: Option<&str>, metadata: Option<&Metadata>) -> Labels {
    Labels {
        client_user_id: client_user_id_sent.and_then(|id| client_user_id(violations, "clientUserId", id)),
        metadata: metadata.map(|sent| new_metadata(violations, sent)).unwrap_or_default(),
    }
}

/// `metadata` as sent at creation: every pair within the limits, and no empty value (nothing
/// to remove yet).
pub fn new_metadata(violations: &mut Violations, sent: &Metadata) -> Metadata {
    merged(violations, &Metadata::new(), sent)
}

/// `current` with `patch` laid over it, as `PATCH` applies it: keys merge, a key sent with ""
/// is removed. Every key sent is checked, and the result may hold at most
/// [`METADATA_PAIRS_AT_MOST`] pairs.
pub fn merged(violations: &mut Violations, current: &Metadata, patch: &Metadata) -> Metadata {
    let mut result = current.clone();
    let found_before = violations.details().len();
    for (key, value) in patch {
        let field = format!("metadata.{}", key.chars().take(METADATA_KEY_CHARS_AT_MOST + 1).collect::<String>());
        let key_chars = key.chars().count();
        if key_chars == 0 || key_chars > METADATA_KEY_CHARS_AT_MOST {
            violations.reject(&field, format!("a key must be 1 to {METADATA_KEY_CHARS_AT_MOST} characters"));
        } else if key.chars().any(char::is_control) {
            violations.reject(&field, "a key must have no control characters");
        } else if value.chars().count() > METADATA_VALUE_CHARS_AT_MOST {
            violations.reject(&field, format!("a value must be at most {METADATA_VALUE_CHARS_AT_MOST} characters"));
        } else if value.is_empty() {
            result.remove(key);
        } else {
            result.insert(key.clone(), value.clone());
        }
    }
    if result.len() > METADATA_PAIRS_AT_MOST && violations.details().len() == found_before {
        violations.reject(
            "metadata",
            format!(
                "at most {METADATA_PAIRS_AT_MOST} pairs: this would leave {} (send a key with \"\" to remove it)",
                result.len()
            ),
        );
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Metadata {
        items.iter().map(|(key, value)| ((*key).to_owned(), (*value).to_owned())).collect()
    }

    #[test]
    fn keys_merge_and_an_empty_value_removes_its_key() {
        let mut violations = Violations::new();
        let current = pairs(&[("plan", "gold"), ("region", "eu")]);
        let result = merged(&mut violations, &current, &pairs(&[("plan", "silver"), ("region", ""), ("new", "1")]));
        assert!(violations.is_empty());
        assert_eq!(result, pairs(&[("new", "1"), ("plan", "silver")]));
    }

    #[test]
    fn limits_are_named_by_field() {
        let mut violations = Violations::new();
        let long_key = "k".repeat(41);
        let long_value = "v".repeat(501);
        merged(&mut violations, &Metadata::new(), &pairs(&[(&long_key, "x"), ("ok", &long_value), ("", "x")]));
        let fields: Vec<String> = violations.into_details().into_iter().map(|detail| detail.field).collect();
        assert_eq!(fields.len(), 3, "{fields:?}");
        let mut violations = Violations::new();
        let many: Metadata = (0..21).map(|at| (format!("k{at}"), "v".to_owned())).collect();
        merged(&mut violations, &Metadata::new(), &many);
        assert_eq!(violations.into_details()[0].field, "metadata");
        let mut violations = Violations::new();
        let twenty: Metadata = (0..20).map(|at| (format!("k{at}"), "v".to_owned())).collect();
        let swap = pairs(&[("k0", ""), ("other", "v")]);
        assert_eq!(merged(&mut violations, &twenty, &swap).len(), 20, "one out, one in");
        assert!(violations.is_empty());
    }

    #[test]
    fn a_client_user_id_is_matched_exactly_so_it_is_kept_clean() {
        let mut violations = Violations::new();
        assert_eq!(client_user_id(&mut violations, "clientUserId", "user_42").as_deref(), Some("user_42"));
        assert!(client_user_id(&mut violations, "clientUserId", "").is_none());
        assert!(client_user_id(&mut violations, "clientUserId", " padded").is_none());
        assert!(client_user_id(&mut violations, "clientUserId", &"u".repeat(129)).is_none());
        assert!(client_user_id(&mut violations, "clientUserId", "a\nb").is_none());
    }
}
