//! Identity verification end to end: onboard, authenticate, verify; wrong answers, the
//! lock and its end, expired questions, validation and scoping.

use std::time::Duration;

use chrono::Datelike;
use serde_json::{Value, json};

use crate::helpers::{Subscriber, TestServer, assert_error, send};

pub fn onboard(server: &TestServer, subscriber: &Subscriber) -> i64 {
    let body = json!({ "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com" });
    let (status, body) = send(subscriber.auth(server.post("/persons", &body)));
    assert_eq!(status, 201, "{body}");
    body["personId"].as_i64().expect("personId")
}

pub fn information(person_id: i64) -> Value {
    json!({
        "personId": person_id,
        "dateOfBirth": "1985-07-14",
        "address": { "street": "Market Street", "streetNo": "101", "city": "San Francisco", "zip": "94105", "countryCode": "USA" },
        "phoneNumber": "+1 415 555 0100",
        "ssnLast4": "6789"
    })
}

/// Authenticates; returns the response body (questions and all).
pub fn authenticate(server: &TestServer, subscriber: &Subscriber, person_id: i64) -> Value {
    let (status, body) = send(subscriber.auth(server.post("/persons/authenticate", &information(person_id))));
    assert_eq!(status, 200, "{body}");
    body
}

pub fn right_answers(server: &TestServer, subscriber: &Subscriber, person_id: i64) -> Vec<Value> {
    let (status, body) = send(subscriber.auth(server.get(&format!("/sandbox/persons/{person_id}/answers"))));
    assert_eq!(status, 200, "{body}");
    body["answers"].as_array().expect("answers").clone()
}

/// Answers with `right` of the four right and the rest wrong.
pub fn answers_with(questions: &Value, right: &[Value], right_count: usize) -> Vec<Value> {
    questions["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let question_id = &question["questionId"];
            let correct = right
                .iter()
                .find(|answer| &answer["questionId"] == question_id)
                .map(|answer| answer["choiceId"].clone())
                .expect("an answer for every question");
            let choice = if index < right_count {
                correct
            } else {
                question["choices"]
                    .as_array()
                    .expect("choices")
                    .iter()
                    .map(|choice| choice["choiceId"].clone())
                    .find(|choice| *choice != correct)
                    .expect("a wrong choice")
            };
            json!({ "questionId": question_id, "choiceId": choice })
        })
        .collect()
}

pub fn verify(server: &TestServer, subscriber: &Subscriber, person_id: i64, answers: &[Value]) -> (u16, Value) {
    send(subscriber.auth(server.post("/persons/verify", &json!({ "personId": person_id, "answers": answers }))))
}

fn person(server: &TestServer, subscriber: &Subscriber, person_id: i64) -> Value {
    let (status, body) = send(subscriber.auth(server.get(&format!("/persons/{person_id}"))));
    assert_eq!(status, 200, "{body}");
    body
}

pub fn fail_once(server: &TestServer, subscriber: &Subscriber, person_id: i64) -> (u16, Value) {
    let questions = authenticate(server, subscriber, person_id);
    let right = right_answers(server, subscriber, person_id);
    verify(server, subscriber, person_id, &answers_with(&questions, &right, 1))
}

