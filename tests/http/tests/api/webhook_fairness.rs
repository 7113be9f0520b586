//! Fair webhook delivery (issue 37 M1/M2, issue 36), tried from outside with real receivers: a
//! hostile tenant (several accounts, many slow endpoints, events queued) cannot hold the
//! delivery slots nor delay a quiet tenant; one receiver gets a bounded share; a full queue
//! drops what comes next, says so and gives it back; test sends are limited; a tenant's many
//! stuck deliveries cost nothing while nothing is due; a killed instance's delivery is taken
//! over by the other within seconds, the same event first and in order; every line the
//! delivery worker logs names its task.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subscriber_testkit::receiver::Answers;
use subscriber_testkit::{Delivery, WebhookReceiver};

use crate::helpers::{LOCAL_RECEIVERS, Subscriber, TestServer, assert_error, postgres_admin, send};
use crate::merchants::{create_location, enroll_merchant};
use crate::webhooks::{add_receiver, create_webhook};

const WAIT: Duration = Duration::from_secs(20);
/// The service's caps (`webhooks::delivery`): attempts in flight per subscriber and per
/// receiver (host and port).
const PER_SUBSCRIBER: usize = 8;
const PER_HOST: usize = 16;

/// An endpoint at `receiver` (its own path), for `events`.
fn endpoint_at(
    server: &TestServer,
    subscriber: &Subscriber,
    receiver: &WebhookReceiver,
    path: &str,
    events: &[&str],
) -> i64 {
    let url = format!("{}/{path}", receiver.url());
    let (status, body) = create_webhook(server, subscriber, &json!({ "url": url, "events": events }));
    assert_eq!(status, 201, "{body}");
    body["webhookId"].as_i64().expect("webhookId")
}

fn send_test(server: &TestServer, subscriber: &Subscriber, webhook_id: i64) -> (u16, Value) {
    send(subscriber.auth(server.post(&format!("/webhooks/{webhook_id}/test"), &json!({}))))
}

fn queued_test(server: &TestServer, subscriber: &Subscriber, webhook_id: i64) -> String {
    let (status, body) = send_test(server, subscriber, webhook_id);
    assert_eq!(status, 200, "{body}");
    body["eventId"].as_str().expect("eventId").to_owned()
}

/// Requests the receiver gets within `window` after the first (which may take up to `WAIT`).
fn arrivals(receiver: &WebhookReceiver, window: Duration) -> Vec<Delivery> {
    let Some(first) = receiver.next(WAIT) else { return Vec::new() };
    let mut got = vec![first];
    let until = Instant::now() + window;
    while let Some(next) = receiver.next(until.saturating_duration_since(Instant::now())) {
        got.push(next);
    }
    got
}

