// Shared by every test module; not each module uses every helper.
#![allow(dead_code)]

//! Starts the real server binary on 127.0.0.1:0 with a temporary database and speaks raw JSON
//! to it. The database is a SQLite file, or, when `SUBSCRIBER_TEST_POSTGRES` holds a superuser
//! address (`tests/support/with-postgres.sh` sets it), a fresh PostgreSQL database per server.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::blocking::{Client, RequestBuilder, Response};
use serde_json::{Value, json};
pub use subscriber_testkit::{BlockingBrowser, Page, TEST_PAN, TEST_PANS, card_json};

/// The suite's webhook receivers (`WebhookReceiver`) listen on 127.0.0.1: a sandbox delivers
/// there only when started with this flag (as the dashboard's embedded one is).
pub const LOCAL_RECEIVERS: &str = "--webhooks-allow-private";

pub struct TestServer {
    pub base_url: String,
    /// The SQLite file, or the `postgres://` address (see [`TestServer::on_postgres`]).
    pub database: PathBuf,
    child: Child,
    log: Arc<Mutex<String>>,
    _dir: tempfile::TempDir,
    pub http: Client,
}

impl TestServer {
    /// A sandbox server with default flags (and a small directory, to start fast).
    pub fn spawn() -> Self {
        Self::spawn_with(&[])
    }

    /// A server with extra flags, e.g. `["--environment", "expansion"]`.
    pub fn spawn_with(args: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let database = fresh_database(dir.path());
        Self::spawn_on(dir, database, "127.0.0.1:0", args)
    }

    /// Whether this server's database is PostgreSQL (not a file the test can read).
    pub fn on_postgres(&self) -> bool {
        is_postgres(&self.database)
    }

    /// A second instance of the service on this one's database (and key file).
    pub fn another_instance(&self, args: &[&str]) -> Self {
        Self::spawn_on(tempfile::tempdir().expect("temporary directory"), self.database.clone(), "127.0.0.1:0", args)
    }

    pub fn spawn_on(dir: tempfile::TempDir, database: PathBuf, listen: &str, args: &[&str]) -> Self {
        Self::spawn_until(dir, database, listen, args, "listening on http://")
    }

