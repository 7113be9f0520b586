//! The sandbox banks. The service plays each of them itself: their sign-in and consent
//! pages are `crate::hosted::bank`, with published test logins, so they exist only in the
//! sandbox (`accounts::linkable_banks`).

pub struct SandboxBank {
    pub id: &'static str,
    pub name: &'static str,
    pub currency: &'static str,
}

pub const BANKS: &[SandboxBank] = &[
    SandboxBank { id: "northwind", name: "Northwind Bank", currency: "USD" },
    SandboxBank { id: "harbor-cu", name: "Harbor Credit Union", currency: "USD" },
    SandboxBank { id: "first-meridian", name: "First Meridian Bank", currency: "USD" },
    SandboxBank { id: "cedar-trust", name: "Cedar Trust & Savings", currency: "USD" },
    SandboxBank { id: "bluebird", name: "Bluebird Online Bank", currency: "USD" },
    SandboxBank { id: "maple-leaf", name: "Maple Leaf Financial", currency: "CAD" },
    SandboxBank { id: "thames-mutual", name: "Thames Mutual", currency: "GBP" },
];

/// The bank of `banks` an id or a name names, ignoring case and surrounding spaces.
pub fn find(banks: &'static [SandboxBank], id_or_name: &str) -> Option<&'static SandboxBank> {
    let wanted = id_or_name.trim();
    banks.iter().find(|bank| bank.id.eq_ignore_ascii_case(wanted) || bank.name.eq_ignore_ascii_case(wanted))
}

pub fn by_id(id: &str) -> Option<&'static SandboxBank> {
    BANKS.iter().find(|bank| bank.id == id)
}

/// The sandbox sign-in names and what each does (published in `docs/sandbox-secure-flows.md`).
pub mod credentials {
    pub const GOOD_USER: &str = "user_good";
    pub const GOOD_PASSWORD: &str = "pass_good";
    /// With the good password, the bank then asks for the one-time code `MFA_CODE`.
    pub const MFA_USER: &str = "user_mfa";
    pub const MFA_CODE: &str = "123456";
    /// Any password: the bank reports the online account locked, and the link fails.
    pub const LOCKED_USER: &str = "user_locked";
    /// Wrong passwords (and one-time codes) before the link fails.
    pub const MAX_LOGIN_FAILURES: u32 = 3;

    /// `user_good`, or another login of the same kind (`user_good_2`, `user_good_alice`): a
    /// login is one person's, so the same one linked again re-links its account; another name
    /// links another account at the same bank.
    pub fn is_good(username: &str) -> bool {
        is(username, GOOD_USER)
    }

    /// `user_mfa`, or `user_mfa_…`.
    pub fn asks_code(username: &str) -> bool {
        is(username, MFA_USER)
    }

    fn is(username: &str, kind: &str) -> bool {
        username.strip_prefix(kind).is_some_and(|rest| {
            rest.is_empty()
                || rest.strip_prefix('_').is_some_and(|name| {
                    !name.is_empty() && name.chars().all(|character| character.is_ascii_alphanumeric())
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_of_a_kind_is_its_name_or_the_name_and_a_suffix() {
        assert!(credentials::is_good("user_good") && credentials::is_good("user_good_2"));
        assert!(
            !credentials::is_good("user_goodx")
                && !credentials::is_good("user_good_")
                && !credentials::is_good("user_good_a b")
        );
        assert!(credentials::asks_code("user_mfa_alice") && !credentials::asks_code("user_good"));
    }

    #[test]
    fn banks_are_found_by_id_or_name_in_any_case() {
        assert_eq!(find(BANKS, "NORTHWIND").map(|bank| bank.id), Some("northwind"));
        assert_eq!(find(BANKS, "  harbor credit union ").map(|bank| bank.id), Some("harbor-cu"));
        assert!(find(BANKS, "no such bank").is_none());
        assert!(find(BANKS, "").is_none());
        assert!(find(&[], "northwind").is_none());
    }
}
