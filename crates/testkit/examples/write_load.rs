//! Write load for `make bench` (`bench/scale_bench.py`), and the delay forwarder it puts in
//! front of PostgreSQL. Prints one JSON object per measurement on standard output.
//!
//! ```text
//! write_load proxy UPSTREAM DELAY_MS          # forwards 127.0.0.1:<printed port> to UPSTREAM
//! write_load throughput SECONDS TENANTS BASE_URL...
//! write_load alone COUNT BASE_URL
//! write_load contended COUNT ENROLLERS BASE_URL...
//! ```
//! `throughput`: each tenant (spread over the base URLs) writes sales and locations, two at a
//! time, for SECONDS. `alone`: one tenant's sales, one after another. `contended`: the same
//! while ENROLLERS other tenants enroll cards and reset their sandbox as fast as they can.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subscriber_testkit::{DelayProxy, TEST_PANS};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

#[derive(Clone)]
struct Tenant {
    http: reqwest::Client,
    base: String,
    token: String,
    card_id: i64,
    location_id: i64,
}

async fn call(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    token: Option<&str>,
    body: &Value,
) -> Result<(u16, Value)> {
    let mut request = http.request(method, url).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await?;
    let status = response.status().as_u16();
    Ok((status, response.json().await.unwrap_or(Value::Null)))
}

impl Tenant {
    /// A subscriber with a card and a merchant location, on `base`.
    async fn new(http: reqwest::Client, base: String, name: String) -> Result<Self> {
        let (http, base) = (&http, base.as_str());
        let email = format!("{name}-{}@bench.example", uuid::Uuid::new_v4().simple());
        let (_, signup) =
            call(http, reqwest::Method::POST, &format!("{base}/subscriber/signup"), None, &json!({"email": email}))
                .await?;
        let secret = signup["secret"].as_str().ok_or("no secret")?.to_owned();
        let (_, login) = call(
            http,
            reqwest::Method::POST,
            &format!("{base}/subscriber/login"),
            None,
            &json!({"email": email, "api_key": secret}),
        )
        .await?;
        let token = login["token"].as_str().ok_or("no token")?.to_owned();
        let mut tenant = Self { http: http.clone(), base: base.to_owned(), token, card_id: 0, location_id: 0 };
        tenant.card_id = tenant.enroll(TEST_PANS[0]).await?.ok_or("no card")?;
        tenant
            .post("/merchant", &json!({"name": format!("Bench {name}"), "category": "5812", "countryCode": "USA"}))
            .await?;
        let (_, location) = tenant.post("/merchant/location", &location()).await?;
        tenant.location_id = location["locationId"].as_i64().ok_or("no location")?;
        Ok(tenant)
    }

    async fn post(&self, path: &str, body: &Value) -> Result<(u16, Value)> {
        call(&self.http, reqwest::Method::POST, &format!("{}{path}", self.base), Some(&self.token), body).await
    }

    async fn enroll(&self, pan: &str) -> Result<Option<i64>> {
        let card = json!({"pan": pan, "firstName": "Bench", "lastName": "Mark", "expMonth": 12, "expYear": 2031,
            "countryCode": "USA"});
        let (status, body) = self.post("/card", &card).await?;
        Ok((status == 201).then(|| body["cardId"].as_i64()).flatten())
    }

    /// One sale at the tenant's own location: its latency, and whether it was a 201.
    async fn sale(&self) -> Result<(Duration, bool)> {
        let started = Instant::now();
        let (status, _) = self
            .post("/sandbox/transactions", &json!({"cardId": self.card_id, "locationId": self.location_id}))
            .await?;
        Ok((started.elapsed(), status == 201))
    }
}

fn location() -> Value {
    json!({"location": {"countryCode": "USA", "street": "Market St", "streetNo": "1", "city": "San Francisco",
        "zip": "94103"}})
}