/// How many requests each receiver got within `window` (all counted together).
fn arrivals_at(receivers: &[&WebhookReceiver], window: Duration) -> Vec<usize> {
    let until = Instant::now() + window;
    let mut counts = vec![0; receivers.len()];
    while Instant::now() < until {
        for (count, receiver) in counts.iter_mut().zip(receivers) {
            while receiver.next(Duration::ZERO).is_some() {
                *count += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    counts
}

fn endpoint(server: &TestServer, subscriber: &Subscriber, webhook_id: i64) -> Value {
    let (status, body) = send(subscriber.auth(server.get(&format!("/webhooks/{webhook_id}"))));
    assert_eq!(status, 200, "{body}");
    body
}

/// Four free accounts, each with 20 endpoints on a receiver that never answers in time (the
/// attempt's 15 s run out) and two events queued for each: they have 8 attempts each in
/// flight, no more, and a quiet tenant's event arrives while all of theirs are still open (it
/// waited for none of them).
#[test]
fn a_hostile_tenant_holds_a_share_of_the_slots_and_a_quiet_one_is_not_delayed() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let hostile: Vec<(Subscriber, WebhookReceiver, Vec<i64>)> = (0..4)
        .map(|_| {
            let account = server.subscriber();
            let receiver = WebhookReceiver::slow(Duration::from_secs(30));
            let endpoints =
                (0..20).map(|n| endpoint_at(&server, &account, &receiver, &n.to_string(), &["webhook.test"])).collect();
            (account, receiver, endpoints)
        })
        .collect();
    let quiet = server.subscriber();
    let quiet_receiver = WebhookReceiver::start();
    let (quiet_endpoint, _) = add_receiver(&server, &quiet, &quiet_receiver, &["webhook.test"]);
    for (account, _, endpoints) in &hostile {
        for _ in 0..2 {
            for webhook_id in endpoints {
                queued_test(&server, account, *webhook_id);
            }
        }
    }
    let receivers: Vec<&WebhookReceiver> = hostile.iter().map(|(_, receiver, _)| receiver).collect();
    let open = arrivals_at(&receivers, Duration::from_millis(1500));
    assert_eq!(open, [PER_SUBSCRIBER; 4], "in flight for each account at once");
    let sent = Instant::now();
    let event = queued_test(&server, &quiet, quiet_endpoint);
    let delivered = quiet_receiver.next(WAIT).expect("the quiet tenant's event");
    assert_eq!(delivered.header("webhook-id"), event);
    for (_, receiver, _) in &hostile {
        assert!(receiver.next(Duration::ZERO).is_none(), "no hostile attempt ended before the quiet event arrived");
    }
    assert!(sent.elapsed() < Duration::from_secs(8), "{:?}: it did not wait for a hostile slot", sent.elapsed());
}

/// Three accounts with 8 endpoints each on one receiver that never answers in time: at most
/// 16 attempts reach it at once, and another receiver's endpoint still goes.
#[test]
fn one_receiver_gets_a_bounded_share() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let shared = WebhookReceiver::slow(Duration::from_secs(30));
    for account in 0..3 {
        let subscriber = server.subscriber();
        for n in 0..8 {
            let webhook_id = endpoint_at(&server, &subscriber, &shared, &format!("{account}/{n}"), &["webhook.test"]);
            queued_test(&server, &subscriber, webhook_id);
        }
    }
    let open = arrivals_at(&[&shared], Duration::from_millis(1500));
    assert_eq!(open, [PER_HOST], "attempts at one receiver at once");
    let other = server.subscriber();
    let own = WebhookReceiver::start();
    let (webhook_id, _) = add_receiver(&server, &other, &own, &["webhook.test"]);
    queued_test(&server, &other, webhook_id);
    assert!(own.next(WAIT).is_some(), "another receiver's endpoint is not held back");
}

/// With a queue of 3: the head fails with `Retry-After: 3600`, so the queue fills; the next
/// events are dropped, and the endpoint's queue says which; a test send and a resend are
/// refused (409) rather than dropped. Pointed at a working receiver and its head sent again,
/// it delivers what waited; `recover` then queues the dropped ones, which arrive in order.
#[test]
fn a_full_queue_drops_what_comes_next_says_so_and_gives_it_back() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS, "--webhook-queue-max", "3"]);
    let subscriber = server.subscriber();
    let stalling = WebhookReceiver::answering(Answers {
        status: Some(503),
        retry_after: Some("3600".to_owned()),
        ..Answers::default()
    });
    let (webhook_id, _) = add_receiver(&server, &subscriber, &stalling, &["merchant.location.created"]);
    enroll_merchant(&server, &subscriber, "Full Queue Books");
    let before = chrono::Utc::now() - chrono::Duration::minutes(1);
    create_location(&server, &subscriber, "Street 0");
    let head = stalling.next(WAIT).expect("the first attempt");
    assert_eq!(head.answered, 503);
    for n in 1..6 {
        create_location(&server, &subscriber, &format!("Street {n}"));
    }
    let (status, events) = send(subscriber.auth(server.get("/events?type=merchant.location.created&limit=10")));
    assert_eq!(status, 200, "{events}");
    let mut ids: Vec<String> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|event| event["id"].as_str().expect("id").to_owned())
        .collect();
    ids.reverse();
    assert_eq!(ids.len(), 6, "{events}");
    let queue = &endpoint(&server, &subscriber, webhook_id)["queue"];
    assert_eq!(queue["queueLength"], 3, "{queue}");
    assert_eq!(queue["queueLimit"], 3, "{queue}");
    let dropped = &queue["dropped"];
    assert_eq!((dropped["count"].as_i64(), dropped["total"].as_i64()), (Some(3), Some(3)), "{queue}");
    assert_eq!(dropped["firstEventId"], ids[3], "{queue}");
    assert_eq!(dropped["lastEventId"], ids[5], "{queue}");
    assert!(dropped["since"].is_string() && dropped["until"].is_string(), "{queue}");

    let (status, body) = send_test(&server, &subscriber, webhook_id);
    assert_error(status, &body, 409, "conflict");
    assert!(body["error"].as_str().is_some_and(|message| message.contains("queue is full")), "{body}");
    let resend = |event: &str| {
        send(subscriber.auth(server.post(&format!("/webhooks/{webhook_id}/deliveries/{event}/resend"), &json!({}))))
    };
    let (status, body) = resend(&ids[4]);
    assert_error(status, &body, 409, "conflict");
    assert!(stalling.next(Duration::from_millis(300)).is_none(), "a refused request sends nothing");

    let working = WebhookReceiver::start();
    let (status, body) = send(subscriber.auth(
        server.http.patch(server.url(&format!("/webhooks/{webhook_id}"))).json(&json!({ "url": working.url() })),
    ));
    assert_eq!(status, 200, "{body}");
    let (status, body) = resend(&ids[0]);
    assert_eq!(status, 200, "the head waits in the queue: sent again now: {body}");
    let waited: Vec<String> =
        (0..3).map(|_| working.next_accepted(WAIT).expect("a delivery").header("webhook-id").to_owned()).collect();
    assert_eq!(waited, ids[..3], "what waited, in order");
    emptied(&server, &subscriber, webhook_id);

    let (status, body) = send(
        subscriber
            .auth(server.post(&format!("/webhooks/{webhook_id}/recover"), &json!({ "since": before.to_rfc3339() }))),
    );
    assert_eq!((status, body["queued"].as_i64()), (200, Some(3)), "{body}");
    let recovered: Vec<String> =
        (0..3).map(|_| working.next_accepted(WAIT).expect("a delivery").header("webhook-id").to_owned()).collect();
    assert_eq!(recovered, ids[3..], "the dropped ones, in order");
    emptied(&server, &subscriber, webhook_id);
}

