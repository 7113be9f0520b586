//! What needs the subscriber, for the overview's "Needs attention": each item says what is wrong
//! in the subscriber's words and names the screen where it is fixed (a route of
//! [`crate::links`]). A new kind (an expiring bank consent, say) is one more function here and
//! one more [`AttentionKind`].

use chrono::{DateTime, Utc};
use serde::Serialize;
use subscriber_protocol::{Account, AccountStatus, Person, PersonStatus, Webhook, WebhookStatus};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub enum AttentionKind {
    /// The service turned an endpoint off after days of failed deliveries.
    WebhookDisabled,
    /// Deliveries to an endpoint fail (and are retried).
    WebhookFailing,
    /// A linked bank failed or ran out before the person finished.
    BankLinkFailed,
    /// A person failed three times and waits for the lock to end.
    PersonLocked,
    /// A person's identity check was started and not finished.
    IdentityUnfinished,
}

/// One thing to look at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Attention {
    pub kind: AttentionKind,
    /// Something went wrong (`true`), or something waits to be finished.
    pub problem: bool,
    pub title: String,
    pub detail: String,
    /// The screen where it is fixed (`developers/webhook/3`, `person/7`, `account/5`).
    pub route: String,
    /// What the link does: "See deliveries", "Retry".
    pub action: String,
    /// When it happened or ends (a lock's end), for "3 h ago" or "in 20 h".
    pub at: Option<DateTime<Utc>>,
}

/// How the endpoint forwarding the embedded sandbox's events is told apart (the Developers
/// screen writes this description).
pub const FORWARD_DESCRIPTION: &str = "Forwarded to this computer";

/// An endpoint the service turned off, or whose deliveries fail. `webhook` comes with its
/// queue (`GET /webhooks/{id}`).
pub fn of_webhook(webhook: &Webhook) -> Option<Attention> {
    let forward = webhook.description.as_deref() == Some(FORWARD_DESCRIPTION);
    let name = if forward { "this computer".to_owned() } else { webhook.url.clone() };
    let route = format!("developers/webhook/{}", webhook.webhook_id);
    if webhook.status == WebhookStatus::Disabled {
        let reason = webhook.disabled_reason.as_deref()?;
        return Some(Attention {
            kind: AttentionKind::WebhookDisabled,
            problem: true,
            title: format!("Events no longer go to {name}"),
            detail: format!("The service turned the endpoint off: {}", sentence(reason)),
            route,
            action: "Fix the endpoint".to_owned(),
            at: None,
        });
    }
    let queue = webhook.queue.as_ref()?;
    let error = queue.last_error.as_deref()?;
    let waiting = match queue.queue_length {
        0 => String::new(),
        1 => "1 event waits to be sent again. ".to_owned(),
        n => format!("{n} events wait to be sent again. "),
    };
    Some(Attention {
        kind: AttentionKind::WebhookFailing,
        problem: true,
        title: format!("Deliveries to {name} are failing"),
        detail: format!("{waiting}Last error: {}", sentence(error)),
        route,
        action: "See deliveries".to_owned(),
        at: queue.next_attempt_at,
    })
}

/// A person locked out, or whose check was started and not finished.
pub fn of_person(person: &Person, now: DateTime<Utc>) -> Option<Attention> {
    let name = format!("{} {}", person.first_name.trim(), person.last_name.trim()).trim().to_owned();
    let route = format!("person/{}", person.person_id);
    let unfinished = |title: String, detail: String, action: &str, at: Option<DateTime<Utc>>| Attention {
        kind: AttentionKind::IdentityUnfinished,
        problem: false,
        title,
        detail,
        route: route.clone(),
        action: action.to_owned(),
        at,
    };
    match person.status {
        PersonStatus::Verified => None,
        PersonStatus::Locked => {
            let until = person.locked_until.filter(|until| *until > now)?;
            Some(Attention {
                kind: AttentionKind::PersonLocked,
                problem: true,
                title: format!("{name} is locked out of verification"),
                detail: "Three attempts failed. They can try again once the lock ends.".to_owned(),
                route,
                action: "Open".to_owned(),
                at: Some(until),
            })
        }
        PersonStatus::Onboarded => Some(unfinished(
            format!("{name} has not given their details yet"),
            "The identity check waits for their address and date of birth.".to_owned(),
            "Continue",
            Some(person.created_at),
        )),
        PersonStatus::Authenticating => {
            let expired = person.questions_expire_at.is_some_and(|expires| expires <= now);
            Some(unfinished(
                format!("{name} has questions to answer"),
                if expired {
                    "Their questions expired before they answered; ask for new ones.".to_owned()
                } else {
                    "Their questions wait for answers.".to_owned()
                },
                "Continue",
                person.questions_expire_at,
            ))
        }
        PersonStatus::Failed => Some(unfinished(
            format!("{name} was not verified"),
            match person.attempts_remaining {
                1 => "1 attempt left: another failure locks them for 24 hours.".to_owned(),
                n => format!("{n} attempts left."),
            },
            "Try again",
            None,
        )),
    }
}

/// A bank link that failed or ran out.
pub fn of_account(account: &Account) -> Option<Attention> {
    let bank = &account.bank.name;
    let (title, detail) = match account.status {
        AccountStatus::Failed => (
            format!("Linking {bank} failed"),
            account.failure_reason.as_deref().map_or_else(
                || "The bank gave no reason.".to_owned(),
                |reason| format!("The bank said: {}", sentence(reason)),
            ),
        ),
        AccountStatus::Expired => {
            (format!("The link to {bank} ran out"), "Nobody finished the bank's pages in time.".to_owned())
        }
        _ => return None,
    };
    Some(Attention {
        kind: AttentionKind::BankLinkFailed,
        problem: true,
        title,
        detail,
        route: format!("account/{}", account.account_id),
        action: "Retry".to_owned(),
        at: Some(account.created_at),
    })
}