    /// A sandbox server with extra flags and environment variables (`HTTP_PROXY`, …).
    pub fn spawn_with_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let database = fresh_database(dir.path());
        Self::spawn_process(&[], dir, database, "127.0.0.1:0", args, env, "listening on http://")
    }

    /// The server started through `wrapper` (a command that runs the one it is given, such
    /// as `unshare … sh -c '…; exec "$@"'`), on `database`.
    pub fn spawn_wrapped(wrapper: &[&str], dir: tempfile::TempDir, database: PathBuf, args: &[&str]) -> Self {
        Self::spawn_process(wrapper, dir, database, "127.0.0.1:0", args, &[], "listening on http://")
    }

    /// The server's process id (the wrapper's, which became the server), to signal it or read
    /// what it costs from `/proc`.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts the server and returns once it logs `marker` followed by its address
    /// ("listening on http://" once it is ready).
    pub fn spawn_until(dir: tempfile::TempDir, database: PathBuf, listen: &str, args: &[&str], marker: &str) -> Self {
        Self::spawn_process(&[], dir, database, listen, args, &[], marker)
    }

    fn spawn_process(
        wrapper: &[&str],
        dir: tempfile::TempDir,
        database: PathBuf,
        listen: &str,
        args: &[&str],
        env: &[(&str, &str)],
        marker: &str,
    ) -> Self {
        let marker = marker.to_owned();
        let mut command = match wrapper.split_first() {
            Some((program, wrapper_args)) => {
                let mut command = Command::new(program);
                command.args(wrapper_args).arg(env!("CARGO_BIN_EXE_subscriber-server-under-test"));
                command
            }
            None => Command::new(env!("CARGO_BIN_EXE_subscriber-server-under-test")),
        };
        command
            .arg("--listen")
            .arg(listen)
            .arg("--database")
            .arg(&database)
            .args(postgres_keys(&database))
            .args(["--directory-size", "2000", "--simulate-rate", "0"])
            .args(args)
            .envs(env.iter().copied())
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("server starts");
        let log = Arc::new(Mutex::new(String::new()));
        let (address_tx, address_rx) = std::sync::mpsc::channel();
        for stream in [
            child.stdout.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child.stderr.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let log = Arc::clone(&log);
            let address_tx = address_tx.clone();
            let marker = marker.clone();
            // SUBSCRIBER_TEST_ECHO=1 shows the servers' logs as they come (with --nocapture).
            let echo = std::env::var_os("SUBSCRIBER_TEST_ECHO").is_some();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    if let Some(rest) = line.split(marker.as_str()).nth(1) {
                        // The address ends where a text or a JSON log line goes on.
                        let address = rest.split(['"', ' ', ',', '/']).next().unwrap_or_default().to_owned();
                        let _ = address_tx.send(address);
                    }
                    if echo {
                        eprintln!("server: {line}");
                    }
                    let mut log = log.lock().expect("log lock");
                    log.push_str(&line);
                    log.push('\n');
                }
            });
        }
        let address = address_rx
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_else(|_| panic!("server did not start; log:\n{}", log.lock().expect("log lock")));
        let http = Client::builder().timeout(Duration::from_secs(60)).build().expect("http client");
        Self { base_url: format!("http://{address}"), database, child, log, _dir: dir, http }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// Everything the server has logged so far.
    pub fn log(&self) -> String {
        self.log.lock().expect("log lock").clone()
    }

    /// Stops the server with SIGTERM and waits for it, returning the database directory.
    pub fn stop(mut self) -> (tempfile::TempDir, PathBuf) {
        terminate(&mut self.child);
        let dir = std::mem::replace(&mut self._dir, tempfile::tempdir().expect("temporary directory"));
        (dir, self.database.clone())
    }

    /// Stops the server with SIGTERM and returns everything it logged, its last lines included.
    pub fn stop_and_log(mut self) -> String {
        terminate(&mut self.child);
        // The reader threads pass on what the pipes still hold.
        std::thread::sleep(Duration::from_millis(300));
        self.log()
    }

    /// Kills the server with SIGKILL, as a crash would, returning the database directory.
    pub fn kill_hard(mut self) -> (tempfile::TempDir, PathBuf) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let dir = std::mem::replace(&mut self._dir, tempfile::tempdir().expect("temporary directory"));
        (dir, self.database.clone())
    }

    pub fn get(&self, path: &str) -> RequestBuilder {
        self.http.get(self.url(path))
    }

    pub fn post(&self, path: &str, body: &Value) -> RequestBuilder {
        self.http.post(self.url(path)).json(body)
    }

    /// Signs up a fresh subscriber and logs in.
    pub fn subscriber(&self) -> Subscriber {
        let email = format!("dev-{}@example.com", uuid::Uuid::new_v4().simple());
        let (status, body) = send(self.post("/subscriber/signup", &json!({ "email": email })));
        assert_eq!(status, 201, "signup: {body}");
        let secret = body["secret"].as_str().expect("secret").to_owned();
        let (status, body) = send(self.post("/subscriber/login", &json!({ "email": email, "api_key": secret })));
        assert_eq!(status, 200, "login: {body}");
        Subscriber { email, secret, client_id: String::new(), token: body["token"].as_str().expect("token").to_owned() }
    }

    /// Enrolls a sandbox test card for the subscriber; returns its cardId.
    pub fn enroll_card(&self, subscriber: &Subscriber, pan: &str) -> i64 {
        let (status, body) = send(subscriber.auth(self.post("/card", &card_json(pan))));
        assert_eq!(status, 201, "enroll {pan}: {body}\nserver log:\n{}", self.log());
        body["cardId"].as_i64().expect("cardId")
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        terminate(&mut self.child);
    }
}

fn terminate(child: &mut Child) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

pub struct Subscriber {
    pub email: String,
    pub secret: String,
    pub client_id: String,
    pub token: String,
}

impl Subscriber {
    pub fn auth(&self, request: RequestBuilder) -> RequestBuilder {
        request.bearer_auth(&self.token)
    }
}

