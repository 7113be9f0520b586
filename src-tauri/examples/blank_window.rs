//! A blank Tauri window from the same workspace, the baseline of `make bench-dashboard`: the
//! same Tauri, WebKit and build profile as the dashboard, with an empty page that reports its
//! first paint the way the dashboard reports its first usable screen.

/// Prints the line the benchmark waits for (with `SUBSCRIBER_DASHBOARD_TIMING=1`).
#[tauri::command]
fn app_ready() {
    if std::env::var_os("SUBSCRIBER_DASHBOARD_TIMING").is_some() {
        println!("subscriber-dashboard: ready");
    }
}

fn main() {
    let context = tauri::generate_context!("examples/blank-window/tauri.conf.json");
    if let Err(error) = tauri::Builder::default().invoke_handler(tauri::generate_handler![app_ready]).run(context) {
        eprintln!("the blank window could not start: {error}");
        std::process::exit(1);
    }
}