/// Problems first, then what waits; within each, by kind, then the soonest or newest time.
pub fn sort(items: &mut [Attention]) {
    items.sort_by(|a, b| b.problem.cmp(&a.problem).then(a.kind.cmp(&b.kind)).then(b.at.cmp(&a.at)));
}

/// The service's lower-case messages as a sentence: "connection refused" → "Connection refused."
fn sentence(text: &str) -> String {
    let text = text.trim();
    let mut characters = text.chars();
    let Some(first) = characters.next() else { return String::new() };
    let mut written: String = first.to_uppercase().chain(characters).collect();
    if !written.ends_with(['.', '!', '?']) {
        written.push('.');
    }
    written
}

#[cfg(test)]
mod tests {
    use chrono::Duration;
    use subscriber_protocol::{Bank, WebhookQueue};

    use super::*;

    fn webhook(status: WebhookStatus) -> Webhook {
        serde_json::from_value(serde_json::json!({
            "webhookId": 3,
            "url": "https://example.com/hooks",
            "events": ["*"],
            "status": status,
            "createdAt": "2026-03-01T00:00:00Z",
            "apiVersion": subscriber_protocol::versions::ApiVersion::LATEST,
        }))
        .expect("a webhook")
    }

    fn person(status: PersonStatus) -> Person {
        serde_json::from_value(serde_json::json!({
            "personId": 7,
            "firstName": "Ada",
            "lastName": "Lovelace",
            "email": "ada@example.com",
            "status": status,
            "verified": status == PersonStatus::Verified,
            "attemptsRemaining": 2,
            "createdAt": "2026-03-01T00:00:00Z",
        }))
        .expect("a person")
    }

    #[test]
    fn failing_and_disabled_endpoints_link_to_their_deliveries() {
        let mut failing = webhook(WebhookStatus::Enabled);
        assert_eq!(of_webhook(&failing), None, "no queue read: nothing known to be wrong");
        failing.queue = Some(WebhookQueue {
            queue_length: 2,
            next_attempt_at: None,
            last_error: None,
            queue_limit: 10_000,
            dropped: None,
        });
        assert_eq!(of_webhook(&failing), None, "waiting is not failing");
        failing.queue = Some(WebhookQueue {
            queue_length: 2,
            next_attempt_at: None,
            last_error: Some("connection refused".to_owned()),
            queue_limit: 10_000,
            dropped: None,
        });
        let item = of_webhook(&failing).expect("failing");
        assert_eq!(item.title, "Deliveries to https://example.com/hooks are failing");
        assert_eq!(item.detail, "2 events wait to be sent again. Last error: Connection refused.");
        assert_eq!(item.route, "developers/webhook/3");
        assert!(crate::links::known_route(&item.route));

        let mut off = webhook(WebhookStatus::Disabled);
        assert_eq!(of_webhook(&off), None, "turned off by the subscriber: nothing to fix");
        off.disabled_reason = Some("3 days of failed deliveries".to_owned());
        off.description = Some(FORWARD_DESCRIPTION.to_owned());
        let item = of_webhook(&off).expect("disabled");
        assert_eq!(item.title, "Events no longer go to this computer");
        assert_eq!(item.kind, AttentionKind::WebhookDisabled);
    }

    #[test]
    fn persons_locked_or_unfinished_link_to_themselves() {
        let now = Utc::now();
        assert_eq!(of_person(&person(PersonStatus::Verified), now), None);
        let mut locked = person(PersonStatus::Locked);
        locked.locked_until = Some(now + Duration::hours(20));
        let item = of_person(&locked, now).expect("locked");
        assert_eq!(item.title, "Ada Lovelace is locked out of verification");
        assert_eq!(item.route, "person/7");
        assert!(crate::links::known_route(&item.route));
        locked.locked_until = Some(now - Duration::hours(1));
        assert_eq!(of_person(&locked, now), None, "the lock is over");
        let failed = of_person(&person(PersonStatus::Failed), now).expect("failed");
        assert_eq!((failed.problem, failed.detail.as_str()), (false, "2 attempts left."));
        assert!(of_person(&person(PersonStatus::Onboarded), now).is_some());
    }

    #[test]
    fn failed_bank_links_say_the_banks_reason_once() {
        let mut account: Account = serde_json::from_value(serde_json::json!({
            "accountId": 5,
            "bank": Bank { id: "northwind".to_owned(), name: "Northwind Bank".to_owned() },
            "status": "failed",
            "permissions": [],
            "linkedAt": null,
            "createdAt": "2026-03-01T00:00:00Z",
            "expiresAt": "2026-03-01T00:15:00Z",
            "failureReason": "the online account is locked",
        }))
        .expect("an account");
        let item = of_account(&account).expect("failed");
        assert_eq!(item.detail, "The bank said: The online account is locked.");
        assert_eq!(item.route, "account/5");
        account.status = AccountStatus::Linked;
        assert_eq!(of_account(&account), None);
    }

    #[test]
    fn problems_come_before_what_waits() {
        let now = Utc::now();
        let mut locked = person(PersonStatus::Locked);
        locked.locked_until = Some(now + Duration::hours(1));
        let mut items = vec![
            of_person(&person(PersonStatus::Onboarded), now).expect("unfinished"),
            of_person(&locked, now).expect("locked"),
        ];
        sort(&mut items);
        assert_eq!(items[0].kind, AttentionKind::PersonLocked);
    }
}