/// Sends and returns (status, JSON body); panics when the body is not JSON.
/// `DELETE path` as the subscriber.
pub fn delete(server: &TestServer, subscriber: &Subscriber, path: &str) -> (u16, Value) {
    send(subscriber.auth(server.http.delete(server.url(path))))
}

pub fn send(request: RequestBuilder) -> (u16, Value) {
    let response = request.send().expect("request sent");
    read(response)
}

pub fn read(response: Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let has_request_id = response.headers().contains_key("x-request-id");
    let text = response.text().expect("body read");
    let body: Value =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("status {status}: body is not JSON: {text:?}"));
    assert!(has_request_id, "every response carries X-Request-Id");
    (status, body)
}

/// The lines of a JSON log (`--log-format json`) after start-up that say neither which request
/// (`request_id`) nor which task (`task`) they belong to.
pub fn unattributed_lines(log: &str) -> Vec<String> {
    log.lines()
        .skip_while(|line| !line.contains("listening on http://"))
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .filter(|line| {
            serde_json::from_str::<Value>(line).map_or(true, |entry| {
                entry.get("request_id").is_none_or(Value::is_null) && entry.get("task").is_none_or(Value::is_null)
            })
        })
        .map(str::to_owned)
        .collect()
}

/// Asserts the contract's error shape and returns the body.
pub fn assert_error(status: u16, body: &Value, expected_status: u16, expected_code: &str) {
    assert_eq!(status, expected_status, "status; body: {body}");
    assert_eq!(body["code"], expected_code, "code; body: {body}");
    assert!(body["error"].as_str().is_some_and(|message| !message.is_empty()), "error message; body: {body}");
    assert!(body["requestId"].as_str().is_some_and(|id| !id.is_empty()), "requestId; body: {body}");
}

/// The address of a hosted page's "Return to …" link (`id="return-link"`), as a browser reads it.
pub fn return_link(body: &str) -> Option<String> {
    let marker = "id=\"return-link\" href=\"";
    let start = body.find(marker)? + marker.len();
    let end = body[start..].find('"')? + start;
    Some(body[start..end].replace("&amp;", "&"))
}

/// Asserts the headers every hosted page carries.
pub fn assert_secure_page_headers(page: &Page) {
    assert!(page.header("content-type").starts_with("text/html"), "{}", page.header("content-type"));
    let policy = page.header("content-security-policy");
    for directive in ["default-src 'none'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"] {
        assert!(policy.contains(directive), "CSP lacks {directive}: {policy}");
    }
    assert!(!policy.contains("unsafe-inline") && !policy.contains("*"), "CSP allows too much: {policy}");
    assert_eq!(page.header("x-frame-options"), "DENY");
    assert_eq!(page.header("cache-control"), "no-store");
    assert_eq!(page.header("referrer-policy"), "no-referrer");
    assert_eq!(page.header("x-content-type-options"), "nosniff");
    assert!(!page.body.contains("<script"), "the hosted pages run no script");
    // The one link that may leave the service: back to the subscriber's registered return URL.
    let loaded = page.body.replace("id=\"return-link\" href=\"http", "");
    assert!(!loaded.contains("src=\"http") && !loaded.contains("href=\"http"), "no third-party assets");
}

