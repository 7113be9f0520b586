//! SQLite on a file system that fills up: a small tmpfs of the server's own, mounted in a mount
//! namespace (`unshare --user --map-root-user --mount`, as the end-to-end offline test uses
//! unshare; no root needed), reached from here through `/proc/<pid>/root`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::helpers::{TestServer, send};
use crate::load::{Load, Tally, Tenant, assert_recovered};

/// Fills the file system holding `path` with a file there; returns the file.
fn fill(folder: &Path) -> PathBuf {
    let filler = folder.join("filler");
    let mut file = std::fs::File::create(&filler).expect("a filler file");
    let chunk = vec![0u8; 1 << 20];
    while file.write_all(&chunk).is_ok() {}
    let page = vec![0u8; 4096];
    while file.write_all(&page).is_ok() {}
    let _ = file.flush();
    filler
}

#[test]
fn sqlite_on_a_full_file_system_is_503_with_retry_after_then_recovers_with_its_data_intact() {
    if !crate::asked() {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let mount = dir.path().join("fs");
    std::fs::create_dir(&mount).expect("a mount point");
    let mount_text = mount.to_str().expect("a path in UTF-8").to_owned();
    let database = mount.join("service.sqlite3");
    let wrapper = [
        "unshare",
        "--user",
        "--map-root-user",
        "--mount",
        "sh",
        "-c",
        "mount -t tmpfs -o size=96m tmpfs \"$0\" && exec \"$@\"",
        &mount_text,
    ];
    let flags = ["--rate-limit", "0", "--credential-rate-limit", "0"];
    let server = TestServer::spawn_wrapped(&wrapper, dir, database.clone(), &flags);
    // The server's view of its file system.
    let inside = PathBuf::from(format!("/proc/{}/root{}", server.pid(), mount_text));
    assert!(inside.join("service.sqlite3").exists(), "the database is on the server's tmpfs: {}", inside.display());

    let tenants: Vec<Tenant> = (0..4).map(|_| Tenant::new(&server)).collect();
    let card_ids: Vec<i64> = tenants.iter().map(|tenant| tenant.card_id).collect();
    let load = Load::start(std::slice::from_ref(&server.base_url), tenants, Duration::from_secs(40));
    std::thread::sleep(Duration::from_secs(2));

    let full_at = Instant::now();
    let filler = fill(&inside);
    std::thread::sleep(Duration::from_secs(3));
    let (status, body) = send(server.get("/readyz"));
    assert_eq!(status, 503, "not ready on a full disk: {body}");
    assert_eq!(body["missing"][0]["check"], "database", "{body}");
    assert!(body["missing"][0]["reason"].as_str().is_some_and(|reason| reason.contains("space")), "{body}");
    std::thread::sleep(Duration::from_secs(3));

    std::fs::remove_file(&filler).expect("space freed");
    let freed_at = Instant::now();
    let recovered = load.recovered_after(freed_at, Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(1));
    let (answers, acknowledged) = load.finish();

    let during = Tally::of(answers.iter().filter(|answer| answer.at >= full_at && answer.at < freed_at));
    let writes =
        Tally::of(answers.iter().filter(|answer| answer.write && answer.at >= full_at && answer.at < freed_at));
    println!(
        "SQLite on a full file system, 4 clients: full for {:?}; meanwhile {} ({} writes, {} of them failed); \
         recovered {:?} after space was freed; {} sales acknowledged in all",
        freed_at - full_at,
        during.summary(),
        writes.total,
        writes.failed(),
        recovered,
        acknowledged.len()
    );
    during.assert_outage_answers("full file system");
    assert_recovered("full file system", recovered);
    let (status, body) = send(server.get("/readyz"));
    assert_eq!(status, 200, "ready again: {body}");

    // Nothing acknowledged is missing, and the file is sound. SQLite resolves the symbolic link
    // `/proc/<pid>/root` into this process's view, where the tmpfs is not: the file and its log
    // are copied out once the server is idle (its usage counts flushed, every 5 s; nothing else
    // writes without requests).
    std::thread::sleep(Duration::from_secs(6));
    let copy = tempfile::tempdir().expect("temporary directory");
    for suffix in ["", "-wal"] {
        let name = format!("service.sqlite3{suffix}");
        std::fs::copy(inside.join(&name), copy.path().join(&name)).expect("copied out");
    }
    let connection = rusqlite::Connection::open(copy.path().join("service.sqlite3")).expect("the database opens");
    let check: String = connection.query_row("PRAGMA integrity_check", [], |row| row.get(0)).expect("checked");
    assert_eq!(check, "ok");
    let ids: Vec<String> = acknowledged.iter().map(|(_, id)| id.to_string()).collect();
    let kept: i64 = connection
        .query_row(&format!("SELECT count(*) FROM transactions WHERE id IN ({})", ids.join(",")), [], |row| row.get(0))
        .expect("counted");
    assert_eq!(kept, i64::try_from(acknowledged.len()).expect("a count"), "every acknowledged sale is kept");
    assert!(acknowledged.iter().all(|(card, _)| card_ids.contains(card)));
}
