//! Identity questions and the sandbox bank, attacked from outside: asking question sets
//! without answering them, counting choices across sets to find the answers, and using the
//! sandbox's public identity source and published bank logins outside the sandbox.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::helpers::{BlockingBrowser, Subscriber, TestServer, assert_error, assert_nowhere_stored, send};
use crate::persons::{information, onboard};

fn ask(server: &TestServer, subscriber: &Subscriber, person_id: i64) -> (u16, Value) {
    send(subscriber.auth(server.post("/persons/authenticate", &information(person_id))))
}

fn person(server: &TestServer, subscriber: &Subscriber, person_id: i64) -> Value {
    let (status, body) = send(subscriber.auth(server.get(&format!("/persons/{person_id}"))));
    assert_eq!(status, 200, "{body}");
    body
}

fn choice_texts(question: &Value) -> Vec<String> {
    question["choices"]
        .as_array()
        .expect("choices")
        .iter()
        .map(|choice| choice["text"].as_str().expect("choice text").to_owned())
        .collect()
}

#[test]
fn asking_for_questions_without_answering_them_ends_in_the_lock() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    for set in 1..=3 {
        let (status, body) = ask(&server, &subscriber, person_id);
        assert_eq!(status, 200, "set {set} is allowed: {body}");
    }
    let shown = person(&server, &subscriber, person_id);
    assert_eq!(shown["attemptsRemaining"], 1, "two sets left unanswered cost two attempts: {shown}");

    let (status, body) = ask(&server, &subscriber, person_id);
    assert_error(status, &body, 403, "forbidden");
    assert!(body["lockedUntil"].as_str().is_some(), "{body}");
    let shown = person(&server, &subscriber, person_id);
    assert_eq!(shown["status"], "locked", "{shown}");
    assert_eq!(shown["attemptsRemaining"], 0);
    assert_eq!(shown["lockedUntil"], body["lockedUntil"]);

    // Locked: no more sets, and the last one issued cannot be answered either.
    let (status, again) = ask(&server, &subscriber, person_id);
    assert_error(status, &again, 403, "forbidden");
    let (status, answers) = send(subscriber.auth(server.get(&format!("/sandbox/persons/{person_id}/answers"))));
    assert_eq!(status, 200, "{answers}");
    let verify = json!({ "personId": person_id, "answers": answers["answers"] });
    let (status, body) = send(subscriber.auth(server.post("/persons/verify", &verify)));
    assert_error(status, &body, 403, "forbidden");
    assert_eq!(person(&server, &subscriber, person_id)["verified"], false);
}

#[test]
fn counting_choices_across_question_sets_reveals_no_answer() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    // Every set the rules allow, each with the right choice the sandbox helper names.
    let mut asked: BTreeMap<String, Vec<(Vec<String>, String)>> = BTreeMap::new();
    for set in 1..=3 {
        let (status, issued) = ask(&server, &subscriber, person_id);
        assert_eq!(status, 200, "set {set}: {issued}");
        let (status, answers) = send(subscriber.auth(server.get(&format!("/sandbox/persons/{person_id}/answers"))));
        assert_eq!(status, 200, "{answers}");
        for question in issued["questions"].as_array().expect("questions") {
            let right = answers["answers"]
                .as_array()
                .expect("answers")
                .iter()
                .find(|answer| answer["questionId"] == question["questionId"])
                .expect("an answer per question");
            let right_text = question["choices"]
                .as_array()
                .expect("choices")
                .iter()
                .find(|choice| choice["choiceId"] == right["choiceId"])
                .and_then(|choice| choice["text"].as_str())
                .expect("the right choice is a choice of its question")
                .to_owned();
            let text = question["text"].as_str().expect("question text").to_owned();
            asked.entry(text).or_default().push((choice_texts(question), right_text));
        }
    }
    let repeated: Vec<_> = asked.iter().filter(|(_, asks)| asks.len() > 1).collect();
    assert!(!repeated.is_empty(), "twelve questions over at most five topics repeat one: {asked:?}");
    for (topic, asks) in repeated {
        let (first_choices, first_right) = &asks[0];
        for (choices, right) in &asks[1..] {
            // Identical choices: every choice recurs exactly as often as the topic is asked,
            // so counting recurrences singles out nothing.
            assert_eq!(choices, first_choices, "{topic}: asked again with other choices");
            assert_eq!(right, first_right, "{topic}: the right answer stays the same");
        }
    }

    // The rules cost the person nothing it can still pass with: the third set answers right.
    let (status, answers) = send(subscriber.auth(server.get(&format!("/sandbox/persons/{person_id}/answers"))));
    assert_eq!(status, 200, "{answers}");
    let verify = json!({ "personId": person_id, "answers": answers["answers"] });
    let (status, body) = send(subscriber.auth(server.post("/persons/verify", &verify)));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verified"], true, "{body}");
    assert_eq!(body["attemptsRemaining"], 1, "the two sets left unanswered were counted: {body}");
}

