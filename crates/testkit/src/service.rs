//! The real service, in-process on a free port with a temporary SQLite database, and clients
//! signed up on it.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use subscriber_client::protocol::SignupResponse;
use subscriber_client::{Client, routes};
use subscriber_server::{Config, RunningServer};

pub struct TestService {
    server: Option<RunningServer>,
    config: Config,
    pub address: SocketAddr,
    _dir: tempfile::TempDir,
}

impl TestService {
    /// A sandbox service with a small directory and no simulated traffic.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut config = Config::sandbox(dir.path().join("db.sqlite3"));
        config.directory_size = 2000;
        config.simulate_rate = 0;
        // The kit's webhook receivers (`WebhookReceiver`) listen on 127.0.0.1: the sandbox sends
        // there only with `--webhooks-allow-private`, as the dashboard's embedded one does.
        config.webhooks_allow_private = true;
        adjust(&mut config);
        let server = subscriber_server::start(config.clone()).await.expect("the service starts");
        let address = server.address;
        // A restart must come back on the same address, where the clients are pointed.
        config.listen = address;
        config.public_url = Some(server.base_url());
        Self { server: Some(server), config, address, _dir: dir }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    fn server(&self) -> &RunningServer {
        self.server.as_ref().expect("the service is running")
    }

    /// Every (method, template) the service's router serves.
    pub fn served_routes(&self) -> BTreeSet<(String, String)> {
        subscriber_server::api::routes(self.server().state.clone())
            .paths()
            .iter()
            .map(|(method, path)| ((*method).to_owned(), (*path).to_owned()))
            .collect()
    }

    /// Whether the merchant directory is in memory (an in-process service loads it on first use).
    pub fn directory_loaded(&self) -> bool {
        self.server().state.directory.if_loaded().is_some()
    }

    pub fn serves(&self, route: &routes::Route) -> bool {
        let wanted = routes::normalize_template(route.template);
        self.served_routes()
            .iter()
            .any(|(method, template)| method == route.method && routes::normalize_template(template) == wanted)
    }

    /// Stops the service (dropping open connections) and starts it again on the same
    /// database and address.
    pub async fn restart(&mut self) {
        self.stop().await;
        self.start_again().await;
    }

    pub async fn stop(&mut self) {
        if let Some(server) = self.server.take() {
            // A graceful stop waits for open requests; a stream never finishes by itself.
            match tokio::time::timeout(Duration::from_secs(10), server.stop()).await {
                Ok(result) => result.expect("the service stops cleanly"),
                Err(_) => panic!("the service did not stop within 10 s (open event streams?)"),
            }
        }
    }

    pub async fn start_again(&mut self) {
        let mut last_error = None;
        // The port can take a moment to be free again.
        for _ in 0..50 {
            match subscriber_server::start(self.config.clone()).await {
                Ok(server) => {
                    self.server = Some(server);
                    return;
                }
                Err(error) => last_error = Some(error),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the service did not restart on {}: {last_error:?}", self.address);
    }

    /// A client without credentials (signup only).
    pub fn anonymous(&self) -> Client {
        Client::builder().base_url(self.base_url()).build().expect("client builds")
    }

    /// Signs up `email` and returns a client logged in as it, with the signup answer.
    pub async fn subscriber(&self, email: &str) -> (Client, SignupResponse) {
        let account = self.anonymous().signup(email).await.expect("signup succeeds");
        let client = Client::builder()
            .base_url(self.base_url())
            .credentials(&account.email, account.secret.as_str())
            .build()
            .expect("client builds");
        (client, account)
    }
}
