use crate::helpers::{TEST_PAN, TestServer, send};

#[test]
fn an_enrolled_card_shows_its_last_four_and_compact_enrolled_at() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PAN);
    let (status, body) = send(subscriber.auth(server.get(&format!("/card/{card_id}"))));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["lastFour"], 4242);
    let enrolled_at = body["enrolledAt"].as_str().expect("enrolledAt");
    assert!(chrono::NaiveDateTime::parse_from_str(enrolled_at, "%Y%m%d-%H%M").is_ok(), "{enrolled_at}");
}
