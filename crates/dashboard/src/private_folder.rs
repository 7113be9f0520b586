//! A folder only this user can use, for a socket another local user must neither answer on nor
//! replace: the private D-Bus session bus the app runs on a desktop without one (see
//! `src-tauri/src/session_bus.rs`). It lives in the user's runtime folder (`$XDG_RUNTIME_DIR`,
//! the user's own and mode 0700 by its specification), else in the user's cache folder, never in
//! a shared one such as `/tmp`, where anyone could make the path first. Before anything in it is
//! used, the folder and what is in it are checked: a real folder (not a link), the user's,
//! closed to everyone else; the socket a socket, the user's.

use std::ffi::OsString;
use std::fs::{DirBuilder, Metadata};
use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Why a place is not used, in a sentence for the log.
pub type Refusal = String;

/// The user this process runs as (its effective user id, from `/proc/self/status`).
pub fn current_uid() -> Result<u32, Refusal> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|error| format!("the user id could not be read from /proc/self/status: {error}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .and_then(|effective| effective.parse().ok())
        .ok_or_else(|| "/proc/self/status names no effective user id".to_owned())
}

/// Where the folder `name` goes: in `$XDG_RUNTIME_DIR` when set, else in `$XDG_CACHE_HOME`, else
/// in `$HOME/.cache` (only absolute paths count, as the XDG specification says).
pub fn user_folder(name: &str) -> Result<PathBuf, Refusal> {
    user_folder_in(name, |variable| std::env::var_os(variable))
}

/// [`user_folder`] with the environment read through `variable`.
fn user_folder_in(name: &str, variable: impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, Refusal> {
    let absolute = |name: &str| variable(name).map(PathBuf::from).filter(|path| path.is_absolute());
    absolute("XDG_RUNTIME_DIR")
        .or_else(|| absolute("XDG_CACHE_HOME"))
        .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
        .map(|base| base.join(name))
        .ok_or_else(|| "none of XDG_RUNTIME_DIR, XDG_CACHE_HOME or HOME names a folder".to_owned())
}

/// Makes `folder` (mode 0700) when missing, in a parent that is made when missing too; then
/// checks both (see [`check_parent`] and [`check_folder`]). A folder that was already there is
/// used only if it passes the same checks: it is never loosened or taken over.
pub fn make(folder: &Path, uid: u32) -> Result<(), Refusal> {
    let parent = folder.parent().ok_or_else(|| format!("{} has no parent folder", folder.display()))?;
    std::fs::create_dir_all(parent).map_err(|error| format!("{} cannot be made: {error}", parent.display()))?;
    check_parent(parent, uid)?;
    match DirBuilder::new().mode(0o700).create(folder) {
        Ok(()) => {}
        Err(error) if error.kind() == ErrorKind::AlreadyExists => {}
        Err(error) => return Err(format!("{} cannot be made: {error}", folder.display())),
    }
    check_folder(folder, uid)
}

/// The parent may be a link (a cache folder on another disk), but must be the user's (or the
/// system's) and writable by no one else: otherwise another user could rename the folder in it
/// and put their own in its place.
pub fn check_parent(parent: &Path, uid: u32) -> Result<(), Refusal> {
    let metadata =
        std::fs::metadata(parent).map_err(|error| format!("{} cannot be read: {error}", parent.display()))?;
    if !metadata.is_dir() {
        return Err(format!("{} is not a folder", parent.display()));
    }
    if metadata.uid() != uid && metadata.uid() != 0 {
        return Err(format!("{} belongs to user {}, not to this user ({uid})", parent.display(), metadata.uid()));
    }
    if metadata.mode() & 0o022 != 0 {
        return Err(format!(
            "{} can be written by other users (mode {:o}): the private bus is not put there",
            parent.display(),
            metadata.mode() & 0o7777
        ));
    }
    Ok(())
}

/// The folder itself: a folder (not a link to one), the user's, mode 0700 or closer.
pub fn check_folder(folder: &Path, uid: u32) -> Result<(), Refusal> {
    let metadata = own_entry(folder, uid)?;
    if !metadata.is_dir() {
        return Err(format!("{} is not a folder (a link or a file is never followed here)", folder.display()));
    }
    if metadata.mode() & 0o077 != 0 {
        return Err(format!(
            "{} is open to other users (mode {:o}, 700 expected): remove it and start again",
            folder.display(),
            metadata.mode() & 0o7777
        ));
    }
    Ok(())
}

/// Whether a socket is at `path`, which must then be a socket of the user's (not a link, not a
/// file): `Ok(false)` when nothing is there.
pub fn check_socket(path: &Path, uid: u32) -> Result<bool, Refusal> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(false),
        Err(error) => return Err(format!("{} cannot be read: {error}", path.display())),
        Ok(_) => {}
    }
    let metadata = own_entry(path, uid)?;
    if !metadata.file_type().is_socket() {
        return Err(format!("{} is not a socket", path.display()));
    }
    Ok(true)
}

