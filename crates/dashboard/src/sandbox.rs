//! The embedded sandbox: the real service, started inside the app on a free loopback port, its
//! SQLite file in the app's data folder so enrolled cards survive a restart. It answers the app
//! alone (`subscriber_server::config::LocalGuard`): requests that name it by its own address and
//! carry the secret of this launch, which only the app's own client sends; the hosted pages the
//! person opens in their browser need their one-time link instead.

use std::path::{Path, PathBuf};

use subscriber_server::config::LocalGuard;
use subscriber_server::{Config, RunningServer};

use crate::error::{CommandError, codes};

/// How the embedded sandbox runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxOptions {
    /// Simulated point-of-sale purchases per minute, so the live view has something to show.
    pub simulate_rate: u32,
    /// Merchants generated into the directory on first start (`None`: the service's default).
    pub directory_size: Option<u32>,
    pub token_validity_seconds: u64,
    /// The secret of this launch every request but the hosted pages' must carry.
    pub guard: LocalGuard,
}

impl Default for SandboxOptions {
    fn default() -> Self {
        Self { simulate_rate: 6, directory_size: None, token_validity_seconds: 18_000, guard: LocalGuard::random() }
    }
}

impl SandboxOptions {
    /// The defaults, overridden by `SUBSCRIBER_DASHBOARD_SIMULATE_RATE`,
    /// `SUBSCRIBER_DASHBOARD_DIRECTORY_SIZE` and `SUBSCRIBER_DASHBOARD_TOKEN_VALIDITY_SECONDS`
    /// (tests and benchmarks use them), and `SUBSCRIBER_DASHBOARD_SANDBOX_SECRET`: the end-to-end
    /// tests, which act beside the app as other programs of the same user would (a point of
    /// sale, the person's browser), choose the secret of each launch themselves; otherwise the
    /// app makes a random one at each launch.
    pub fn from_env() -> Self {
        let number = |name: &str| std::env::var(name).ok().and_then(|text| text.trim().parse::<u64>().ok());
        let defaults = Self::default();
        Self {
            simulate_rate: number("SUBSCRIBER_DASHBOARD_SIMULATE_RATE")
                .and_then(|rate| u32::try_from(rate).ok())
                .unwrap_or(defaults.simulate_rate),
            directory_size: number("SUBSCRIBER_DASHBOARD_DIRECTORY_SIZE").and_then(|size| u32::try_from(size).ok()),
            token_validity_seconds: number("SUBSCRIBER_DASHBOARD_TOKEN_VALIDITY_SECONDS")
                .filter(|seconds| *seconds > 0)
                .unwrap_or(defaults.token_validity_seconds),
            guard: std::env::var("SUBSCRIBER_DASHBOARD_SANDBOX_SECRET").map_or(defaults.guard, LocalGuard::new),
        }
    }
}

pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join("sandbox.sqlite3")
}

/// The data folder, readable by this user only: it holds the sandbox's database and key file
/// (which the service itself creates with mode 0600).
fn make_private_folder(data_dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(data_dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Starts the sandbox service on 127.0.0.1 with a random port.
pub async fn start(data_dir: &Path, options: &SandboxOptions) -> Result<RunningServer, CommandError> {
    make_private_folder(data_dir).map_err(|error| {
        CommandError::new(
            codes::SANDBOX_FAILED,
            format!("the data folder {} cannot be made: {error}", data_dir.display()),
        )
    })?;
    let defaults = Config::sandbox(database_path(data_dir));
    let config = Config {
        simulate_rate: options.simulate_rate,
        directory_size: options.directory_size.unwrap_or(defaults.directory_size),
        token_validity_seconds: options.token_validity_seconds,
        // The developer's own receivers run on this machine (or its network): the embedded
        // sandbox delivers webhooks there, which the packaged service never does by default.
        webhooks_allow_private: true,
        local_guard: Some(options.guard.clone()),
        ..defaults
    };
    let server = subscriber_server::start(config)
        .await
        .map_err(|error| CommandError::new(codes::SANDBOX_FAILED, format!("the sandbox did not start: {error:#}")))?;
    tracing::info!(address = %server.address, "embedded sandbox started");
    Ok(server)
}
