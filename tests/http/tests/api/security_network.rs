//! The third round of attacks on what the service reaches and whom it believes, tried from
//! outside: client addresses behind a proxy (findings 5), webhook receivers' answers (3, 9),
//! webhook targets on this machine (9), the process's proxy variables (13), and look-ups at
//! the endpoint cap (8).

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subscriber_testkit::WebhookReceiver;

use crate::helpers::{LOCAL_RECEIVERS, Subscriber, TestServer, assert_error, refused_start, send};

const WAIT: Duration = Duration::from_secs(20);

fn login_through_proxy(server: &TestServer, forwarded: (&str, &str), email: &str, secret: &str) -> (u16, Value) {
    let body = json!({ "email": email, "api_key": secret });
    send(server.post("/subscriber/login", &body).header(forwarded.0, forwarded.1))
}

fn client_on(address: Ipv4Addr) -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .local_address(IpAddr::V4(address))
        .timeout(Duration::from_secs(60))
        .build()
        .expect("a client on another loopback address")
}

/// Behind the TLS proxy the package recommends every connection comes from the proxy. With
/// `--trusted-proxies` each client is its own address: guessers spread over many addresses
/// exhaust the e-mail's failed-login limit, and still the subscriber logs in with the right
/// secret, while a wrong one stays refused.
#[test]
fn guesses_from_many_addresses_behind_a_proxy_never_lock_the_subscriber_out() {
    let server = TestServer::spawn_with(&["--trusted-proxies", "127.0.0.1/32,::1"]);
    let victim = server.subscriber();
    // 5 guesses from each of 12 addresses: under the 10 per address, over the 50 per e-mail.
    let mut refused = 0;
    for client in 1..=12 {
        let address = format!("198.51.100.{client}");
        for _ in 0..5 {
            let (status, body) =
                login_through_proxy(&server, ("x-forwarded-for", &address), &victim.email, "sk_test_guess");
            if status == 429 {
                assert_error(status, &body, 429, "rate_limited");
                refused += 1;
            } else {
                assert_error(status, &body, 401, "invalid_credentials");
            }
        }
    }
    assert!(refused > 0, "the e-mail's limit refuses guesses from many addresses");
    let (status, body) =
        login_through_proxy(&server, ("x-forwarded-for", "198.51.100.99"), &victim.email, "sk_test_guess");
    assert_error(status, &body, 429, "rate_limited");
    for forwarded in [("x-forwarded-for", "203.0.113.5"), ("forwarded", "for=\"[2001:db8::5]:4711\";proto=https")] {
        let (status, body) = login_through_proxy(&server, forwarded, &victim.email, &victim.secret);
        assert_eq!(status, 200, "the right secret is never refused ({forwarded:?}): {body}");
    }
}

/// Thirty wrong logins from one client behind the proxy refuse that client's guesses, not
/// every client of the proxy.
#[test]
fn a_shared_proxy_address_is_not_one_bucket_for_everyone() {
    let server = TestServer::spawn_with(&["--trusted-proxies", "127.0.0.1"]);
    let bystander = server.subscriber();
    let mut refused = false;
    for _ in 0..40 {
        let email = format!("guess-{}@example.com", uuid::Uuid::new_v4().simple());
        let (status, _) = login_through_proxy(&server, ("x-forwarded-for", "198.51.100.7"), &email, "sk_test_guess");
        if status == 429 {
            refused = true;
            break;
        }
    }
    assert!(refused, "the guessing client is refused");
    let other = ("x-forwarded-for", "198.51.100.8");
    let (status, body) = login_through_proxy(&server, other, &bystander.email, "sk_test_wrong");
    assert_error(status, &body, 401, "invalid_credentials");
    let (status, body) = login_through_proxy(&server, other, &bystander.email, &bystander.secret);
    assert_eq!(status, 200, "another client of the same proxy logs in: {body}");
}

/// `X-Forwarded-For` and `Forwarded` from a connection that is not a trusted proxy (and from
/// any connection when none is trusted) are ignored: a guesser cannot pick a fresh address for
/// every guess.
#[test]
fn forwarding_headers_from_anyone_else_are_ignored() {
    for flags in [&["--trusted-proxies", "127.0.0.1"][..], &[][..]] {
        let server = TestServer::spawn_with(flags);
        let subscriber = server.subscriber();
        let guesser = client_on(Ipv4Addr::new(127, 0, 0, 3));
        let statuses: Vec<u16> = (0..12)
            .map(|guess| {
                let request = guesser
                    .post(server.url("/subscriber/login"))
                    .json(&json!({ "email": subscriber.email, "api_key": "sk_test_guess" }))
                    .header("x-forwarded-for", format!("198.51.100.{guess}"))
                    .header("forwarded", format!("for=198.51.100.{guess}"));
                send(request).0
            })
            .collect();
        assert_eq!(statuses[..10], [401; 10], "{flags:?}: {statuses:?}");
        assert_eq!(statuses[10..], [429; 2], "{flags:?}: the guesses counted against 127.0.0.3: {statuses:?}");
    }
}

