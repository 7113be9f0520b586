//! One instance needs a D-Bus session bus: the single-instance plugin finds the running app on
//! it. A desktop session always has one; a bare X server (a kiosk, a test display) may not, and
//! then a second start would open a second app. In that case the app runs a private session bus
//! for this user at a known socket (the first start) or joins it (any later start), by starting
//! itself again with `DBUS_SESSION_BUS_ADDRESS` set: the environment of a running process is
//! only read, never changed.

use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const ADDRESS: &str = "DBUS_SESSION_BUS_ADDRESS";
/// Set by the start that runs the private bus: its daemon's pid, ended when the app exits.
const OWNED: &str = "SUBSCRIBER_DASHBOARD_PRIVATE_BUS";

/// Whether a session bus is there to use (named, or at the desktop's usual socket).
fn session_bus_present() -> bool {
    std::env::var_os(ADDRESS).is_some()
        || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|runtime| Path::new(&runtime).join("bus").exists())
}

/// The private bus's socket: in the user's runtime folder, else the temporary one, by user id.
fn socket_path() -> PathBuf {
    let uid = std::fs::metadata("/proc/self").map(|own| own.uid()).unwrap_or_default();
    let folder = std::env::var_os("XDG_RUNTIME_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    folder.join(format!("subscriber-dashboard-{uid}.bus"))
}

/// Starts this program again on the bus at `address` (returns only when that fails).
fn restart_on(address: &str, owned: Option<u32>) {
    let Ok(program) = std::env::current_exe() else { return };
    let mut command = Command::new(program);
    command.args(std::env::args_os().skip(1)).env(ADDRESS, address);
    if let Some(pid) = owned {
        command.env(OWNED, pid.to_string());
    }
    let error = command.exec();
    tracing::warn!(%error, "could not start again on the private session bus");
}

/// Makes sure a session bus is there before the app starts (see the module's comment).
pub fn ensure() {
    if session_bus_present() {
        return;
    }
    let socket = socket_path();
    let address = format!("unix:path={}", socket.display());
    if UnixStream::connect(&socket).is_ok() {
        restart_on(&address, None);
        return;
    }
    // A socket left by a bus that is gone.
    let _ = std::fs::remove_file(&socket);
    let daemon = Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--nopidfile", &format!("--address={address}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(daemon) = daemon else {
        tracing::warn!("no D-Bus session and no dbus-daemon: a second start opens a second app");
        return;
    };
    for _ in 0..100 {
        if UnixStream::connect(&socket).is_ok() {
            restart_on(&address, Some(daemon.id()));
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    tracing::warn!("the private session bus did not start");
}

/// At exit: ends the private bus this start runs, if any.
pub fn end_owned() {
    if let Some(pid) = std::env::var_os(OWNED).and_then(|pid| pid.into_string().ok()) {
        let _ = Command::new("kill").arg(pid).status();
        let _ = std::fs::remove_file(socket_path());
    }
}