/// The entry at `path` itself (a link is not followed), which must be the user's.
fn own_entry(path: &Path, uid: u32) -> Result<Metadata, Refusal> {
    let metadata =
        std::fs::symlink_metadata(path).map_err(|error| format!("{} cannot be read: {error}", path.display()))?;
    if metadata.uid() != uid {
        return Err(format!("{} belongs to user {}, not to this user ({uid})", path.display(), metadata.uid()));
    }
    Ok(metadata)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::net::UnixListener;

    use super::*;

    fn uid() -> u32 {
        current_uid().expect("the user id is known")
    }

    fn set_mode(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("mode set");
    }

    /// Another user, when this test may make things theirs (it runs as root); `None` otherwise.
    fn other_user() -> Option<u32> {
        (uid() == 0).then_some(65_534)
    }

    #[test]
    fn the_user_is_the_one_that_owns_what_this_process_makes() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let made = dir.path().join("file");
        std::fs::write(&made, "x").expect("written");
        assert_eq!(std::fs::metadata(&made).expect("readable").uid(), uid());
    }

    #[test]
    fn a_missing_folder_is_made_closed_to_others_and_used() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let folder = dir.path().join("cache").join("subscriber-dashboard");
        make(&folder, uid()).expect("made");
        assert_eq!(std::fs::metadata(&folder).expect("made").mode() & 0o777, 0o700);
        make(&folder, uid()).expect("and used again as it is");
        assert_eq!(check_socket(&folder.join("bus"), uid()), Ok(false), "no socket yet");
        let _listener = UnixListener::bind(folder.join("bus")).expect("a socket");
        assert_eq!(check_socket(&folder.join("bus"), uid()), Ok(true));
    }

    #[test]
    fn a_folder_open_to_others_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let folder = dir.path().join("subscriber-dashboard");
        for mode in [0o777, 0o755, 0o750, 0o701] {
            std::fs::create_dir_all(&folder).expect("made first by someone");
            set_mode(&folder, mode);
            let refusal = make(&folder, uid()).expect_err("an open folder");
            assert!(refusal.contains("open to other users"), "{mode:o}: {refusal}");
            assert_eq!(std::fs::metadata(&folder).expect("still there").mode() & 0o777, mode, "not loosened or taken");
        }
    }

    #[test]
    fn a_link_in_place_of_the_folder_or_the_socket_is_refused() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let elsewhere = dir.path().join("elsewhere");
        DirBuilder::new().mode(0o700).create(&elsewhere).expect("a private folder elsewhere");
        let folder = dir.path().join("subscriber-dashboard");
        std::os::unix::fs::symlink(&elsewhere, &folder).expect("a link");
        assert!(make(&folder, uid()).expect_err("a link").contains("not a folder"));

        let folder = dir.path().join("real");
        make(&folder, uid()).expect("made");
        let socket_elsewhere = elsewhere.join("bus");
        let _listener = UnixListener::bind(&socket_elsewhere).expect("a socket elsewhere");
        std::os::unix::fs::symlink(&socket_elsewhere, folder.join("bus")).expect("a link to it");
        assert!(check_socket(&folder.join("bus"), uid()).expect_err("a link").contains("not a socket"));
        std::fs::remove_file(folder.join("bus")).expect("removed");
        std::fs::write(folder.join("bus"), "").expect("a plain file");
        assert!(check_socket(&folder.join("bus"), uid()).expect_err("a file").contains("not a socket"));
    }

    #[test]
    fn a_parent_others_can_write_is_refused() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).expect("made");
        // As /tmp is: anyone may add to it (sticky or not).
        set_mode(&shared, 0o1777);
        let refusal = make(&shared.join("subscriber-dashboard"), uid()).expect_err("a shared parent");
        assert!(refusal.contains("can be written by other users"), "{refusal}");
        assert!(!shared.join("subscriber-dashboard").exists(), "nothing made there");
    }

    #[test]
    fn what_another_user_made_first_is_refused() {
        let Some(other) = other_user() else {
            eprintln!("skipped: making files of another user needs root (the mode and link cases still ran)");
            return;
        };
        let dir = tempfile::tempdir().expect("a temporary folder");
        // Their folder, closed as it should be: still not this user's.
        let folder = dir.path().join("subscriber-dashboard");
        DirBuilder::new().mode(0o700).create(&folder).expect("made");
        std::os::unix::fs::chown(&folder, Some(other), Some(other)).expect("given away");
        assert!(make(&folder, uid()).expect_err("theirs").contains("belongs to user 65534"));
        // Their socket in the user's own folder.
        let folder = dir.path().join("mine");
        make(&folder, uid()).expect("made");
        let socket = folder.join("bus");
        let _listener = UnixListener::bind(&socket).expect("a socket");
        std::os::unix::fs::lchown(&socket, Some(other), Some(other)).expect("given away");
        assert!(check_socket(&socket, uid()).expect_err("theirs").contains("belongs to user 65534"));
        // A parent of theirs.
        let parent = dir.path().join("their-cache");
        DirBuilder::new().mode(0o755).create(&parent).expect("made");
        std::os::unix::fs::chown(&parent, Some(other), Some(other)).expect("given away");
        assert!(make(&parent.join("subscriber-dashboard"), uid()).expect_err("theirs").contains("belongs to user"));
    }

    #[test]
    fn the_folder_is_in_the_runtime_folder_else_in_the_cache_never_in_tmp() {
        let folder = |variables: &[(&str, &str)]| {
            let variables: Vec<(String, OsString)> =
                variables.iter().map(|(name, value)| ((*name).to_owned(), OsString::from(value))).collect();
            user_folder_in("subscriber-dashboard", |name| {
                variables.iter().find(|(variable, _)| variable == name).map(|(_, value)| value.clone())
            })
        };
        let all = [("XDG_RUNTIME_DIR", "/run/user/1000"), ("XDG_CACHE_HOME", "/c"), ("HOME", "/home/ada")];
        assert_eq!(folder(&all), Ok(PathBuf::from("/run/user/1000/subscriber-dashboard")));
        assert_eq!(folder(&all[1..]), Ok(PathBuf::from("/c/subscriber-dashboard")));
        assert_eq!(folder(&all[2..]), Ok(PathBuf::from("/home/ada/.cache/subscriber-dashboard")));
        let relative = [("XDG_RUNTIME_DIR", "run"), ("XDG_CACHE_HOME", ""), ("HOME", "/home/ada")];
        assert_eq!(folder(&relative), Ok(PathBuf::from("/home/ada/.cache/subscriber-dashboard")), "relative: ignored");
        assert!(folder(&[]).is_err(), "no guess, no /tmp");
    }
}
