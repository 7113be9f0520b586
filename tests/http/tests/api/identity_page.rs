//! Identity verification by the person themselves: `POST /persons/{id}/session` and the hosted
//! page it opens, driven as a browser without script would (the page's forms over HTTP). The
//! subscriber sees only the outcome, never what the person typed.

use serde_json::{Value, json};

use crate::helpers::{
    BlockingBrowser, Page, Subscriber, TestServer, assert_error, assert_nowhere_stored, assert_secure_page_headers,
    delete, return_link, send,
};
use crate::persons::{onboard, right_answers};

const RETURN_URL: &str = "http://127.0.0.1:9/verified";

fn open_page(server: &TestServer, subscriber: &Subscriber, person_id: i64) -> Value {
    let body = json!({ "returnUrl": RETURN_URL });
    let (status, session) = send(subscriber.auth(server.post(&format!("/persons/{person_id}/session"), &body)));
    assert_eq!(status, 201, "{session}");
    session
}

/// A fresh server, a subscriber, a person it onboarded and the page it opened for them.
struct Opened {
    server: TestServer,
    subscriber: Subscriber,
    person_id: i64,
    url: String,
}

fn a_page_opened() -> Opened {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    let session = open_page(&server, &subscriber, person_id);
    let url = session["url"].as_str().expect("url").to_owned();
    Opened { server, subscriber, person_id, url }
}

/// The person's information, with a street no other test uses.
fn information(street: &str) -> Vec<(&str, &str)> {
    vec![
        ("dateOfBirth", "1979-03-02"),
        ("street", street),
        ("streetNo", "221"),
        ("city", "Hampton"),
        ("zip", "23669"),
        ("countryCode", "USA"),
        ("ssnLast4", "4321"),
    ]
}

/// Answers the page's questions with the sandbox's right answers, or every one wrong.
fn answer(browser: &mut BlockingBrowser, page: &Page, right: &[Value], wrong: bool) -> Page {
    let chosen: Vec<(String, String)> = right
        .iter()
        .map(|answer| {
            let question = answer["questionId"].as_i64().expect("questionId");
            let correct = answer["choiceId"].as_i64().expect("choiceId");
            // Choice ids are the question's id then 1 to 5: a neighbour is another choice.
            let choice = if !wrong {
                correct
            } else if correct % 10 == 1 {
                correct + 1
            } else {
                correct - 1
            };
            (format!("q{question}"), choice.to_string())
        })
        .collect();
    let fields: Vec<(&str, &str)> = chosen.iter().map(|(name, value)| (name.as_str(), value.as_str())).collect();
    browser.submit(page, &fields)
}

#[test]
fn a_person_verifies_on_their_own_page_and_the_subscriber_sees_only_the_outcome() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    let session = open_page(&server, &subscriber, person_id);
    assert!(session["error"].is_null() && session["personId"] == person_id, "{session}");
    let url = session["url"].as_str().expect("url").to_owned();
    assert!(url.starts_with(&format!("{}/secure/identity?session=", server.base_url)), "{url}");
    let minutes = (chrono::DateTime::parse_from_rfc3339(session["expiresAt"].as_str().expect("expiresAt"))
        .expect("RFC 3339")
        .timestamp()
        - chrono::Utc::now().timestamp())
        / 60;
    assert!((13..=15).contains(&minutes), "15 minutes: {session}");

    let mut browser = BlockingBrowser::new();
    let form = browser.get(&url);
    assert_eq!(form.status, 200, "{}", form.body);
    assert_secure_page_headers(&form);
    assert!(form.body.contains("Confirm your identity") && form.body.contains("name=\"ssnLast4\""), "{}", form.body);
    assert!(!form.body.contains("Ada") && !form.body.contains("Lovelace"), "the person's name is not shown");

    let questions = browser.submit(&form, &information("Quasimodo Lane"));
    assert_eq!(questions.status, 200, "{}", questions.body);
    assert!(questions.body.contains("Four questions about you"), "{}", questions.body);
    // Reloaded, the page shows the same open questions.
    let again = browser.get(&url);
    assert!(again.body.contains("Four questions about you"), "{}", again.body);
    let (_, person) = send(subscriber.auth(server.get(&format!("/persons/{person_id}"))));
    assert_eq!(person["status"], "authenticating", "{person}");

    let done = answer(&mut browser, &questions, &right_answers(&server, &subscriber, person_id), false);
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("You're verified"), "{}", done.body);
    let back = return_link(&done.body).expect("a link back");
    assert_eq!(back, format!("{RETURN_URL}?sessionId={}&status=verified", session["sessionId"]));
    let (_, person) = send(subscriber.auth(server.get(&format!("/persons/{person_id}"))));
    assert_eq!((&person["status"], &person["verified"]), (&json!("verified"), &json!(true)), "{person}");
    let (_, events) = send(subscriber.auth(server.get("/events?type=person.verified")));
    assert_eq!(events["events"].as_array().map(Vec::len), Some(1), "{events}");

    // Used once.
    let used = browser.get(&url);
    assert_eq!(used.status, 410, "{}", used.body);
    assert!(used.body.contains("already been used"), "{}", used.body);
    let (status, body) = send(subscriber.auth(server.post(&format!("/persons/{person_id}/session"), &json!({}))));
    assert_error(status, &body, 409, "conflict");
    // What the person typed is nowhere: not in the database, its files or the log.
    assert_nowhere_stored(&server, "Quasimodo Lane");
}