/// A receiver that answers 500 with a body of `length` bytes starting with `prefix`, and
/// reports how many bytes it managed to write before the service stopped reading.
struct HugeAnswer {
    address: SocketAddr,
    written: mpsc::Receiver<usize>,
}

impl HugeAnswer {
    fn start(prefix: Vec<u8>, length: usize) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let address = listener.local_addr().expect("bound");
        let (report, written) = mpsc::channel();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_write_timeout(Some(Duration::from_secs(30)));
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                read_request(&mut stream);
                let head = format!(
                    "HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ncontent-length: {length}\r\n\r\n"
                );
                let mut sent = 0;
                if stream.write_all(head.as_bytes()).is_ok() && stream.write_all(&prefix).is_ok() {
                    sent = prefix.len();
                    let chunk = vec![b'x'; 64 * 1024];
                    while sent < length {
                        let size = chunk.len().min(length - sent);
                        match stream.write(&chunk[..size]) {
                            Ok(0) | Err(_) => break,
                            Ok(count) => sent += count,
                        }
                    }
                }
                if report.send(sent).is_err() {
                    return;
                }
            }
        });
        Self { address, written }
    }

    fn url(&self) -> String {
        format!("http://{}/hooks", self.address)
    }
}

/// Reads a request's head and its `content-length` bytes of body.
fn read_request(stream: &mut std::net::TcpStream) {
    let mut received = Vec::new();
    let mut buffer = [0u8; 8192];
    while let Ok(count) = stream.read(&mut buffer) {
        if count == 0 {
            return;
        }
        received.extend_from_slice(&buffer[..count]);
        let text = String::from_utf8_lossy(&received).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-length:").map(str::to_owned))
                .and_then(|value| value.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                return;
            }
        }
    }
}