#[test]
fn a_person_is_onboarded_asked_four_questions_and_verified_with_signals() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let body = json!({ "firstName": "Ada", "lastName": "Lovelace", "email": "Ada@Example.com" });
    let (status, created) = send(subscriber.auth(server.post("/persons", &body)));
    assert_eq!(status, 201, "{created}");
    assert!(created["error"].is_null());
    assert_eq!(created["status"], "onboarded");
    let person_id = created["personId"].as_i64().expect("personId");
    assert_eq!(person(&server, &subscriber, person_id)["status"], "onboarded");

    let issued = authenticate(&server, &subscriber, person_id);
    assert!(issued["error"].is_null());
    assert_eq!(issued["personId"], person_id);
    let expires_at =
        chrono::DateTime::parse_from_rfc3339(issued["expiresAt"].as_str().expect("expiresAt")).expect("RFC 3339");
    let minutes = (expires_at.timestamp() - chrono::Utc::now().timestamp()) as f64 / 60.0;
    assert!((9.5..=10.1).contains(&minutes), "{minutes}");
    let questions = issued["questions"].as_array().expect("questions");
    assert_eq!(questions.len(), 4);
    for question in questions {
        assert!(question["questionId"].as_i64().is_some() && question["text"].as_str().is_some(), "{question}");
        let choices = question["choices"].as_array().expect("choices");
        assert_eq!(choices.len(), 5, "{question}");
        assert!(choices.iter().any(|choice| choice["text"] == "None of the above"), "{question}");
        assert!(choices.iter().all(|choice| choice["choiceId"].as_i64().is_some()));
        let keys: Vec<&String> = question.as_object().expect("object").keys().collect();
        assert_eq!(keys.len(), 3, "nothing but id, text and choices (no right answer): {question}");
    }
    assert_eq!(person(&server, &subscriber, person_id)["status"], "authenticating");

    let right = right_answers(&server, &subscriber, person_id);
    let (status, verified) = verify(&server, &subscriber, person_id, &answers_with(&issued, &right, 3));
    assert_eq!(status, 200, "{verified}");
    assert_eq!(verified["verified"], true, "three of four pass");
    assert_eq!(verified["status"], "verified");
    assert_eq!(verified["attemptsRemaining"], 3);
    let signals = &verified["signals"];
    assert!(signals["income"]["annualAmount"].as_f64().is_some_and(|amount| amount > 0.0), "{signals}");
    assert_eq!(signals["income"]["currency"], "USD");
    let confidence = signals["income"]["confidence"].as_f64().expect("confidence");
    assert!((0.0..=1.0).contains(&confidence));
    let categories = signals["spendingCategories"].as_array().expect("categories");
    assert!(categories.len() >= 3);
    let shares: f64 = categories.iter().map(|category| category["share"].as_f64().expect("share")).sum();
    assert!((shares - 1.0).abs() < 1e-6, "shares sum to 1: {shares}");
    assert!(
        categories
            .iter()
            .all(|category| category["category"].as_str().is_some() && category["monthlyAverage"].as_f64().is_some())
    );
    let delta = &signals["spendingDelta"];
    assert!(delta["value"].as_f64().is_some() && delta["periodDays"].as_u64().is_some());
    assert!(["increasing", "decreasing", "stable"].contains(&delta["direction"].as_str().expect("direction")));

    let shown = person(&server, &subscriber, person_id);
    assert_eq!(shown["status"], "verified");
    assert_eq!(shown["verified"], true);
    assert_eq!(shown["signals"], *signals, "the same signals on every read");
    assert_eq!(shown["email"], "ada@example.com");
    let (_, list) = send(subscriber.auth(server.get("/persons")));
    assert_eq!(list["persons"][0]["personId"], person_id);
}

#[test]
fn wrong_answers_cost_an_attempt_and_a_question_set_is_answered_once() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    let issued = authenticate(&server, &subscriber, person_id);
    let right = right_answers(&server, &subscriber, person_id);
    let two_right = answers_with(&issued, &right, 2);
    let (status, body) = verify(&server, &subscriber, person_id, &two_right);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verified"], false);
    assert_eq!(body["status"], "failed");
    assert_eq!(body["attemptsRemaining"], 2);
    assert!(body.get("signals").is_none() || body["signals"].is_null(), "no signals without verification");
    let shown = person(&server, &subscriber, person_id);
    assert_eq!((shown["status"].clone(), shown["attemptsRemaining"].clone()), (json!("failed"), json!(2)));
    assert!(shown.get("signals").is_none());

    // The same set again, even with the right answers: refused, and it costs nothing.
    let (status, body) = verify(&server, &subscriber, person_id, &answers_with(&issued, &right, 4));
    assert_error(status, &body, 409, "conflict");
    assert_eq!(person(&server, &subscriber, person_id)["attemptsRemaining"], 2);

    // New questions, right answers: verified.
    let issued = authenticate(&server, &subscriber, person_id);
    let right = right_answers(&server, &subscriber, person_id);
    let (status, body) = verify(&server, &subscriber, person_id, &answers_with(&issued, &right, 4));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verified"], true);
    assert_eq!(body["attemptsRemaining"], 2);
}

