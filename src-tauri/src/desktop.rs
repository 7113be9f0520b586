//! What makes the dashboard a desktop app rather than a page in a window: one instance (a second
//! start hands its link to the running window and exits), `subscriber-data://` links, the
//! window's size and place kept, and notifications while the window is in the background. The
//! rules (which links, which notices) live in `subscriber_dashboard::{links, notices}`.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use subscriber_dashboard::Dashboard;
use subscriber_dashboard::links;
use subscriber_dashboard::notices::Notice;
use tauri::ipc::Channel;
use tauri::plugin::TauriPlugin;
use tauri::{AppHandle, Manager, Runtime, WebviewWindow, WindowEvent};
use tauri_plugin_deep_link::DeepLinkExt;
use tauri_plugin_notification::NotificationExt;
use tauri_plugin_window_state::{AppHandleExt, StateFlags};

/// The window the app has.
pub const MAIN_WINDOW: &str = "main";
/// How often the notices are looked for while the window is in the background.
const NOTICE_LOOK: Duration = Duration::from_secs(3);
/// A move or resize is saved once the window has stayed put this long (a drag sends many).
const PLACE_SETTLES: Duration = Duration::from_millis(400);
/// What the window-state plugin keeps: where the window is and how big, maximized or not.
const KEPT: StateFlags = StateFlags::SIZE.union(StateFlags::POSITION).union(StateFlags::MAXIMIZED);

/// The screens asked for from outside the page (a link, a notification): handed to the page
/// once it listens, kept until then (a link that started the app arrives before the page).
#[derive(Default)]
pub struct Navigation {
    pending: Mutex<Option<String>>,
    page: Mutex<Option<Channel<String>>>,
}

impl Navigation {
    /// Opens `route` in the window, brought to the front.
    pub fn open<R: Runtime>(&self, app: &AppHandle<R>, route: String) {
        bring_to_front(app);
        let page = self.page.lock();
        if page.as_ref().is_none_or(|channel| channel.send(route.clone()).is_err()) {
            *self.pending.lock() = Some(route);
        }
    }

    /// The page listens from now on; a screen asked for meanwhile is handed over at once.
    pub fn listen(&self, channel: Channel<String>) {
        if let Some(route) = self.pending.lock().take() {
            let _ = channel.send(route);
        }
        *self.page.lock() = Some(channel);
    }
}

/// Shows the window, un-minimized and focused: a second start, a link or a notification asked.
pub fn bring_to_front<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(MAIN_WINDOW) {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// A `subscriber-data://` link: the screen it names, or a warning for one the app does not know.
fn open_link<R: Runtime>(app: &AppHandle<R>, url: &str) {
    match links::route_of_link(url) {
        Some(route) => app.state::<Navigation>().open(app, route),
        None => tracing::warn!("a link the app does not open was ignored"),
    }
}

/// The single-instance plugin: registered first, so a second start forwards its arguments
/// (a link) to the running app and exits 0 before it sets anything up.
pub fn single_instance<R: Runtime>() -> TauriPlugin<R> {
    tauri_plugin_single_instance::init(|app, _arguments, _directory| bring_to_front(app))
}

/// The window-state plugin, keeping its file beside the settings when a data folder is given
/// (the tests give each run its own).
pub fn window_state<R: Runtime>() -> TauriPlugin<R> {
    let mut builder = tauri_plugin_window_state::Builder::new().with_state_flags(KEPT);
    if let Some(dir) = std::env::var_os("SUBSCRIBER_DASHBOARD_DATA_DIR") {
        builder = builder.with_filename(PathBuf::from(dir).join("window-state.json").to_string_lossy());
    }
    builder.build()
}

/// Links: those the running app is asked to open, and the one it was started with.
pub fn follow_links<R: Runtime>(app: &AppHandle<R>) {
    let handle = app.clone();
    app.deep_link().on_open_url(move |event| {
        for url in event.urls() {
            open_link(&handle, url.as_str());
        }
    });
    if let Ok(Some(urls)) = app.deep_link().get_current() {
        for url in urls {
            open_link(app, url.as_str());
        }
    }
}

/// Saves the window's size and place once a resize or move settles, as well as at exit (the
/// plugin's own moment), so an app that is killed keeps them too. Every save runs on the main
/// thread (see below).
pub fn keep_window_place<R: Runtime>(window: &WebviewWindow<R>) {
    let changes = Arc::new(AtomicU64::new(0));
    let app = window.app_handle().clone();
    window.on_window_event(move |event| {
        if !matches!(event, WindowEvent::Resized(_) | WindowEvent::Moved(_)) {
            return;
        }
        let this_change = changes.fetch_add(1, Ordering::AcqRel) + 1;
        let (changes, app) = (Arc::clone(&changes), app.clone());
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(PLACE_SETTLES).await;
            if changes.load(Ordering::Acquire) != this_change {
                return;
            }
            // On the main thread: the plugin holds its lock while it asks the main thread for the
            // window's state, so a save from a worker deadlocks against its own save at exit
            // (which runs on the main thread and waits for that lock).
            let saver = app.clone();
            let queued = app.run_on_main_thread(move || {
                if let Err(error) = saver.save_window_state(KEPT) {
                    tracing::warn!(%error, "the window's place was not saved");
                }
            });
            if let Err(error) = queued {
                tracing::warn!(%error, "the window's place was not saved");
            }
        });
    });
}