/// Runs the server on `database` with `extra` flags, expecting it to refuse to start; returns
/// what it said.
pub fn refused_start(database: &std::path::Path, extra: &[&str]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_subscriber-server-under-test"))
        .args(["--listen", "127.0.0.1:0", "--directory-size", "2000", "--database"])
        .arg(database)
        .args(if extra.contains(&"--keys") { Vec::new() } else { postgres_keys(database) })
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            assert!(!status.success(), "the server must refuse to start");
            break;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server started where it must refuse");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().expect("output");
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// The PostgreSQL superuser address the suite runs on, if it runs on PostgreSQL.
pub fn postgres_admin() -> Option<String> {
    std::env::var("SUBSCRIBER_TEST_POSTGRES").ok().filter(|url| !url.is_empty())
}

/// Runs `sql` through `psql` on the database at `url` (the test cluster's own client).
pub fn psql(url: &str, sql: &str) -> String {
    let output = Command::new("psql")
        .args(["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        .output()
        .expect("psql runs");
    assert!(output.status.success(), "psql {sql}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn is_postgres(database: &std::path::Path) -> bool {
    database.to_str().is_some_and(|text| text.starts_with("postgres://"))
}

/// A new SQLite file in `dir`, or a new PostgreSQL database: reached through a PgBouncer in
/// session mode when `SUBSCRIBER_TEST_PGBOUNCER=session` (one for the whole test process).
pub fn fresh_database(dir: &std::path::Path) -> PathBuf {
    let Some(admin) = postgres_admin() else { return dir.join("service.sqlite3") };
    let name = format!("t_{}", uuid::Uuid::new_v4().simple());
    psql(&admin, &format!("CREATE DATABASE {name}"));
    let (server, _) = admin.rsplit_once('/').expect("an address with a database");
    let direct = format!("{server}/{name}");
    match std::env::var("SUBSCRIBER_TEST_PGBOUNCER").as_deref() {
        Ok("session") => {
            static BOUNCER: std::sync::OnceLock<subscriber_testkit::PgBouncer> = std::sync::OnceLock::new();
            let bouncer = BOUNCER.get_or_init(|| {
                subscriber_testkit::PgBouncer::start(&admin, subscriber_testkit::PoolMode::Session)
                    .expect("pgbouncer starts (make test-postgres installs it)")
            });
            PathBuf::from(bouncer.url(&direct))
        }
        _ => PathBuf::from(direct),
    }
}

/// On PostgreSQL the key file cannot sit beside the database: one per database, shared by
/// every instance and restart of it.
pub fn postgres_keys(database: &std::path::Path) -> Vec<String> {
    if !is_postgres(database) {
        return Vec::new();
    }
    let name = database.to_string_lossy().rsplit('/').next().unwrap_or_default().to_owned();
    let dir = std::env::temp_dir().join("subscriber-test-keys");
    std::fs::create_dir_all(&dir).expect("a folder for key files");
    vec!["--keys".to_owned(), dir.join(format!("{name}.keys")).display().to_string()]
}

/// The server's key file: beside a SQLite file, or the one made for a PostgreSQL database.
pub fn key_file_of(database: &std::path::Path) -> PathBuf {
    match postgres_keys(database).last() {
        Some(path) => PathBuf::from(path),
        None => {
            let mut name = database.as_os_str().to_owned();
            name.push(".keys");
            PathBuf::from(name)
        }
    }
}

/// Every file of the server's database (the file, its WAL and shared memory) as bytes; on
/// PostgreSQL, the database's whole content as `pg_dump` writes it, with every `bytea` in hex.
pub fn database_files(database: &std::path::Path) -> Vec<(PathBuf, Vec<u8>)> {
    if is_postgres(database) {
        let dump = Command::new("pg_dump")
            .args(["--data-only", "--no-owner", "-d"])
            .arg(database)
            .output()
            .expect("pg_dump runs");
        assert!(dump.status.success(), "pg_dump: {}", String::from_utf8_lossy(&dump.stderr));
        return vec![(PathBuf::from("pg_dump"), dump.stdout)];
    }
    let mut files = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let path = PathBuf::from(format!("{}{suffix}", database.display()));
        if let Ok(bytes) = std::fs::read(&path) {
            files.push((path, bytes));
        }
    }
    assert!(!files.is_empty(), "the database file exists");
    files
}

/// Asserts `secret` appears in no database file and not in the server log.
pub fn assert_nowhere_stored(server: &TestServer, secret: &str) {
    // A PostgreSQL dump shows bytes as hex.
    let hex = hex::encode(secret.as_bytes());
    for (path, bytes) in database_files(&server.database) {
        for needle in [secret.as_bytes(), hex.as_bytes()] {
            let found = bytes.windows(needle.len()).any(|window| window == needle);
            assert!(!found, "{secret:?} found in {}", path.display());
        }
    }
    assert!(!server.log().contains(secret), "{secret:?} found in the server log");
}