fn deliveries(server: &TestServer, subscriber: &Subscriber, webhook_id: i64, count: usize) -> Vec<Value> {
    let deadline = Instant::now() + WAIT;
    loop {
        let (status, page) = send(subscriber.auth(server.get(&format!("/webhooks/{webhook_id}/deliveries"))));
        assert_eq!(status, 200, "{page}");
        let attempts = page["deliveries"].as_array().cloned().unwrap_or_default();
        if attempts.len() >= count {
            return attempts;
        }
        assert!(Instant::now() < deadline, "no delivery attempt logged: {page}\n{}", server.log());
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn add_endpoint(server: &TestServer, subscriber: &Subscriber, url: &str) -> i64 {
    let (status, body) = send(subscriber.auth(server.post("/webhooks", &json!({ "url": url, "events": ["*"] }))));
    assert_eq!(status, 201, "{body}");
    body["webhookId"].as_i64().expect("webhookId")
}

fn send_test_event(server: &TestServer, subscriber: &Subscriber, webhook_id: i64) {
    let (status, body) = send(subscriber.auth(server.post(&format!("/webhooks/{webhook_id}/test"), &json!({}))));
    assert_eq!(status, 200, "{body}");
}

/// A receiver answering 256 MiB is read 64 KiB deep, and the delivery log keeps at most 200
/// bytes of the answer, as text: no control character, no broken character.
#[test]
fn a_huge_answer_is_read_64_kib_deep_and_logged_200_bytes_deep() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let mut prefix = "é".repeat(150).into_bytes();
    prefix.extend_from_slice(b"\r\n\x1b[31m\x00\xff tail");
    let receiver = HugeAnswer::start(prefix, 256 << 20);
    let webhook_id = add_endpoint(&server, &subscriber, &receiver.url());
    send_test_event(&server, &subscriber, webhook_id);

    let written = receiver.written.recv_timeout(Duration::from_secs(60)).expect("the receiver answered");
    assert!(written < 32 << 20, "the service read {written} bytes of a 256 MiB answer");
    let attempt = deliveries(&server, &subscriber, webhook_id, 1).remove(0);
    assert_eq!(attempt["status"], "failed", "{attempt}");
    assert_eq!(attempt["responseStatus"], 500, "{attempt}");
    let error = attempt["error"].as_str().expect("an error");
    let (said, excerpt) = error.split_once(": ").expect("the answer's start");
    assert!(said.contains("500"), "{error}");
    assert!(excerpt.len() <= 200, "{} bytes kept: {excerpt:?}", excerpt.len());
    assert!(excerpt.starts_with("éé"), "{excerpt:?}");
    assert!(!excerpt.chars().any(char::is_control), "kept as text: {excerpt:?}");
}

/// Without `--webhooks-allow-private` a sandbox subscriber cannot make the service POST to
/// this machine's loopback services or a private network, and an endpoint saved while it was
/// allowed gets nothing once it is not.
#[test]
fn the_sandbox_reaches_loopback_and_private_networks_only_when_allowed() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::start();
    for url in [
        receiver.url(),
        "http://localhost:9/hooks".to_owned(),
        "https://127.0.0.1:9/hooks".to_owned(),
        "http://10.0.0.7/hooks".to_owned(),
        "https://192.168.1.20/hooks".to_owned(),
        "https://[::1]:9/hooks".to_owned(),
        "https://[fd12::1]/hooks".to_owned(),
    ] {
        let (status, body) = send(subscriber.auth(server.post("/webhooks", &json!({ "url": url, "events": ["*"] }))));
        assert_error(status, &body, 400, "invalid_request");
        assert_eq!(body["details"][0]["field"], "url", "{url}: {body}");
    }
    let (dir, database) = server.stop();

    let allowed = TestServer::spawn_on(dir, database, "127.0.0.1:0", &[LOCAL_RECEIVERS]);
    let developer = allowed.subscriber();
    let webhook_id = add_endpoint(&allowed, &developer, &receiver.url());
    let (dir, database) = allowed.stop();

    let strict = TestServer::spawn_on(dir, database, "127.0.0.1:0", &[]);
    send_test_event(&strict, &developer, webhook_id);
    let attempt = deliveries(&strict, &developer, webhook_id, 1).remove(0);
    assert_eq!(attempt["status"], "failed", "{attempt}");
    assert!(attempt["responseStatus"].is_null(), "nothing was sent: {attempt}");
    assert!(receiver.next(Duration::from_secs(2)).is_none(), "the loopback receiver got a delivery");
}

#[test]
fn allowing_private_webhook_targets_is_refused_outside_the_sandbox() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let database = crate::helpers::fresh_database(dir.path());
    let said = refused_start(&database, &["--environment", "established", "--webhooks-allow-private"]);
    assert!(said.contains("sandbox only"), "{said}");
}

/// `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` in the service's environment are not used for
/// deliveries: a proxy would be all the address check sees.
#[test]
fn deliveries_never_go_through_the_environments_proxy() {
    let proxy = WebhookReceiver::start();
    let proxy_url = proxy.url().trim_end_matches("/hooks").to_owned();
    let mut env: Vec<(&str, &str)> =
        ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]
            .iter()
            .map(|name| (*name, proxy_url.as_str()))
            .collect();
    env.extend([("NO_PROXY", ""), ("no_proxy", "")]);
    let server = TestServer::spawn_with_env(&[LOCAL_RECEIVERS], &env);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::start();
    let webhook_id = add_endpoint(&server, &subscriber, &receiver.url());
    send_test_event(&server, &subscriber, webhook_id);
    let delivery = receiver.next_accepted(WAIT).expect("delivered straight to the receiver");
    assert_eq!(delivery.json()["type"], "webhook.test");
    assert!(proxy.next(Duration::from_millis(500)).is_none(), "a delivery went through the proxy");
}

/// A subscriber at the endpoint cap is refused before the URL is looked at: the service
/// resolves nothing for it (a slow name cannot hold anything while the 21st is refused).
#[test]
fn at_the_endpoint_cap_nothing_is_resolved() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::start();
    for _ in 0..20 {
        add_endpoint(&server, &subscriber, &receiver.url());
    }
    let slow = format!("https://{}.invalid/hooks", uuid::Uuid::new_v4().simple());
    let (status, body) = send(subscriber.auth(server.post("/webhooks", &json!({ "url": slow, "events": ["*"] }))));
    assert_error(status, &body, 409, "conflict");
    let (_, listed) = send(subscriber.auth(server.get("/webhooks")));
    assert_eq!(listed["webhooks"].as_array().map(Vec::len), Some(20), "{listed}");
}

