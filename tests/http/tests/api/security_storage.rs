//! What an attacker holding a copy of the database finds in it, and what reaches the log:
//! no unkeyed digest of a card number, no key, no live one-time link, no card number.

use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::helpers::{
    TEST_PANS, TestServer, assert_error, card_json, database_files, key_file_of, refused_start, send,
};

/// The database file with its write-ahead log: everything a copy of the data would hold.
fn database_bytes(database: &Path) -> Vec<u8> {
    database_files(database).into_iter().flat_map(|(_, bytes)| bytes).collect()
}

/// Whether the database holds `needle`, as bytes or (a PostgreSQL dump's `bytea`) as hex.
fn holds(database: &[u8], needle: &[u8]) -> bool {
    contains(database, needle) || contains(database, hex::encode(needle).as_bytes())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

fn key_file(database: &Path) -> PathBuf {
    key_file_of(database)
}

/// What the idempotency layer of earlier versions kept: SHA-256 of method, path and body.
fn unkeyed_request_hash(path: &str, body: &[u8]) -> Vec<u8> {
    let mut hasher = Sha256::new();
    hasher.update(format!("POST {path}\n").as_bytes());
    hasher.update(body);
    hasher.finalize().to_vec()
}

#[test]
fn the_database_holds_no_unkeyed_digest_of_a_card_number_sent_with_an_idempotency_key() {
    for environment in ["sandbox", "expansion"] {
        let server = TestServer::spawn_with(&["--environment", environment]);
        let subscriber = server.subscriber();
        let body = serde_json::to_vec(&card_json(TEST_PANS[2])).expect("json");
        let (status, answer) = send(
            subscriber.auth(
                server
                    .http
                    .post(server.url("/card"))
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", "card-1")
                    .body(body.clone()),
            ),
        );
        if environment == "sandbox" {
            assert_eq!(status, 201, "{answer}");
        } else {
            assert_error(status, &answer, 403, "pan_not_accepted");
        }
        let database = database_bytes(&server.database);
        assert!(!database.is_empty());
        assert!(!holds(&database, &unkeyed_request_hash("/card", &body)), "{environment}: unkeyed request hash");
        assert!(!holds(&database, &Sha256::digest(TEST_PANS[2].as_bytes())), "{environment}: digest of the PAN");
        assert!(!holds(&database, TEST_PANS[2].as_bytes()), "{environment}: the PAN itself");
    }
}

#[test]
fn the_keys_live_in_a_private_key_file_and_not_in_the_database() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    server.enroll_card(&subscriber, TEST_PANS[0]);
    let path = key_file(&server.database);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("the key file exists beside the database").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "key file mode");
        if !server.on_postgres() {
            let database_mode = std::fs::metadata(&server.database).expect("database").permissions().mode();
            assert_eq!(database_mode & 0o077, 0, "the database is readable by its owner only");
        }
    }
    let file: Value = serde_json::from_slice(&std::fs::read(&path).expect("key file")).expect("json key file");
    let keys = file["keys"].as_object().expect("keys");
    for name in ["token_signing", "card_fingerprint", "hosted_forms", "idempotency", "webhook_signing"] {
        assert!(keys.contains_key(name), "{name} in the key file");
    }
    let database = database_bytes(&server.database);
    for (name, value) in keys {
        let key = base64::engine::general_purpose::STANDARD.decode(value.as_str().expect("text")).expect("base64");
        assert!(!holds(&database, &key), "the {name} key is in the database");
    }
}

#[test]
fn tokens_survive_a_restart_with_the_key_file_and_another_key_file_is_refused() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let card_id = server.enroll_card(&subscriber, TEST_PANS[0]);
    let (dir, database) = server.stop();

    let server = TestServer::spawn_on(dir, database.clone(), "127.0.0.1:0", &[]);
    let (status, body) = send(subscriber.auth(server.get(&format!("/card/{card_id}"))));
    assert_eq!(status, 200, "the token still works after a restart: {body}");
    let (dir, database) = server.stop();

    // A key file readable by others is refused.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let path = key_file(&database);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let said = refused_start(&database, &[]);
        assert!(said.contains("chmod 600"), "{said}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }

    // Another key file does not belong to this database: refused, and nothing is written.
    let other = dir.path().join("other.keys");
    let said = refused_start(&database, &["--keys", other.to_str().expect("utf-8")]);
    assert!(said.contains("does not belong to this database"), "{said}");
    assert!(!other.exists());
    drop(dir);
}

#[test]
fn a_replayed_card_entry_link_works_while_the_database_holds_no_live_link() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let create = || send(subscriber.auth(server.post("/card/session", &json!({})).header("Idempotency-Key", "link-1")));
    let (status, first) = create();
    assert_eq!(status, 201, "{first}");
    let (status, replay) = create();
    assert_eq!(status, 201, "{replay}");
    assert_eq!(replay, first);
    let url = first["url"].as_str().expect("url");
    let token = url.split("session=").nth(1).expect("a one-time token in the link");
    assert!(token.len() >= 20, "{url}");
    assert!(!holds(&database_bytes(&server.database), token.as_bytes()), "a live link token is in the database");
    let page = server.http.get(url).send().expect("page");
    assert_eq!(page.status().as_u16(), 200, "the replayed link opens the page");
}

#[test]
fn card_numbers_in_paths_never_reach_the_log() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    for path in [
        "/card/4242424242424242",
        "/card/4242-4242-4242-4242",
        "/card/4242%204242%204242%204242",
        "/card/4242+4242+4242+4242/transactions",
        "/nowhere/5555.5555.5555.4444",
        "/nowhere/5555%2D5555%2D5555%2D4444?pan=6011111111111117",
    ] {
        let (status, body) = send(subscriber.auth(server.get(path)));
        assert_eq!(status, 404, "{path}: {body}");
        let message = body["error"].as_str().unwrap_or_default();
        assert!(message.chars().filter(char::is_ascii_digit).count() < 12, "{path} echoed: {message}");
    }
    let log = server.log();
    let digits_only: String =
        log.chars().filter(|character| character.is_ascii_digit() || *character == '\n').collect();
    for pan in ["4242424242424242", "5555555555554444", "6011111111111117"] {
        assert!(!digits_only.contains(pan), "{pan} reached the log:\n{log}");
    }
}