#[test]
fn wrong_answers_on_the_page_cost_attempts_then_lock_with_a_next_step() {
    let Opened { server, subscriber, person_id, url } = a_page_opened();
    let mut browser = BlockingBrowser::new();
    for left in [2, 1] {
        let form = browser.get(&url);
        let questions = browser.submit(&form, &information("Rue Morgue"));
        let failed = answer(&mut browser, &questions, &right_answers(&server, &subscriber, person_id), true);
        assert_eq!(failed.status, 200, "{}", failed.body);
        assert!(failed.body.contains("didn't match"), "{}", failed.body);
        assert!(failed.body.contains(&format!("{left} attempt")), "{left} left: {}", failed.body);
    }
    let form = browser.get(&url);
    let questions = browser.submit(&form, &information("Rue Morgue"));
    let locked = answer(&mut browser, &questions, &right_answers(&server, &subscriber, person_id), true);
    assert!(locked.body.contains("We couldn't confirm your identity"), "{}", locked.body);
    assert!(locked.body.contains("What happens next") && locked.body.contains("try again after"), "{}", locked.body);
    let back = return_link(&locked.body).expect("a link back");
    assert!(back.ends_with("&status=locked"), "{back}");
    let (_, person) = send(subscriber.auth(server.get(&format!("/persons/{person_id}"))));
    assert_eq!(person["status"], "locked", "{person}");
    assert_eq!(browser.get(&url).status, 410, "used once");
    // The lock holds on a new page too: it says so at once.
    let session = open_page(&server, &subscriber, person_id);
    let page = browser.get(session["url"].as_str().expect("url"));
    assert!(page.body.contains("We couldn't confirm your identity"), "{}", page.body);
}

#[test]
fn the_page_refuses_bad_forms_strangers_and_other_return_urls() {
    let Opened { server, subscriber, person_id, url } = a_page_opened();
    let mut browser = BlockingBrowser::new();
    let form = browser.get(&url);

    // A form from elsewhere (no token) changes nothing.
    let forged = BlockingBrowser::new().post_form(&url, &[("step", "information"), ("dateOfBirth", "1979-03-02")]);
    assert_eq!(forged.status, 403, "{}", forged.body);
    // A bad date comes back with what is wrong, the values typed, and never the SSN digits.
    let mut fields = information("Baker Street");
    fields[0] = ("dateOfBirth", "1979-02-30");
    let rejected = browser.submit(&form, &fields);
    assert_eq!(rejected.status, 400, "{}", rejected.body);
    assert!(rejected.body.contains("dateOfBirth-error"), "{}", rejected.body);
    assert!(rejected.body.contains("Baker Street") && !rejected.body.contains("4321"), "{}", rejected.body);
    let (_, person) = send(subscriber.auth(server.get(&format!("/persons/{person_id}"))));
    assert_eq!(person["status"], "onboarded", "nothing was issued: {person}");

    let unknown = BlockingBrowser::new().get(&format!("{}/secure/identity?session=not-a-link", server.base_url));
    assert_eq!(unknown.status, 404);
    let stranger = server.subscriber();
    let (status, body) = send(stranger.auth(server.post(&format!("/persons/{person_id}/session"), &json!({}))));
    assert_error(status, &body, 404, "not_found");
    for bad in ["https://evil.example/next", "javascript:alert(1)", "//evil.example"] {
        let (status, body) =
            send(subscriber.auth(server.post(&format!("/persons/{person_id}/session"), &json!({ "returnUrl": bad }))));
        assert_error(status, &body, 400, "invalid_request");
    }
    // Removing the person ends their page.
    let (status, body) = delete(&server, &subscriber, &format!("/persons/{person_id}"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(BlockingBrowser::new().get(&url).status, 404);
}
