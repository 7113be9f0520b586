//! The Tauri adapter of the dashboard: turns the operations of `subscriber-dashboard` into
//! commands, and nothing more. Every rule lives in that crate, where it is tested without a
//! window.

mod commands;
mod desktop;
#[cfg(target_os = "linux")]
mod session_bus;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use subscriber_dashboard::Dashboard;
use subscriber_dashboard::app::DashboardOptions;
use subscriber_dashboard::sandbox::SandboxOptions;
use subscriber_dashboard::secrets::{Keyring, Secrets, StoreKind};
use tauri::{Manager, RunEvent, Runtime};

/// How often the session is checked for a token to renew.
const RENEWAL_CHECK: Duration = Duration::from_secs(5);

/// The dashboard's builder, generic over the runtime so it can be driven by Tauri's mock
/// runtime as well as by the real window.
pub fn builder<R: Runtime>() -> tauri::Builder<R> {
    tauri::Builder::<R>::new()
        // First: a second start hands its link to the running app and exits before anything
        // else starts (see `desktop`).
        .plugin(desktop::single_instance())
        .plugin(tauri_plugin_deep_link::init())
        .plugin(desktop::window_state())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_dialog::init())
        .manage(commands::Watches::default())
        .manage(desktop::Navigation::default())
        .setup(|app| {
            let data_dir = match std::env::var_os("SUBSCRIBER_DASHBOARD_DATA_DIR") {
                Some(dir) => PathBuf::from(dir),
                None => app.path().app_data_dir()?,
            };
            let keyring = Keyring::register_in_background(StoreKind::from_env());
            let said = keyring.clone();
            tauri::async_runtime::spawn(async move {
                if let Some(problem) = said.status().await.problem {
                    tracing::warn!(problem, "the OS keyring is not available: secrets will not be remembered");
                }
            });
            let dashboard = Arc::new(Dashboard::new(DashboardOptions {
                data_dir,
                secrets: Secrets::default(),
                keyring,
                sandbox: SandboxOptions::from_env(),
            }));
            // The embedded sandbox starts when the page connects, two frames after its first
            // screen (see App.svelte): starting it here would compete with the window and the
            // page for the CPU while they load (two cores), delaying the first usable screen.
            // SIGTERM (a logout, `kill`) ends the app as closing its window does: the sandbox
            // stops cleanly and the window's place is saved.
            #[cfg(unix)]
            {
                let handle = app.handle().clone();
                tauri::async_runtime::spawn(async move {
                    use tokio::signal::unix::{SignalKind, signal};
                    if let Ok(mut terminate) = signal(SignalKind::terminate()) {
                        terminate.recv().await;
                        handle.exit(0);
                    }
                });
            }
            let renewer = Arc::clone(&dashboard);
            tauri::async_runtime::spawn(async move {
                loop {
                    tokio::time::sleep(RENEWAL_CHECK).await;
                    if let Err(error) = renewer.renew_if_due().await {
                        tracing::warn!(code = %error.code, "token not renewed: {}", error.message);
                    }
                }
            });
            if let Some(window) = app.get_webview_window(desktop::MAIN_WINDOW) {
                desktop::keep_window_place(&window);
                desktop::lean_web_view(&window);
            }
            desktop::watch_notices(app.handle(), Arc::clone(&dashboard));
            desktop::follow_links(app.handle());
            app.manage(dashboard);
            Ok(())
        })
        // Every command of the table (`subscriber_dashboard::for_each_command!`).
        .invoke_handler(commands::handler())
}

/// Runs the dashboard until its window closes, then stops the embedded sandbox cleanly.
pub fn run() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SUBSCRIBER_DASHBOARD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    #[cfg(target_os = "linux")]
    session_bus::ensure();
    let app = match builder::<tauri::Wry>().build(tauri::generate_context!()) {
        Ok(app) => app,
        Err(error) => {
            eprintln!("the dashboard could not start: {error}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        if let RunEvent::Exit = event {
            if let Some(dashboard) = handle.try_state::<Arc<Dashboard>>() {
                tauri::async_runtime::block_on(dashboard.shut_down());
            }
            #[cfg(target_os = "linux")]
            session_bus::end_owned();
        }
    });
}
