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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banks_are_found_by_id_or_name_in_any_case() {
        assert_eq!(find(BANKS, "NORTHWIND").map(|bank| bank.id), Some("northwind"));
        assert_eq!(find(BANKS, "  harbor credit union ").map(|bank| bank.id), Some("harbor-cu"));
        assert!(find(BANKS, "no such bank").is_none());
        assert!(find(BANKS, "").is_none());
        assert!(find(&[], "northwind").is_none());
    }
}