#[test]
fn answers_must_cover_the_questions_issued_with_their_own_choices() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    let (status, body) = verify(&server, &subscriber, person_id, &[]);
    assert_error(status, &body, 409, "conflict");

    let issued = authenticate(&server, &subscriber, person_id);
    let right = right_answers(&server, &subscriber, person_id);
    let all = answers_with(&issued, &right, 4);
    let (status, body) = verify(&server, &subscriber, person_id, &all[..3]);
    assert_error(status, &body, 400, "invalid_request");
    let mut foreign = all.clone();
    foreign[0]["choiceId"] = all[1]["choiceId"].clone();
    let (status, body) = verify(&server, &subscriber, person_id, &foreign);
    assert_error(status, &body, 400, "invalid_request");
    assert_eq!(body["details"][0]["field"], "answers[0].choiceId");
    let mut unknown = all.clone();
    unknown[2]["questionId"] = json!(987_654);
    let (status, body) = verify(&server, &subscriber, person_id, &unknown);
    assert_error(status, &body, 400, "invalid_request");
    let (status, body) =
        send(subscriber.auth(server.post("/persons/verify", &json!({ "personId": person_id, "answers": "abc" }))));
    assert_error(status, &body, 400, "invalid_request");

    // None of that cost an attempt or used up the set.
    let (status, body) = verify(&server, &subscriber, person_id, &all);
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["verified"].clone(), body["attemptsRemaining"].clone()), (json!(true), json!(3)));
}

#[test]
fn three_failures_lock_the_person_until_the_lock_runs_out() {
    let server = TestServer::spawn_with(&["--person-lock-seconds", "3"]);
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    let (_, first) = fail_once(&server, &subscriber, person_id);
    assert_eq!(first["attemptsRemaining"], 2);
    let (_, second) = fail_once(&server, &subscriber, person_id);
    assert_eq!(second["attemptsRemaining"], 1);
    let (status, third) = fail_once(&server, &subscriber, person_id);
    assert_eq!(status, 200, "{third}");
    assert_eq!(third["status"], "locked");
    assert_eq!(third["attemptsRemaining"], 0);
    let locked_until = third["lockedUntil"].as_str().expect("lockedUntil").to_owned();

    let (status, body) = send(subscriber.auth(server.post("/persons/authenticate", &information(person_id))));
    assert_error(status, &body, 403, "forbidden");
    assert_eq!(body["lockedUntil"], locked_until.as_str());
    let (status, body) = verify(&server, &subscriber, person_id, &[]);
    assert_error(status, &body, 403, "forbidden");
    assert!(body["lockedUntil"].as_str().is_some());
    let shown = person(&server, &subscriber, person_id);
    assert_eq!(shown["status"], "locked");
    assert_eq!(shown["lockedUntil"], locked_until.as_str());

    std::thread::sleep(Duration::from_millis(3100));
    let shown = person(&server, &subscriber, person_id);
    assert_eq!(
        (shown["status"].clone(), shown["attemptsRemaining"].clone()),
        (json!("onboarded"), json!(3)),
        "{shown}"
    );
    let issued = authenticate(&server, &subscriber, person_id);
    let right = right_answers(&server, &subscriber, person_id);
    let (status, body) = verify(&server, &subscriber, person_id, &answers_with(&issued, &right, 4));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verified"], true);
}

#[test]
fn the_default_lock_lasts_a_day() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    for _ in 0..3 {
        fail_once(&server, &subscriber, person_id);
    }
    let (status, body) = send(subscriber.auth(server.post("/persons/authenticate", &information(person_id))));
    assert_error(status, &body, 403, "forbidden");
    let until = chrono::DateTime::parse_from_rfc3339(body["lockedUntil"].as_str().expect("lockedUntil")).expect("time");
    let hours = (until.timestamp() - chrono::Utc::now().timestamp()) as f64 / 3600.0;
    assert!((23.9..=24.01).contains(&hours), "{hours} hours");
}

#[test]
fn expired_questions_are_refused_until_the_person_authenticates_again() {
    // Long enough that a loaded machine still answers the second set in time.
    let server = TestServer::spawn_with(&["--person-questions-seconds", "4"]);
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    let issued = authenticate(&server, &subscriber, person_id);
    let right = right_answers(&server, &subscriber, person_id);
    std::thread::sleep(Duration::from_millis(5100));
    assert_eq!(person(&server, &subscriber, person_id)["status"], "onboarded");
    let (status, body) = verify(&server, &subscriber, person_id, &answers_with(&issued, &right, 4));
    assert_error(status, &body, 400, "invalid_request");
    assert!(body["error"].as_str().is_some_and(|message| message.contains("expired")), "{body}");
    assert_eq!(person(&server, &subscriber, person_id)["attemptsRemaining"], 3, "expiry alone costs no attempt");

    // Asking again counts the set left unanswered as a failed attempt.
    let issued = authenticate(&server, &subscriber, person_id);
    let right = right_answers(&server, &subscriber, person_id);
    let (status, body) = verify(&server, &subscriber, person_id, &answers_with(&issued, &right, 4));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verified"], true);
    assert_eq!(body["attemptsRemaining"], 2, "{body}");
}

