// Shared by the keyring test binaries; not each uses every helper.
#![allow(dead_code)]

//! A dashboard over a real embedded sandbox, in a temporary data folder, with a real OS keyring.

use subscriber_dashboard::Dashboard;
use subscriber_dashboard::app::DashboardOptions;
use subscriber_dashboard::sandbox::SandboxOptions;
use subscriber_dashboard::secrets::{KeyringStatus, Secrets};
use subscriber_dashboard::views::ConnectionTarget;
use subscriber_server::config::LocalGuard;

pub struct TestApp {
    pub dashboard: Dashboard,
    pub dir: tempfile::TempDir,
    pub secrets: Secrets,
    /// The embedded sandbox's guard: what the app sends, for the test's own calls beside it.
    pub guard: LocalGuard,
}

/// Keyring entries of one test run, so tests never see each other's (or a user's) secrets.
pub fn test_secrets() -> Secrets {
    Secrets::new(&format!("subscriber-dashboard-test-{}", uuid::Uuid::new_v4()))
}

pub fn small_sandbox() -> SandboxOptions {
    SandboxOptions {
        simulate_rate: 0,
        directory_size: Some(300),
        token_validity_seconds: 18_000,
        guard: LocalGuard::random(),
    }
}

pub async fn app(keyring: &KeyringStatus, sandbox: SandboxOptions) -> TestApp {
    let dir = tempfile::tempdir().expect("temporary data folder");
    app_in(dir, keyring, sandbox, test_secrets()).await
}

pub async fn app_in(
    dir: tempfile::TempDir,
    keyring: &KeyringStatus,
    sandbox: SandboxOptions,
    secrets: Secrets,
) -> TestApp {
    let guard = sandbox.guard.clone();
    let dashboard = Dashboard::new(DashboardOptions {
        data_dir: dir.path().to_path_buf(),
        secrets: secrets.clone(),
        keyring: keyring.clone().into(),
        sandbox,
    });
    dashboard.connect(ConnectionTarget::Sandbox).await.expect("the embedded sandbox starts and answers");
    TestApp { dashboard, dir, secrets, guard }
}