/// Waits until the endpoint's queue is empty: a receiver has an event before its attempt is
/// recorded, so the queue empties just after the last arrival.
fn emptied(server: &TestServer, subscriber: &Subscriber, webhook_id: i64) {
    let deadline = Instant::now() + WAIT;
    loop {
        let queue = endpoint(server, subscriber, webhook_id)["queue"].clone();
        if queue["queueLength"] == 0 {
            return;
        }
        assert!(Instant::now() < deadline, "the queue did not empty: {queue}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An endpoint takes 10 test sends a minute; the 11th is 429 with `Retry-After`, and another
/// endpoint is not held back by it.
#[test]
fn test_sends_are_limited() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::start();
    let (webhook_id, _) = add_receiver(&server, &subscriber, &receiver, &["webhook.test"]);
    for _ in 0..10 {
        queued_test(&server, &subscriber, webhook_id);
    }
    let response =
        subscriber.auth(server.post(&format!("/webhooks/{webhook_id}/test"), &json!({}))).send().expect("answered");
    let retry_after: u64 = response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse().ok())
        .expect("Retry-After");
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    let (status, body) = crate::helpers::read(response);
    assert_error(status, &body, 429, "rate_limited");
    let other = WebhookReceiver::start();
    let (other_id, _) = add_receiver(&server, &subscriber, &other, &["webhook.test"]);
    queued_test(&server, &subscriber, other_id);
    let delivered: Vec<Delivery> = (0..10).map(|_| receiver.next_accepted(WAIT).expect("each test event")).collect();
    assert_eq!(delivered.len(), 10);
    assert!(receiver.next(Duration::from_millis(300)).is_none(), "the refused one was never queued");
}

/// CPU seconds the process has used (user and system).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process's stat");
    // Fields after the command name (which may hold spaces) are space-separated; utime and
    // stime are the 14th and 15th of the line.
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).expect("a stat line");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    ticks / 100.0
}

/// Median time of `count` location writes of `subscriber`.
fn write_median(server: &TestServer, subscriber: &Subscriber, label: &str, count: usize) -> Duration {
    let mut times: Vec<Duration> = (0..count)
        .map(|n| {
            let started = Instant::now();
            create_location(server, subscriber, &format!("{label} {n}"));
            started.elapsed()
        })
        .collect();
    times.sort();
    times[count / 2]
}

