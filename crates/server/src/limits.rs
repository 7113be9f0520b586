//! Rate limits: requests per subscriber (per client address before login), and failed
//! logins per e-mail and client address. The failed-login limits refuse only wrong secrets
//! (the login checks the secret first), so a guesser is refused without locking the real
//! subscriber out. The buckets and windows live here; the layer that applies
//! them to requests is `http::limit`.
//!
//! Request buckets are per process (each instance paces what reaches it). Failed logins are
//! counted in the database: a restart does not forgive a guesser, and instances sharing a
//! database count the same failures.

use std::collections::HashSet;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;
use subscriber_protocol::{SubscriberId, UnixMillis};

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use parking_lot::Mutex;

use crate::config::Config;
use crate::error::ApiError;
use crate::keys::Keys;
use crate::storage::Store;
use crate::storage::login_failures::Scope;

const LOGIN_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Failed logins one client address may make, over all e-mail addresses, per window, as a
/// multiple of `--login-attempts`: guessing with random e-mails from one address is refused.
const ADDRESS_ATTEMPTS_FACTOR: usize = 3;
/// Failed logins one e-mail address may take, from all client addresses, per window, as a
/// multiple of `--login-attempts`: one account guessed from many addresses is refused.
const EMAIL_ATTEMPTS_FACTOR: usize = 5;

/// Whose bucket a request takes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Caller {
    Subscriber(SubscriberId),
    Address(IpAddr),
}

type RequestLimiter = RateLimiter<Caller, DefaultKeyedStateStore<Caller>, DefaultClock, StateInformationMiddleware>;

/// Failed logins allowed per window: by (e-mail, address), by address, by e-mail.
struct FailedLogins {
    db: Store,
    keys: Arc<Keys>,
    pair: usize,
    address: usize,
    email: usize,
}

impl FailedLogins {
    /// The subjects a login of `email` from `address` is counted against, each with its limit.
    fn subjects(&self, email: &str, address: IpAddr) -> [(Scope, Vec<u8>, usize); 3] {
        let address = address.to_string();
        let digest = |scope: Scope, parts: &[&[u8]]| {
            let mut all: Vec<&[u8]> = vec![b"failed login v1", scope.as_str().as_bytes()];
            all.extend_from_slice(parts);
            self.keys.idempotency_hash(&all)
        };
        [
            (Scope::Pair, digest(Scope::Pair, &[email.as_bytes(), b"\0", address.as_bytes()]), self.pair),
            (Scope::Address, digest(Scope::Address, &[address.as_bytes()]), self.address),
            (Scope::Email, digest(Scope::Email, &[email.as_bytes()]), self.email),
        ]
    }
}

pub struct Limits {
    requests: Option<(RequestLimiter, u32)>,
    /// Signup and login per client address: each costs a secret hash.
    credential_requests: Option<(RequestLimiter, u32)>,
    failed_logins: FailedLogins,
    /// Secret hashes (argon2id, 19 MiB each) run on a few threads of their own. On the blocking
    /// pool, 64 logins at a time spread the hashes over dozens of threads, each of which kept
    /// its 19 MiB in its allocator arena: the memory grew to 2.7 GiB and stayed, and no login
    /// finished sooner on two cores. The queue is bounded: when it is full, a request is
    /// answered 503 at once instead of waiting behind work that cannot finish in time.
    hashing: std::sync::mpsc::SyncSender<HashJob>,
    /// Callers with a hash queued or running ([`Limits::hash_one_at_a_time`]): one caller's
    /// flood holds one place in the queue, not all of them.
    hashing_for: Arc<Mutex<HashSet<Caller>>>,
}

/// A caller's one place in the hash queue, given back when dropped: with the job that ran or
/// was skipped, or at once when the job never got into the queue.
struct HashTurn {
    caller: Caller,
    holders: Arc<Mutex<HashSet<Caller>>>,
}

impl HashTurn {
    fn take(holders: &Arc<Mutex<HashSet<Caller>>>, caller: Caller) -> Option<Self> {
        holders.lock().insert(caller.clone()).then(|| Self { caller, holders: Arc::clone(holders) })
    }
}

impl Drop for HashTurn {
    fn drop(&mut self) {
        self.holders.lock().remove(&self.caller);
    }
}

type HashJob = Box<dyn FnOnce() + Send>;

