//! The same remembered sign-in with the kernel keyring store (run inside `keyctl session -`,
//! as `make test-dashboard` does).

mod common;

use std::sync::LazyLock;

use common::{app, small_sandbox, test_secrets};
use subscriber_dashboard::secrets::{self, Account, KeyringStatus, StoreKind};
use subscriber_dashboard::views::LoginInput;
use subscriber_testkit::unique_email;

static KEYRING: LazyLock<KeyringStatus> = LazyLock::new(|| {
    let status = secrets::use_os_store(StoreKind::KernelKeyring);
    assert!(status.available, "the kernel keyring store is not available: {:?}", status.problem);
    status
});

#[test]
fn a_secret_round_trips_through_the_kernel_keyring() {
    LazyLock::force(&KEYRING);
    let secrets = test_secrets();
    let account = Account::new("sandbox-local", "kernel@example.com");
    secrets.save(&account, "sk_sandbox_kernel").expect("saved");
    assert_eq!(secrets.load(&account).expect("read").as_deref(), Some("sk_sandbox_kernel"));
    secrets.forget(&account).expect("forgotten");
    assert_eq!(secrets.load(&account).expect("readable"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_up_then_sign_in_with_the_secret_from_the_kernel_keyring() {
    let test = app(&KEYRING, small_sandbox()).await;
    let email = unique_email();
    let signup = test.dashboard.sign_up(&email).await.expect("signed up");
    assert!(signup.remembered, "{:?}", signup.keyring_problem);
    test.dashboard.sign_out().await;
    let session = test
        .dashboard
        .log_in(LoginInput { email, api_key: None, remember: true })
        .await
        .expect("signed in with the remembered secret");
    assert_eq!(session.client_id, signup.client_id);
    test.dashboard.shut_down().await;
}
