//! One command per operation of [`Dashboard`]; each returns `Result<T, CommandError>`, which
//! the UI receives as `{code, message, requestId, status, details}`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use subscriber_dashboard::error::codes;
use subscriber_dashboard::views::{
    AppStatus, ConnectionInfo, ConnectionTarget, ExportResult, LiveEvent, LoginInput, RotateResult, SessionInfo,
    SignupResult, TransactionBatch,
};
use subscriber_dashboard::{CommandError, Dashboard};
use subscriber_protocol::{CardRecord, CardTransaction, EnrollCardRequest, EnrollCardResponse, SandboxCard};
use tauri::async_runtime::JoinHandle;
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::DialogExt;

type Shared<'a> = State<'a, Arc<Dashboard>>;
type Outcome<T> = Result<T, CommandError>;

/// The live streams the window watches, by id, so it can stop them.
#[derive(Default)]
pub struct Watches {
    next: AtomicU32,
    running: parking_lot::Mutex<HashMap<u32, JoinHandle<()>>>,
}

#[tauri::command]
pub async fn status(dashboard: Shared<'_>) -> Outcome<AppStatus> {
    Ok(dashboard.status().await)
}

#[tauri::command]
pub async fn connect(dashboard: Shared<'_>, target: ConnectionTarget) -> Outcome<ConnectionInfo> {
    dashboard.connect(target).await
}

#[tauri::command]
pub async fn sign_up(dashboard: Shared<'_>, email: String) -> Outcome<SignupResult> {
    dashboard.sign_up(&email).await
}

#[tauri::command]
pub async fn log_in(dashboard: Shared<'_>, input: LoginInput) -> Outcome<SessionInfo> {
    dashboard.log_in(input).await
}

#[tauri::command]
pub async fn sign_out(dashboard: Shared<'_>, watches: State<'_, Watches>) -> Outcome<()> {
    for (_, watch) in watches.running.lock().drain() {
        watch.abort();
    }
    dashboard.sign_out().await;
    Ok(())
}

#[tauri::command]
pub async fn forget_remembered(dashboard: Shared<'_>) -> Outcome<()> {
    dashboard.forget_remembered().await
}

#[tauri::command]
pub async fn reveal_secret(dashboard: Shared<'_>) -> Outcome<String> {
    dashboard.reveal_secret().await
}

#[tauri::command]
pub async fn rotate_secret(dashboard: Shared<'_>) -> Outcome<RotateResult> {
    dashboard.rotate_secret().await
}

#[tauri::command]
pub async fn list_cards(dashboard: Shared<'_>) -> Outcome<Vec<CardRecord>> {
    dashboard.cards().await
}

#[tauri::command]
pub async fn test_cards(dashboard: Shared<'_>) -> Outcome<Vec<SandboxCard>> {
    dashboard.test_cards().await
}

#[tauri::command]
pub async fn enroll_card(dashboard: Shared<'_>, card: EnrollCardRequest) -> Outcome<EnrollCardResponse> {
    dashboard.enroll_card(card).await
}

#[tauri::command]
pub async fn simulate_transaction(dashboard: Shared<'_>, card_id: i64) -> Outcome<CardTransaction> {
    dashboard.simulate_transaction(card_id).await
}

#[tauri::command]
pub async fn load_transactions(
    dashboard: Shared<'_>,
    card_id: i64,
    on_batch: Channel<TransactionBatch>,
) -> Outcome<u32> {
    dashboard.load_transactions(card_id, |batch| on_batch.send(batch).is_ok()).await
}

#[tauri::command]
pub async fn watch_transactions(
    dashboard: Shared<'_>,
    watches: State<'_, Watches>,
    card_id: i64,
    on_event: Channel<LiveEvent>,
) -> Outcome<u32> {
    let dashboard = Arc::clone(&dashboard);
    let id = watches.next.fetch_add(1, Ordering::Relaxed);
    let task = tauri::async_runtime::spawn(async move {
        subscriber_dashboard::live::watch(&dashboard, card_id, |event| on_event.send(event).is_ok()).await;
    });
    watches.running.lock().insert(id, task);
    Ok(id)
}

#[tauri::command]
pub async fn stop_watch(watches: State<'_, Watches>, watch_id: u32) -> Outcome<()> {
    if let Some(task) = watches.running.lock().remove(&watch_id) {
        task.abort();
    }
    Ok(())
}

/// Asks where to save (the system's save dialog, or `SUBSCRIBER_DASHBOARD_EXPORT_DIR` when set,
/// for unattended runs), then writes the rows; `None` when the user cancels.
#[tauri::command]
pub async fn export_transactions_csv<R: Runtime>(
    app: AppHandle<R>,
    dashboard: Shared<'_>,
    card_id: i64,
    transaction_ids: Vec<i64>,
) -> Outcome<Option<ExportResult>> {
    let file_name = format!("card-{card_id}-transactions.csv");
    let path = match std::env::var_os("SUBSCRIBER_DASHBOARD_EXPORT_DIR") {
        Some(dir) => Some(PathBuf::from(dir).join(&file_name)),
        None => {
            let (chosen, answer) = tokio::sync::oneshot::channel();
            app.dialog().file().add_filter("CSV", &["csv"]).set_file_name(&file_name).save_file(move |path| {
                let _ = chosen.send(path);
            });
            let picked = answer.await.map_err(|_| CommandError::new(codes::CANCELLED, "the save dialog closed"))?;
            match picked {
                Some(path) => Some(path.into_path().map_err(|error| {
                    CommandError::new(codes::IO, format!("that location cannot be written: {error}"))
                })?),
                None => None,
            }
        }
    };
    match path {
        Some(path) => dashboard.export_csv(card_id, &transaction_ids, &path).map(Some),
        None => Ok(None),
    }
}

/// The first screen is usable. With `SUBSCRIBER_DASHBOARD_TIMING=1` this prints a line the
/// start-up benchmark waits for.
#[tauri::command]
pub fn app_ready() -> Outcome<()> {
    if std::env::var_os("SUBSCRIBER_DASHBOARD_TIMING").is_some() {
        println!("subscriber-dashboard: ready");
    }
    Ok(())
}