/// `count` threads taking hash jobs from one queue of `capacity`, for the life of the process.
fn hashing_threads(count: usize, capacity: usize) -> std::sync::mpsc::SyncSender<HashJob> {
    let (sender, receiver) = std::sync::mpsc::sync_channel::<HashJob>(capacity);
    let receiver = std::sync::Arc::new(Mutex::new(receiver));
    for index in 0..count {
        let receiver = receiver.clone();
        let spawned = std::thread::Builder::new().name(format!("secret-hash-{index}")).spawn(move || {
            loop {
                let job = receiver.lock().recv();
                match job {
                    Ok(job) => job(),
                    Err(_) => return,
                }
            }
        });
        if let Err(error) = spawned {
            tracing::error!(error = %error, "cannot start a secret-hashing thread");
        }
    }
    sender
}

fn limiter(rate: u32, burst: u32) -> Option<(RequestLimiter, u32)> {
    NonZeroU32::new(rate).map(|rate| {
        let burst = NonZeroU32::new(burst.max(rate.get())).unwrap_or(rate);
        (
            RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst))
                .with_middleware::<StateInformationMiddleware>(),
            burst.get(),
        )
    })
}

impl Limits {
    pub fn new(config: &Config, db: Store, keys: Arc<Keys>) -> Self {
        let attempts = usize::try_from(config.login_attempts).unwrap_or(usize::MAX);
        let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        Self {
            requests: limiter(config.rate_limit, config.rate_limit_burst),
            credential_requests: limiter(config.credential_rate_limit, config.credential_rate_limit_burst),
            failed_logins: FailedLogins {
                db,
                keys,
                pair: attempts.max(1),
                address: attempts.saturating_mul(ADDRESS_ATTEMPTS_FACTOR).max(1),
                email: attempts.saturating_mul(EMAIL_ATTEMPTS_FACTOR).max(1),
            },
            hashing: hashing_threads(threads, usize::try_from(config.hash_queue_size).unwrap_or(usize::MAX).max(1)),
            hashing_for: Arc::default(),
        }
    }

    /// Runs a secret hash (or check) on the hashing threads: 503 at once when the queue is
    /// full, and nothing at all when the request is dropped (its client gone) before a thread
    /// takes the job.
    pub async fn hash<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
        let (done, result) = tokio::sync::oneshot::channel();
        crate::metrics::record_hash_queue(1.0);
        let job: HashJob = Box::new(move || {
            if done.is_closed() {
                return;
            }
            let _ = done.send(work());
            crate::metrics::record_hash_queue(-1.0);
        });
        match self.hashing.try_send(job) {
            Ok(()) => {}
            Err(std::sync::mpsc::TrySendError::Full(_)) => {
                return Err(ApiError::Unavailable {
                    message: "the service is busy checking other secrets: retry shortly".to_owned(),
                    retry_after_seconds: 1,
                });
            }
            Err(std::sync::mpsc::TrySendError::Disconnected(_)) => {
                return Err(ApiError::internal(anyhow::anyhow!("the hashing threads stopped")));
            }
        }
        result.await.map_err(|_| ApiError::internal(anyhow::anyhow!("a secret hash was dropped")))
    }

    /// [`Limits::hash`] for `caller`, which may have one hash queued or running at a time: a
    /// second while the first waits or runs is 429 at once. The caller's place is held until
    /// its job leaves the queue (run, or skipped because its client left), so neither
    /// concurrent requests nor requests dropped right after they are sent hold more.
    pub async fn hash_one_at_a_time<T: Send + 'static>(
        &self,
        caller: Caller,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let turn = HashTurn::take(&self.hashing_for, caller).ok_or(ApiError::RateLimited { retry_after_seconds: 1 })?;
        self.hash(move || {
            let _turn = turn;
            work()
        })
        .await
    }

    /// `Err` with the seconds to wait when this e-mail has failed too often from this address,
    /// this address too often with any e-mail, or this e-mail too often from anywhere. Asked
    /// only once a secret has proved wrong: the right one is never refused.
    pub async fn check_login(&self, email: &str, address: IpAddr) -> Result<(), ApiError> {
        self.check_failures(email, address, &[Scope::Pair, Scope::Address, Scope::Email]).await
    }

    /// `Err` with the seconds to wait when this e-mail has failed too often from this address,
    /// or this address too often with any e-mail: the windows of the caller's own address,
    /// asked before a secret is hashed where a caller is known (rotation), so a flood of wrong
    /// secrets from one address costs no hash. Not the e-mail's window from everywhere: others
    /// failing with an e-mail must not stop its subscriber from rotating.
    pub async fn check_failures_from(&self, email: &str, address: IpAddr) -> Result<(), ApiError> {
        self.check_failures(email, address, &[Scope::Pair, Scope::Address]).await
    }

    async fn check_failures(&self, email: &str, address: IpAddr, scopes: &[Scope]) -> Result<(), ApiError> {
        let subjects: Vec<_> = self
            .failed_logins
            .subjects(email, address)
            .into_iter()
            .filter(|(scope, _, _)| scopes.contains(scope))
            .collect();
        // Failures are compared across processes, so in Unix time, not `Instant`.
        let now = UnixMillis::now();
        let since = now.minus(LOGIN_WINDOW);
        // Only the newest `limit` failures of a subject decide: the wait runs from the oldest of them.
        let oldest_deciding = self.failed_logins.db.login_failures_deciding(subjects, since).await?;
        match oldest_deciding {
            None => Ok(()),
            Some(at) => {
                let wait = at.plus(LOGIN_WINDOW).since(now);
                Err(ApiError::RateLimited {
                    retry_after_seconds: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).div_ceil(1000).max(1),
                })
            }
        }
    }

    pub async fn record_failed_login(&self, email: &str, address: IpAddr) {
        let subjects = self.failed_logins.subjects(email, address).map(|(scope, subject, _)| (scope, subject));
        let at = UnixMillis::now();
        let recorded = self.failed_logins.db.record_login_failures(subjects.to_vec(), at).await;
        if let Err(error) = recorded {
            tracing::warn!(error = %error, "a failed login was not recorded");
        }
    }

    /// After a successful login: the pair starts afresh. The address and e-mail counts stay,
    /// so a guesser cannot clear them by logging in to an account of its own.
    pub async fn forget_failed_logins(&self, email: &str, address: IpAddr) -> Result<(), ApiError> {
        let [(scope, subject, _), ..] = self.failed_logins.subjects(email, address);
        self.failed_logins.db.forget_login_failures(scope, subject).await?;
        Ok(())
    }
}