#[test]
fn outside_the_sandbox_there_is_no_identity_source_and_nothing_is_stored() {
    for environment in ["expansion", "established"] {
        let server = TestServer::spawn_with(&["--environment", environment]);
        let subscriber = server.subscriber();
        let person_id = onboard(&server, &subscriber);

        let (status, body) = ask(&server, &subscriber, person_id);
        assert_error(status, &body, 501, "not_configured");
        assert!(body["error"].as_str().is_some_and(|message| message.contains("identity")), "{body}");
        assert!(body.get("questions").is_none(), "{body}");
        let verify = json!({ "personId": person_id, "answers": [{ "questionId": 11, "choiceId": 111 }] });
        let (status, body) = send(subscriber.auth(server.post("/persons/verify", &verify)));
        assert_error(status, &body, 501, "not_configured");

        // Onboarding and reading still work, and nothing was issued or counted.
        let shown = person(&server, &subscriber, person_id);
        assert_eq!(shown["status"], "onboarded", "{environment}: {shown}");
        assert_eq!(shown["attemptsRemaining"], 3);
        assert_eq!(shown["verified"], false);
        assert!(shown.get("questionsExpireAt").is_none_or(Value::is_null), "{shown}");
        assert_nowhere_stored(&server, "Which of these");
        let (status, body) = send(subscriber.auth(server.get(&format!("/sandbox/persons/{person_id}/answers"))));
        assert_error(status, &body, 404, "not_found");
    }
}

#[test]
fn outside_the_sandbox_there_is_no_sandbox_bank() {
    for environment in ["expansion", "established"] {
        let server = TestServer::spawn_with(&["--environment", environment]);
        let subscriber = server.subscriber();
        let (status, body) = send(subscriber.auth(server.get("/banks")));
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["banks"], json!([]), "{environment}: no sandbox bank is offered");
        for bank in ["northwind", "Northwind Bank"] {
            let (status, body) = send(subscriber.auth(server.post("/account", &json!({ "bank": bank }))));
            assert_error(status, &body, 501, "not_configured");
            assert!(body.get("url").is_none(), "{body}");
        }
        let (status, body) = send(subscriber.auth(server.get("/account")));
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["accounts"], json!([]), "nothing was stored");
    }
}

#[test]
fn a_sandbox_bank_link_does_not_accept_the_published_logins_once_the_database_serves_established() {
    let sandbox = TestServer::spawn();
    let subscriber = sandbox.subscriber();
    let (status, created) = send(subscriber.auth(sandbox.post("/account", &json!({ "bank": "northwind" }))));
    assert_eq!(status, 201, "{created}");
    let url = created["url"].as_str().expect("url").to_owned();
    let page = url.strip_prefix(&sandbox.base_url).expect("a page of the service").to_owned();
    let (dir, database) = sandbox.stop();

    let server = TestServer::spawn_on(dir, database, "127.0.0.1:0", &["--environment", "established"]);
    let mut browser = BlockingBrowser::new();
    let login = browser.get(&server.url(&page));
    assert_eq!(login.status, 404, "{}", login.body);
    assert!(!login.body.contains("user_good"), "no test login is shown");
    let signed_in =
        browser.post_form(&server.url(&page), &[("csrf", ""), ("username", "user_good"), ("password", "pass_good")]);
    assert_eq!(signed_in.status, 404, "the published login is refused: {}", signed_in.body);
    assert!(signed_in.location().is_empty(), "no way on to consent");
    let consent = page.replace("/secure/bank/login", "/secure/bank/consent");
    let consented =
        browser.post_form(&server.url(&consent), &[("csrf", ""), ("decision", "allow"), ("balances", "on")]);
    assert_eq!(consented.status, 404, "{}", consented.body);
}
