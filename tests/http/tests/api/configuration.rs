//! A configuration that cannot misroute data: `--database` refuses what it does not
//! understand, and the files made by default never land in the working folder.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

fn entries(folder: &Path) -> Vec<String> {
    std::fs::read_dir(folder)
        .expect("a folder")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect()
}

fn server_in(folder: &Path, data: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_subscriber-server-under-test"));
    command
        .current_dir(folder)
        .env_remove("SUBSCRIBER_DATABASE")
        .env_remove("SUBSCRIBER_KEYS")
        .env_remove("STATE_DIRECTORY")
        .env("HOME", data)
        .env("XDG_DATA_HOME", data.join("share"))
        .args(["--listen", "127.0.0.1:0", "--directory-size", "2000"]);
    command
}

/// A bench once gave a `postgres://` address to a binary that did not know it: it made a
/// 55 MB SQLite file named after the address in the checkout. Any address but PostgreSQL's is
/// refused, saying why, before anything is made.
#[test]
fn a_database_address_of_another_kind_is_refused_and_makes_no_file() {
    let folder = tempfile::tempdir().expect("a working folder");
    let data = tempfile::tempdir().expect("a home");
    for address in ["mysql://x", "sqlite:///tmp/x.db", "postgres:/postgres@127.0.0.1:5432/bench", "redis://cache:6379"]
    {
        let output = server_in(folder.path(), data.path()).args(["--database", address]).output().expect("runs");
        let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(!output.status.success(), "{address} was accepted: {said}");
        assert!(said.contains("--database") && said.contains("postgres://"), "{address}: {said}");
        assert_eq!(entries(folder.path()), Vec::<String>::new(), "{address} made a file");
        assert_eq!(entries(data.path()), Vec::<String>::new(), "{address} made a file");
    }
}

/// Without `--database` the SQLite file and its key file go to the user's data folder, never
/// the folder the service was started in.
#[test]
fn default_files_go_to_the_users_data_folder() {
    let folder = tempfile::tempdir().expect("a working folder");
    let data = tempfile::tempdir().expect("a home");
    let mut child =
        server_in(folder.path(), data.path()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("starts");
    let stdout = child.stdout.take().expect("output");
    let started =
        BufReader::new(stdout).lines().map_while(Result::ok).any(|line| line.contains("listening on http://"));
    let _ = child.kill();
    let _ = child.wait();
    assert!(started, "the service starts with its defaults");
    assert_eq!(entries(folder.path()), Vec::<String>::new(), "nothing in the working folder");
    let kept = data.path().join("share/subscriber-data");
    assert!(kept.join("subscriber-data.sqlite3").is_file(), "{:?}", entries(&kept));
    assert!(kept.join("subscriber-data.sqlite3.keys").is_file(), "{:?}", entries(&kept));
}

/// The packaged configuration's PostgreSQL example asks for TLS (`sslmode=require`, which the
/// service verifies against trusted roots; `sslmode_require_never_falls_back_to_plain_tcp`
/// shows it never falls back to plain TCP).
#[test]
fn the_packaged_postgres_example_asks_for_tls() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../crates/server/debian/server.env");
    let text = std::fs::read_to_string(&example).expect("the packaged server.env");
    let addresses: Vec<&str> = text.lines().filter(|line| line.contains("postgres://")).collect();
    assert!(!addresses.is_empty(), "the example shows a PostgreSQL address");
    for line in addresses {
        assert!(line.contains("sslmode=require"), "plain TCP in the packaged example: {line}");
    }
}
