// Shared by the keyring test binaries; not each uses every helper.
#![allow(dead_code)]

//! A dashboard over a real embedded sandbox, in a temporary data folder, with a real OS keyring.

pub mod browser;

use std::path::Path;

use subscriber_dashboard::Dashboard;
use subscriber_dashboard::app::DashboardOptions;
use subscriber_dashboard::sandbox::SandboxOptions;
use subscriber_dashboard::secrets::{KeyringStatus, Secrets};
use subscriber_dashboard::views::ConnectionTarget;
use subscriber_protocol::{EnrollCardRequest, Pan};

pub struct TestApp {
    pub dashboard: Dashboard,
    pub dir: tempfile::TempDir,
    pub secrets: Secrets,
}

/// Keyring entries of one test run, so tests never see each other's (or a user's) secrets.
pub fn test_secrets() -> Secrets {
    Secrets::new(&format!("subscriber-dashboard-test-{}", uuid::Uuid::new_v4()))
}

pub fn small_sandbox() -> SandboxOptions {
    SandboxOptions { simulate_rate: 0, directory_size: Some(300), token_validity_seconds: 18_000 }
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
    let dashboard = Dashboard::new(DashboardOptions {
        data_dir: dir.path().to_path_buf(),
        secrets: secrets.clone(),
        keyring: keyring.clone(),
        sandbox,
    });
    dashboard.connect(ConnectionTarget::Sandbox).await.expect("the embedded sandbox starts and answers");
    TestApp { dashboard, dir, secrets }
}

pub fn unique_email() -> String {
    format!("dev-{}@example.com", uuid::Uuid::new_v4().simple())
}

pub fn test_card(pan: &str) -> EnrollCardRequest {
    EnrollCardRequest {
        pan: Pan::new(pan),
        first_name: "Ada".to_owned(),
        last_name: "Lovelace".to_owned(),
        exp_month: 12,
        exp_year: 2031,
        country_code: "USA".to_owned(),
    }
}

/// Every byte of every file under `dir`, for "the secret is in no file" checks.
pub fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("readable folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(bytes) = std::fs::read(&path)
                && bytes.windows(needle.len()).any(|window| window == needle.as_bytes())
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}