fn patch_webhook(server: &TestServer, subscriber: &Subscriber, webhook_id: i64, change: &Value) -> (u16, Value) {
    send(subscriber.auth(server.http.patch(server.url(&format!("/webhooks/{webhook_id}"))).json(change)))
}

/// Issue 37, L1: the answer to a refused webhook URL says "not allowed" and never what the
/// service's resolver made of the name (an oracle into the internal DNS): a name that resolves
/// to this machine and one that does not resolve at all read alike, on creation and on change.
#[test]
fn a_refused_webhook_url_never_says_what_its_name_resolves_to() {
    let server = TestServer::spawn();
    let subscriber = server.subscriber();
    let webhook_id = add_endpoint(&server, &subscriber, "https://93.184.216.34/hooks");
    let nowhere = format!("{}.invalid", uuid::Uuid::new_v4().simple());
    let mut answers = Vec::new();
    for host in ["localhost", nowhere.as_str()] {
        let url = format!("https://{host}/hooks");
        let created = send(subscriber.auth(server.post("/webhooks", &json!({ "url": url, "events": ["*"] }))));
        let changed = patch_webhook(&server, &subscriber, webhook_id, &json!({ "url": url }));
        for (status, mut body) in [created, changed] {
            assert_error(status, &body, 400, "invalid_request");
            body["requestId"] = Value::Null;
            let said = body.to_string();
            assert!(said.contains("not allowed"), "{said}");
            for address in ["127.0.0.1", "::1", "resolves to "] {
                assert!(!said.contains(address), "{address:?} in {said}");
            }
            answers.push(said.replace(host, "<host>"));
        }
    }
    assert_eq!(answers[0], answers[2], "a name resolving inside reads like one that does not resolve");
    assert_eq!(answers[1], answers[3]);
}

/// Issue 37, L1: `PATCH /webhooks/{id}` finds the caller's endpoint before it looks a URL up:
/// another subscriber's id, or none, is 404 whatever the URL (once it was a 400 saying what
/// the name resolved to); and a subscriber over the endpoint cap (endpoints kept from before
/// it) changes no URL (409) while other changes go through.
#[test]
fn patching_a_webhook_checks_the_owner_and_the_cap_before_any_look_up() {
    let server = TestServer::spawn();
    let (mine, theirs) = (server.subscriber(), server.subscriber());
    let their_endpoint = add_endpoint(&server, &theirs, "https://93.184.216.34/theirs");
    let slow = format!("https://{}.invalid/hooks", uuid::Uuid::new_v4().simple());
    for webhook_id in [their_endpoint, their_endpoint + 1_000_000] {
        for change in [json!({ "url": slow }), json!({ "url": "https://localhost/hooks" }), json!({ "enabled": false })]
        {
            let (status, body) = patch_webhook(&server, &mine, webhook_id, &change);
            assert_error(status, &body, 404, "not_found");
        }
    }
    let (_, kept) = send(theirs.auth(server.get(&format!("/webhooks/{their_endpoint}"))));
    assert_eq!(
        (kept["url"].as_str(), kept["status"].as_str()),
        (Some("https://93.184.216.34/theirs"), Some("enabled"))
    );

    // Twenty endpoints, and one more as if kept from before the cap.
    let first = add_endpoint(&server, &mine, "https://93.184.216.34/0");
    for index in 1..20 {
        add_endpoint(&server, &mine, &format!("https://93.184.216.34/{index}"));
    }
    let (status, body) = patch_webhook(&server, &mine, first, &json!({ "url": "https://93.184.216.34/moved" }));
    assert_eq!(status, 200, "at the cap a URL still changes: {body}");
    let copy = format!(
        "INSERT INTO webhooks (subscriber_id, url, events, created_at) \
         SELECT subscriber_id, url, events, created_at FROM webhooks WHERE id = {first}"
    );
    if server.on_postgres() {
        crate::helpers::psql(&server.database.to_string_lossy(), &copy);
    } else {
        let connection = rusqlite::Connection::open(&server.database).expect("the database file");
        connection.busy_timeout(Duration::from_secs(10)).expect("a busy timeout");
        connection.execute(&copy, []).expect("a 21st endpoint");
    }
    let (status, body) = patch_webhook(&server, &mine, first, &json!({ "url": slow }));
    assert_error(status, &body, 409, "conflict");
    let (status, body) = patch_webhook(&server, &mine, first, &json!({ "enabled": false }));
    assert_eq!(status, 200, "changes other than the URL go through: {body}");
    assert_eq!(body["url"], "https://93.184.216.34/moved");
}