fn percentile(sorted: &[Duration], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

fn latencies(mut samples: Vec<Duration>) -> Value {
    samples.sort_unstable();
    json!({"count": samples.len(), "p50_ms": percentile(&samples, 0.5), "p99_ms": percentile(&samples, 0.99)})
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = reqwest::Client::builder().pool_max_idle_per_host(256).build()?;
    match args.first().map(String::as_str) {
        Some("proxy") => {
            let upstream = args.get(1).ok_or("proxy UPSTREAM DELAY_MS")?.parse()?;
            let delay: u64 = args.get(2).ok_or("proxy UPSTREAM DELAY_MS")?.parse()?;
            let proxy = DelayProxy::start(upstream, Duration::from_millis(delay))?;
            println!("{}", json!({"listening": proxy.address.to_string()}));
            tokio::signal::ctrl_c().await?;
        }
        Some("throughput") => {
            let seconds: u64 = args.get(1).ok_or("seconds")?.parse()?;
            let count: usize = args.get(2).ok_or("tenants")?.parse()?;
            let bases = args[3..].to_vec();
            let tenants = setup(&http, &bases, count, "writer").await?;
            let deadline = Instant::now() + Duration::from_secs(seconds);
            let started = Instant::now();
            let mut workers = tokio::task::JoinSet::new();
            for tenant in &tenants {
                for lane in 0..2 {
                    let tenant = tenant.clone();
                    workers.spawn(async move {
                        let (mut done, mut failed, mut samples) = (0_u64, 0_u64, Vec::new());
                        let mut turn = lane;
                        while Instant::now() < deadline {
                            let started = Instant::now();
                            let ok = if turn % 4 == 3 {
                                tenant
                                    .post("/merchant/location", &location())
                                    .await
                                    .is_ok_and(|(status, _)| status == 201)
                            } else {
                                tenant.sale().await.is_ok_and(|(_, ok)| ok)
                            };
                            samples.push(started.elapsed());
                            if ok {
                                done += 1
                            } else {
                                failed += 1
                            }
                            turn += 1;
                        }
                        (done, failed, samples)
                    });
                }
            }
            let (mut done, mut failed, mut samples) = (0, 0, Vec::new());
            while let Some(result) = workers.join_next().await {
                let (worker_done, worker_failed, worker_samples) = result?;
                done += worker_done;
                failed += worker_failed;
                samples.extend(worker_samples);
            }
            let elapsed = started.elapsed().as_secs_f64();
            #[allow(clippy::cast_precision_loss)]
            let rate = done as f64 / elapsed;
            println!(
                "{}",
                json!({"writes_per_second": rate, "writes": done, "failed": failed, "latency": latencies(samples)})
            );
        }
        Some("alone") => {
            let count: usize = args.get(1).ok_or("count")?.parse()?;
            let tenant = setup(&http, &args[2..3], 1, "alone").await?.remove(0);
            for _ in 0..20 {
                tenant.sale().await?;
            }
            let mut samples = Vec::with_capacity(count);
            let mut failed = 0;
            for _ in 0..count {
                let (took, ok) = tenant.sale().await?;
                samples.push(took);
                failed += u32::from(!ok);
            }
            println!("{}", json!({"sale": latencies(samples), "failed": failed}));
        }
        Some("contended") => {
            let count: usize = args.get(1).ok_or("count")?.parse()?;
            let enrollers: usize = args.get(2).ok_or("enrollers")?.parse()?;
            let bases = args[3..].to_vec();
            let buyer = setup(&http, &bases[..1], 1, "buyer").await?.remove(0);
            let others = setup(&http, &bases, enrollers, "enroller").await?;
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let mut busy = tokio::task::JoinSet::new();
            for (index, other) in others.into_iter().enumerate() {
                let stop = std::sync::Arc::clone(&stop);
                busy.spawn(async move {
                    let mut rounds = 0_u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        for pan in TEST_PANS.iter().skip(1 + index % 3).take(3) {
                            let _ = other.enroll(pan).await;
                        }
                        let _ = other.post("/sandbox/reset", &json!({})).await;
                        rounds += 1;
                    }
                    rounds
                });
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
            let mut samples = Vec::with_capacity(count);
            let mut failed = 0;
            for _ in 0..count {
                let (took, ok) = buyer.sale().await?;
                samples.push(took);
                failed += u32::from(!ok);
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            let mut rounds = 0;
            while let Some(result) = busy.join_next().await {
                rounds += result?;
            }
            println!("{}", json!({"sale": latencies(samples), "failed": failed, "enroll_reset_rounds": rounds}));
        }
        _ => return Err("write_load proxy|throughput|alone|contended ...".into()),
    }
    Ok(())
}

/// `count` tenants spread over `bases`, made eight at a time.
async fn setup(http: &reqwest::Client, bases: &[String], count: usize, name: &str) -> Result<Vec<Tenant>> {
    let mut made = Vec::with_capacity(count);
    for start in (0..count).step_by(8) {
        let batch = (start..count.min(start + 8))
            .map(|index| Tenant::new(http.clone(), bases[index % bases.len()].clone(), format!("{name}{index}")));
        for tenant in futures::future::join_all(batch).await {
            made.push(tenant?);
        }
    }
    Ok(made)
}