#[test]
fn personal_information_is_checked_field_by_field() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let person_id = onboard(&server, &subscriber);
    let today = chrono::Utc::now().date_naive();
    let seventeen = today.with_year(today.year() - 17).unwrap_or(today).format("%Y-%m-%d").to_string();
    let cases: Vec<(&str, Value, &str)> = vec![
        ("dateOfBirth", json!("1985-02-30"), "not a real date"),
        ("dateOfBirth", json!("14/07/1985"), "another format"),
        ("dateOfBirth", json!(seventeen), "a minor"),
        ("dateOfBirth", json!("1880-01-01"), "absurdly old"),
        ("address.countryCode", json!("US"), "alpha-2"),
        ("address.city", json!(""), "empty"),
        ("ssnLast4", json!("12345"), "five digits"),
        ("phoneNumber", json!("call me"), "not a number"),
    ];
    for (field, value, why) in cases {
        let mut body = information(person_id);
        match field.split_once('.') {
            Some((outer, inner)) => body[outer][inner] = value,
            None => body[field] = value,
        }
        let (status, answer) = send(subscriber.auth(server.post("/persons/authenticate", &body)));
        assert_error(status, &answer, 400, "invalid_request");
        assert_eq!(answer["details"][0]["field"], field, "{why}: {answer}");
    }
    let mut without_address = information(person_id);
    without_address.as_object_mut().expect("object").remove("address");
    let (status, answer) = send(subscriber.auth(server.post("/persons/authenticate", &without_address)));
    assert_error(status, &answer, 400, "invalid_request");
    assert_eq!(person(&server, &subscriber, person_id)["status"], "onboarded", "nothing was issued");

    for body in [
        json!({ "firstName": "", "lastName": "L", "email": "a@example.com" }),
        json!({ "firstName": "A", "lastName": "L", "email": "not-an-email" }),
        json!({ "firstName": "A", "email": "a@example.com" }),
    ] {
        let (status, answer) = send(subscriber.auth(server.post("/persons", &body)));
        assert_error(status, &answer, 400, "invalid_request");
    }
}

#[test]
fn persons_are_scoped_to_their_subscriber() {
    let server = TestServer::spawn();
    let owner = server.subscriber();
    let stranger = server.subscriber();
    let person_id = onboard(&server, &owner);
    authenticate(&server, &owner, person_id);
    let (status, body) = send(stranger.auth(server.get(&format!("/persons/{person_id}"))));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = send(stranger.auth(server.post("/persons/authenticate", &information(person_id))));
    assert_error(status, &body, 404, "not_found");
    let (status, body) = verify(&server, &stranger, person_id, &[]);
    assert_error(status, &body, 404, "not_found");
    let (status, body) = send(stranger.auth(server.get(&format!("/sandbox/persons/{person_id}/answers"))));
    assert_error(status, &body, 404, "not_found");
    let (_, list) = send(stranger.auth(server.get("/persons")));
    assert_eq!(list["persons"], json!([]));
    let (status, body) =
        send(server.post("/persons", &json!({ "firstName": "A", "lastName": "B", "email": "a@b.co" })));
    assert_error(status, &body, 401, "unauthorized");
}

#[test]
fn onboarding_is_idempotent_and_identity_questions_are_sandbox_only() {
    let server = TestServer::spawn_with(&["--environment", "expansion"]);
    let subscriber = server.subscriber();
    let body = json!({ "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com" });
    let request = || subscriber.auth(server.post("/persons", &body)).header("Idempotency-Key", "person-1");
    let (status, first) = send(request());
    assert_eq!(status, 201);
    let (status, again) = send(request());
    assert_eq!(status, 201);
    assert_eq!(first, again, "one person, not two");
    let (_, list) = send(subscriber.auth(server.get("/persons")));
    assert_eq!(list["persons"].as_array().map(Vec::len), Some(1));

    // No identity source outside the sandbox: no questions, and no answers helper.
    let person_id = first["personId"].as_i64().expect("personId");
    let (status, body) = send(subscriber.auth(server.post("/persons/authenticate", &information(person_id))));
    assert_error(status, &body, 501, "not_configured");
    let (status, body) = send(subscriber.auth(server.get(&format!("/sandbox/persons/{person_id}/answers"))));
    assert_error(status, &body, 404, "not_found");
}
