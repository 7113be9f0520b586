//! One instance needs a D-Bus session bus: the single-instance plugin finds the running app on
//! it. A desktop session always has one; a bare X server (a kiosk, a test display) may not, and
//! then a second start would open a second app. In that case the app runs a private session bus
//! for this user (the first start) or joins it (any later start), by starting itself again with
//! `DBUS_SESSION_BUS_ADDRESS` set: the environment of a running process is only read, never
//! changed.
//!
//! The bus's socket is `subscriber-dashboard/bus` in a folder only this user can use (the
//! runtime folder, else the cache folder: `subscriber_dashboard::private_folder`), checked before
//! anything is joined or started there: whoever answers on that socket gets the keyring's calls
//! (the API secret), the notifications and the single-instance name. A folder or socket that is
//! not the user's, or open to others, is refused, and the app runs without a private bus.

use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use subscriber_dashboard::private_folder::{self, Refusal};

const ADDRESS: &str = "DBUS_SESSION_BUS_ADDRESS";
/// Set by the start that runs the private bus: its daemon's pid, ended when the app exits.
const OWNED: &str = "SUBSCRIBER_DASHBOARD_PRIVATE_BUS";
const FOLDER: &str = "subscriber-dashboard";

/// Whether a session bus is there to use (named, or at the desktop's usual socket).
fn session_bus_present() -> bool {
    std::env::var_os(ADDRESS).is_some()
        || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|runtime| PathBuf::from(runtime).join("bus").exists())
}

/// The private bus's socket, in its checked folder (made when missing); `Ok(false)` beside it
/// when no socket is there yet.
fn checked_socket() -> Result<(PathBuf, bool), Refusal> {
    let uid = private_folder::current_uid()?;
    let folder = private_folder::user_folder(FOLDER)?;
    private_folder::make(&folder, uid)?;
    let socket = folder.join("bus");
    let present = private_folder::check_socket(&socket, uid)?;
    Ok((socket, present))
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
    let (socket, present) = match checked_socket() {
        Ok(checked) => checked,
        Err(refusal) => {
            tracing::warn!("no private session bus ({refusal}): a second start opens a second app");
            return;
        }
    };
    let address = format!("unix:path={}", socket.display());
    if present {
        if UnixStream::connect(&socket).is_ok() {
            restart_on(&address, None);
            return;
        }
        // The user's own socket, left by a bus that is gone.
        let _ = std::fs::remove_file(&socket);
    }
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
        if let Ok(folder) = private_folder::user_folder(FOLDER) {
            let _ = std::fs::remove_file(folder.join("bus"));
        }
    }
}