/// Forgets failed logins older than the window (the background task's work).
pub async fn purge_failed_logins(db: &Store) -> crate::storage::StorageResult<u64> {
    let before = UnixMillis::now().minus(LOGIN_WINDOW);
    db.purge_login_failures(before).await
}

/// What the request buckets say of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// No request limit is configured.
    Unlimited,
    Admitted {
        burst: u32,
        remaining: u32,
    },
    Refused {
        burst: u32,
        retry_after_seconds: u64,
    },
}

/// Whether a request costs a secret hash, and so takes from the credential buckets too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretCost {
    None,
    /// Signup and login: the client address's credential bucket.
    Anonymous,
    /// Secret rotation: the client address's credential bucket and the subscriber's.
    OfCaller,
}

impl Limits {
    /// Takes one request from `caller`'s bucket, and first from the credential buckets when
    /// the request costs a secret hash: the client address's, and for a known caller's hash
    /// (rotation) the caller's too, so neither many addresses nor many tokens of one
    /// subscriber hash faster than the credential rate.
    pub fn admit(&self, caller: &Caller, address: IpAddr, cost: SecretCost) -> Admission {
        if let Some((limiter, burst)) = &self.credential_requests {
            let mut buckets = Vec::with_capacity(2);
            if cost != SecretCost::None {
                buckets.push(Caller::Address(address));
            }
            if cost == SecretCost::OfCaller && matches!(caller, Caller::Subscriber(_)) {
                buckets.push(caller.clone());
            }
            for bucket in &buckets {
                if let Err(retry_after_seconds) = take(limiter, bucket) {
                    return Admission::Refused { burst: *burst, retry_after_seconds };
                }
            }
        }
        let Some((limiter, burst)) = &self.requests else {
            return Admission::Unlimited;
        };
        match take(limiter, caller) {
            Ok(remaining) => Admission::Admitted { burst: *burst, remaining },
            Err(retry_after_seconds) => Admission::Refused { burst: *burst, retry_after_seconds },
        }
    }
}

/// One request from `caller`'s bucket: the capacity left, or the seconds to wait.
fn take(limiter: &RequestLimiter, caller: &Caller) -> Result<u32, u64> {
    match limiter.check_key(caller) {
        Ok(snapshot) => Ok(snapshot.remaining_burst_capacity()),
        Err(not_until) => {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            Err((wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1))
        }
    }
}
