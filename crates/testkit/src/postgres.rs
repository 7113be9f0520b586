//! A PostgreSQL cluster of a test's own, for the faults a test injects into the real server:
//! stopped and started again (`pg_ctl stop`, `start`), hung (its processes stopped with
//! SIGSTOP: TCP is still acknowledged, nothing answers), and a synchronous standby made with
//! `pg_basebackup` and promoted. The suite's shared cluster (`tests/support/with-postgres.sh`)
//! is never touched: other tests run on it meanwhile.
//!
//! As with-postgres.sh does: the highest installed server version's binaries
//! (`/usr/lib/postgresql/*/bin`), 127.0.0.1 only, trust authentication, and, when the tests
//! run as root (PostgreSQL refuses to), everything run as the `postgres` system user in a
//! folder under /tmp it owns.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

pub struct Cluster {
    bin: PathBuf,
    dir: tempfile::TempDir,
    pub port: u16,
}

impl Cluster {
    /// Whether PostgreSQL's server binaries are installed.
    pub fn available() -> bool {
        binaries().is_some()
    }

    /// A new cluster, started: WAL kept for a standby, room for several instances' pools.
    pub fn start() -> std::io::Result<Self> {
        let bin = binaries().ok_or_else(|| std::io::Error::other("no PostgreSQL server binaries installed"))?;
        let dir = owned_temp_dir("pg-cluster")?;
        let data = dir.path().join("data");
        run(as_owner(bin.join("initdb"), dir.path())
            .args(["-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C", "-D"])
            .arg(&data))?;
        // Acknowledged means flushed (and, with a synchronous standby, on the standby too):
        // `fsync` stays off only because no test crashes the machine.
        append(
            &data.join("postgresql.conf"),
            &format!(
                "listen_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\nmax_connections = 400\n\
                 fsync = off\nfull_page_writes = off\nwal_level = replica\nmax_wal_senders = 10\n\
                 hot_standby = on\nwal_keep_size = 256MB\n",
                dir.path().display()
            ),
        )?;
        let cluster = Self { bin, dir, port: 0 };
        cluster.start_on_a_free_port()
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn start_on_a_free_port(mut self) -> std::io::Result<Self> {
        let mut last = None;
        for _ in 0..5 {
            self.port = crate::pgbouncer::free_port()?;
            append(&self.data().join("postgresql.auto.conf"), &format!("port = {}\n", self.port))?;
            match self.start_again() {
                Ok(()) => return Ok(self),
                Err(error) => last = Some(error),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("PostgreSQL did not start")))
    }

    /// The address of database `name`, as the superuser.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// A new empty database; its address.
    pub fn create_database(&self) -> std::io::Result<String> {
        let name = format!("t_{}", uuid::Uuid::new_v4().simple());
        self.psql("postgres", &format!("CREATE DATABASE {name}"))?;
        Ok(self.url(&name))
    }

    /// Runs `sql` on database `name` with the cluster's own `psql`; its output, unaligned.
    pub fn psql(&self, name: &str, sql: &str) -> std::io::Result<String> {
        let output = run(Command::new(self.bin.join("psql")).args([
            "-X",
            "-q",
            "-t",
            "-A",
            "-v",
            "ON_ERROR_STOP=1",
            "-d",
            &self.url(name),
            "-c",
            sql,
        ]))?;
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    }

    /// `pg_ctl stop -m fast`: sessions are ended (their transactions rolled back), what is
    /// committed is kept.
    pub fn stop(&self) -> std::io::Result<()> {
        self.resume();
        run(as_owner(self.bin.join("pg_ctl"), self.dir.path())
            .args(["stop", "-m", "fast", "-w", "-t", "60", "-D"])
            .arg(self.data()))
        .map(drop)
    }

    /// `pg_ctl start`, on the same port; returns once it accepts connections.
    pub fn start_again(&self) -> std::io::Result<()> {
        let log = self.dir.path().join("postgres.log");
        run(as_owner(self.bin.join("pg_ctl"), self.dir.path())
            .args(["start", "-w", "-t", "60", "-s", "-l"])
            .arg(&log)
            .arg("-D")
            .arg(self.data()))
        .map(drop)
    }

    /// Hangs the server: the postmaster and every backend stopped (SIGSTOP). The kernel still
    /// accepts connections and acknowledges what is sent; nothing answers.
    pub fn pause(&self) {
        for pid in self.processes() {
            let _ = Command::new("kill").args(["-STOP", &pid.to_string()]).status();
        }
    }

    /// Lets a paused server go on (SIGCONT).
    pub fn resume(&self) {
        for pid in self.processes() {
            let _ = Command::new("kill").args(["-CONT", &pid.to_string()]).status();
        }
    }

    /// The postmaster and its children.
    fn processes(&self) -> Vec<u32> {
        let Some(postmaster) = std::fs::read_to_string(self.data().join("postmaster.pid"))
            .ok()
            .and_then(|text| text.lines().next().and_then(|line| line.trim().parse::<u32>().ok()))
        else {
            return Vec::new();
        };
        let mut pids = vec![postmaster];
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else { continue };
            // The parent is the 4th field of /proc/<pid>/stat, after the parenthesised name.
            let parent = std::fs::read_to_string(entry.path().join("stat")).ok().and_then(|stat| {
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1).and_then(|ppid| ppid.parse::<u32>().ok()))
            });
            if parent == Some(postmaster) {
                pids.push(pid);
            }
        }
        pids
    }

    /// A standby of this cluster (`pg_basebackup -R`), started and streaming, made this
    /// cluster's synchronous standby: a commit is acknowledged once the standby has it.
    pub fn synchronous_standby(&self) -> std::io::Result<Self> {
        let dir = owned_temp_dir("pg-standby")?;
        let data = dir.path().join("data");
        run(as_owner(self.bin.join("pg_basebackup"), dir.path())
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                "-X",
                "stream",
                "-c",
                "fast",
                "-R",
                "-D",
            ])
            .arg(&data))?;
        append(
            &data.join("postgresql.auto.conf"),
            &format!("unix_socket_directories = '{}'\ncluster_name = 'standby1'\n", dir.path().display()),
        )?;
        let standby = Self { bin: self.bin.clone(), dir, port: 0 }.start_on_a_free_port()?;
        self.psql("postgres", "ALTER SYSTEM SET synchronous_standby_names = 'standby1'")?;
        self.psql("postgres", "SELECT pg_reload_conf()")?;
        let started = Instant::now();
        while self.psql("postgres", "SELECT sync_state FROM pg_stat_replication")? != "sync" {
            if started.elapsed() > Duration::from_secs(30) {
                return Err(std::io::Error::other("the standby did not become synchronous"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(standby)
    }

    /// Kills the server outright (`pg_ctl stop -m immediate`), as a host that died.
    pub fn kill(&self) -> std::io::Result<()> {
        self.resume();
        run(as_owner(self.bin.join("pg_ctl"), self.dir.path())
            .args(["stop", "-m", "immediate", "-w", "-D"])
            .arg(self.data()))
        .map(drop)
    }

    /// Promotes a standby to primary (`pg_ctl promote`), returning once it takes writes.
    pub fn promote(&self) -> std::io::Result<()> {
        run(as_owner(self.bin.join("pg_ctl"), self.dir.path())
            .args(["promote", "-w", "-t", "60", "-D"])
            .arg(self.data()))
        .map(drop)
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("postgres.log")).unwrap_or_default()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.resume();
        if self.data().join("postmaster.pid").exists() {
            let _ = as_owner(self.bin.join("pg_ctl"), self.dir.path())
                .args(["stop", "-m", "immediate", "-w", "-D"])
                .arg(self.data())
                .output();
        }
    }
}

/// The server binaries of the highest installed major version.
fn binaries() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|entry| Some((entry.file_name().to_str()?.parse().ok()?, entry.path().join("bin"))))
        .filter(|(_, bin)| ["initdb", "pg_ctl", "postgres"].iter().all(|name| bin.join(name).exists()))
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|output| output.stdout.starts_with(b"0\n"))
}

/// A temporary folder the server's user can use (under /tmp, owned by `postgres` when root).
pub fn owned_temp_dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    let dir = if is_root() {
        tempfile::Builder::new().prefix(prefix).tempdir_in("/tmp")?
    } else {
        tempfile::Builder::new().prefix(prefix).tempdir()?
    };
    give_to_owner(dir.path())?;
    Ok(dir)
}

/// Makes `path` (and what is in it) the server's user's, when running as root.
pub fn give_to_owner(path: &Path) -> std::io::Result<()> {
    if is_root() {
        run(Command::new("chown").args(["-R", "postgres:"]).arg(path))?;
    }
    Ok(())
}

/// `program` to run as the server's user (through `runuser` when root), from `folder`.
pub fn as_owner(program: impl AsRef<std::ffi::OsStr>, folder: &Path) -> Command {
    let mut command = if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    command.current_dir(folder);
    command
}

fn run(command: &mut Command) -> std::io::Result<Output> {
    let output = command.output()?;
    if !output.status.success() {
        return Err(std::io::Error::other(format!(
            "{command:?}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(output)
}

fn append(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path)?;
    file.write_all(text.as_bytes())
}