/// One account with 20 endpoints whose heads wait an hour for their retry (10 of them then
/// disabled) and 200 events queued for each (4,000 deliveries stuck): the idle service spends
/// next to no CPU on them, and another tenant's writes are not slowed by them.
#[test]
fn many_stuck_deliveries_cost_nothing_while_nothing_is_due() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let other = server.subscriber();
    enroll_merchant(&server, &other, "Quiet Corner Shop");
    let quiet_before = write_median(&server, &other, "Before", 15);

    let stuck = server.subscriber();
    enroll_merchant(&server, &stuck, "Stuck Hooks Ltd");
    let stalling = WebhookReceiver::answering(Answers {
        status: Some(503),
        retry_after: Some("3600".to_owned()),
        ..Answers::default()
    });
    let endpoints: Vec<i64> = (0..20)
        .map(|n| endpoint_at(&server, &stuck, &stalling, &n.to_string(), &["merchant.location.created"]))
        .collect();
    create_location(&server, &stuck, "Head");
    assert_eq!(arrivals(&stalling, Duration::from_millis(1500)).len(), 20, "each head attempted once");
    for n in 0..200 {
        create_location(&server, &stuck, &format!("Stuck {n}"));
    }
    for webhook_id in &endpoints[10..] {
        let (status, body) = send(stuck.auth(
            server.http.patch(server.url(&format!("/webhooks/{webhook_id}"))).json(&json!({ "enabled": false })),
        ));
        assert_eq!(status, 200, "{body}");
    }
    let queue = &endpoint(&server, &stuck, endpoints[0])["queue"];
    assert_eq!(queue["queueLength"], 201, "{queue}");

    std::thread::sleep(Duration::from_millis(500));
    let (cpu_before, idle_started) = (cpu_seconds(server.pid()), Instant::now());
    std::thread::sleep(Duration::from_secs(3));
    let share = (cpu_seconds(server.pid()) - cpu_before) / idle_started.elapsed().as_secs_f64();
    assert!(share < 0.1, "the idle service used {:.0}% of a core beside 4,000 stuck deliveries", share * 100.0);
    let quiet_after = write_median(&server, &other, "After", 15);
    assert!(
        quiet_after <= quiet_before * 3 + Duration::from_millis(25),
        "another tenant's write: {quiet_before:?} before, {quiet_after:?} beside the stuck deliveries"
    );
    assert!(stalling.next(Duration::ZERO).is_none(), "nothing was attempted while nothing was due");
}

/// Two instances on PostgreSQL. The first is killed (SIGKILL) while its receiver holds the
/// endpoint's first event; the second sends that event again within 10 s, with the same
/// `webhook-id`, then the next one, in order.
#[test]
fn a_killed_instances_delivery_is_taken_over_within_seconds_in_order() {
    if postgres_admin().is_none() {
        eprintln!("two instances need PostgreSQL: run under tests/support/with-postgres.sh");
        return;
    }
    let first = TestServer::spawn_with(&[LOCAL_RECEIVERS]);
    let subscriber = first.subscriber();
    // The first request is held 60 s (the attempt's 15 s run out first); later ones answer at once.
    let receiver = WebhookReceiver::answering(Answers {
        delay: Duration::from_secs(60),
        slow_first: Some(1),
        ..Answers::default()
    });
    let (webhook_id, _) = add_receiver(&first, &subscriber, &receiver, &["webhook.test"]);
    let head = queued_test(&first, &subscriber, webhook_id);
    let next = queued_test(&first, &subscriber, webhook_id);
    let cut_off = receiver.next(WAIT).expect("the first instance's attempt");
    assert_eq!(cut_off.header("webhook-id"), head);
    let second = first.another_instance(&[LOCAL_RECEIVERS]);
    let _database = first.kill_hard();
    let killed = Instant::now();
    let again = receiver.next(WAIT).expect("the other instance's attempt");
    let taken_over = killed.elapsed();
    assert_eq!(again.header("webhook-id"), head, "the same event, with the same webhook-id");
    assert!(taken_over < Duration::from_secs(10), "taken over after {taken_over:?}");
    let then = receiver.next_accepted(WAIT).expect("the next event");
    assert_eq!(then.header("webhook-id"), next, "in order");
    emptied(&second, &subscriber, webhook_id);
}

/// Every line the delivery worker and its attempts log names its task (JSON lines with a
/// `task` field), delivered and failed attempts alike.
#[test]
fn delivery_log_lines_name_their_task() {
    let server = TestServer::spawn_with(&[LOCAL_RECEIVERS, "--log-format", "json", "--webhook-retry-unit-ms", "10"]);
    let subscriber = server.subscriber();
    let receiver = WebhookReceiver::failing_first(1);
    let (webhook_id, _) = add_receiver(&server, &subscriber, &receiver, &["webhook.test"]);
    queued_test(&server, &subscriber, webhook_id);
    assert_eq!(receiver.next(WAIT).expect("a failed attempt").answered, 500);
    receiver.next_accepted(WAIT).expect("the retry, delivered");
    let deadline = Instant::now() + WAIT;
    let lines = loop {
        let log = server.log();
        let lines: Vec<Value> = log.lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
        let attempts = lines.iter().filter(|line| line["message"] == "webhook delivery").count();
        if attempts >= 2 || Instant::now() > deadline {
            break lines;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let delivery_lines: Vec<&Value> = lines
        .iter()
        .filter(|line| line["message"].as_str().is_some_and(|message| message.contains("webhook")))
        .collect();
    assert!(delivery_lines.iter().filter(|line| line["message"] == "webhook delivery").count() >= 2, "{lines:?}");
    for line in delivery_lines {
        assert!(
            line["task"].is_string() || line["request_id"].is_string(),
            "a webhook line with neither task nor request: {line}"
        );
    }
}