/// The web view holds one app, not a browsing session: WebKit's "document viewer" cache model
/// keeps no back/forward pages and small memory caches (its default is a browser's), which
/// trims the web process's settled memory (see BENCHMARKS.md).
///
/// Where the machine has no GPU (no DRM render node), WebKit's GPU painting would run on Mesa's
/// software GL: its first paint makes a worker compile shaders with LLVM, and its buffers
/// weigh on the web process. The app's screens are text, tables and SVG, which WebKit paints
/// sooner on the CPU there, so it paints on the CPU (BENCHMARKS.md, "Desktop dashboard").
/// Without compositing, WebKitWebDriver's screenshot waits for a paint an idle page never makes;
/// the end-to-end kit keeps a pixel changing while it takes one (`tests/e2e/harness.mjs`).
pub fn lean_web_view<R: Runtime>(window: &WebviewWindow<R>) {
    #[cfg(target_os = "linux")]
    {
        use webkit2gtk::{CacheModel, HardwareAccelerationPolicy, SettingsExt, WebContextExt, WebViewExt};
        let software_gl = !has_render_node();
        let tuned = window.with_webview(move |webview| {
            let view = webview.inner();
            if let Some(context) = view.context() {
                context.set_cache_model(CacheModel::DocumentViewer);
            }
            if software_gl && let Some(settings) = WebViewExt::settings(&view) {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        });
        if let Err(error) = tuned {
            tracing::debug!(%error, "the web view's cache model and painting were left as they are");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = window;
}

/// Whether the machine has a GPU WebKit can paint with: a DRM render node (`/dev/dri/renderD*`).
#[cfg(target_os = "linux")]
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri")
        .is_ok_and(|entries| entries.flatten().any(|entry| entry.file_name().to_string_lossy().starts_with("renderD")))
}

/// Shows `notice`, its body escaped for servers that read markup; a click on it opens its
/// screen. Every notification the app shows is built here.
pub fn notify<R: Runtime>(app: &AppHandle<R>, notice: &Notice) {
    let shown = app
        .notification()
        .builder()
        .title(&notice.title)
        .body(notice.markup_body())
        .extra("route", &notice.route)
        .show();
    if let Err(error) = shown {
        tracing::warn!(%error, "a notification was not shown");
    }
}

/// Notifications: while the window is not focused, the dashboard is asked for news every few
/// seconds and each notice is shown; a click opens its screen. When the window loses focus the
/// app first notes where things stand, so what was on screen is not told again.
pub fn watch_notices<R: Runtime>(app: &AppHandle<R>, dashboard: Arc<Dashboard>) {
    let handle = app.clone();
    let _ = app.notification().on_action(move |performed| {
        let route = performed
            .notification()
            .and_then(|notification| notification.extra().get("route"))
            .and_then(|route| route.as_str())
            .filter(|route| links::known_route(route));
        if let Some(route) = route {
            handle.state::<Navigation>().open(&handle, route.to_owned());
        }
    });
    let Some(window) = app.get_webview_window(MAIN_WINDOW) else { return };
    let wake = Arc::new(tokio::sync::Notify::new());
    let woken = Arc::clone(&wake);
    window.on_window_event(move |event| {
        if let WindowEvent::Focused(false) = event {
            woken.notify_one();
        }
    });
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let mut looking = false;
        loop {
            tokio::select! {
                () = tokio::time::sleep(NOTICE_LOOK) => {}
                () = wake.notified() => {}
            }
            if window.is_focused().unwrap_or(true) {
                looking = false;
                continue;
            }
            if !looking {
                dashboard.restart_notices().await;
            }
            match dashboard.notices().await {
                Ok(notices) => {
                    looking = true;
                    for notice in &notices {
                        notify(&app, notice);
                    }
                }
                Err(error) => tracing::debug!(code = %error.code, "no notices: {}", error.message),
            }
        }
    });
}
