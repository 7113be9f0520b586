/// The app's own commands: each gets an `allow-<command>` permission, and only those listed in
/// `capabilities/` can be called by the window.
const COMMANDS: &[&str] = &[
    "status",
    "connect",
    "sign_up",
    "log_in",
    "sign_out",
    "forget_remembered",
    "reveal_secret",
    "rotate_secret",
    "list_cards",
    "test_cards",
    "enroll_card",
    "simulate_transaction",
    "load_transactions",
    "watch_transactions",
    "stop_watch",
    "export_transactions_csv",
    "app_ready",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("the Tauri build step succeeds");
}
