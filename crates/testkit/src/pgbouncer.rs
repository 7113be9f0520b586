//! A real PgBouncer (Debian's `pgbouncer` package, `/usr/sbin/pgbouncer`) in front of a test
//! PostgreSQL server, on a free port of 127.0.0.1, with its own configuration in a temporary
//! folder: every database of the server reachable through it by name, trust authentication as
//! the server has, and the pool mode asked for.
//!
//! It stops when dropped, and in any case when the test process ends: it runs under a shell
//! that stops it once the process's end closes its standard input.

use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Where Debian's package puts the binary.
pub const BINARY: &str = "/usr/sbin/pgbouncer";

/// PgBouncer's `pool_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolMode {
    Session,
    Transaction,
    Statement,
}

impl PoolMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Transaction => "transaction",
            Self::Statement => "statement",
        }
    }
}

pub struct PgBouncer {
    pub port: u16,
    /// Its log, for a failing test to show.
    pub log: PathBuf,
    child: Option<Child>,
    _dir: tempfile::TempDir,
}

impl PgBouncer {
    /// Whether the binary is installed (`make test-postgres` installs it).
    pub fn available() -> bool {
        Path::new(BINARY).exists()
    }

    /// Starts one in front of the server of `upstream` (a `postgres://user@host:port/…` address
    /// with trust authentication) and returns once it accepts connections.
    pub fn start(upstream: &str, mode: PoolMode) -> std::io::Result<Self> {
        let (user, host, port) = parts(upstream)
            .ok_or_else(|| std::io::Error::other(format!("not a postgres://user@host:port/db address: {upstream}")))?;
        let dir = crate::postgres::owned_temp_dir("pgbouncer")?;
        let listen = free_port()?;
        let log = dir.path().join("pgbouncer.log");
        let config = dir.path().join("pgbouncer.ini");
        std::fs::write(dir.path().join("userlist.txt"), format!("\"{user}\" \"\"\n"))?;
        std::fs::write(
            &config,
            format!(
                "[databases]\n\
                 * = host={host} port={port}\n\
                 [pgbouncer]\n\
                 listen_addr = 127.0.0.1\n\
                 listen_port = {listen}\n\
                 unix_socket_dir =\n\
                 auth_type = trust\n\
                 auth_file = {userlist}\n\
                 pool_mode = {mode}\n\
                 max_client_conn = 2000\n\
                 default_pool_size = 200\n\
                 max_db_connections = 0\n\
                 server_reset_query = DISCARD ALL\n\
                 ignore_startup_parameters = extra_float_digits\n\
                 logfile = {log}\n",
                userlist = dir.path().join("userlist.txt").display(),
                mode = mode.as_str(),
                log = log.display(),
            ),
        )?;
        crate::postgres::give_to_owner(dir.path())?;
        // Stops PgBouncer when standard input closes (this process ended, or `drop`).
        let script = format!("{BINARY} '{}' & pid=$!; read _; kill $pid; wait $pid", config.display());
        let mut child = crate::postgres::as_owner("sh", dir.path())
            .args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", listen)).is_err() {
            if started.elapsed() > Duration::from_secs(20) || child.try_wait()?.is_some() {
                let said = std::fs::read_to_string(&log).unwrap_or_default();
                let _ = child.kill();
                return Err(std::io::Error::other(format!("pgbouncer did not start: {said}")));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(Self { port: listen, log, child: Some(child), _dir: dir })
    }

    /// `upstream` with its host and port made this PgBouncer's.
    pub fn url(&self, upstream: &str) -> String {
        let (scheme_user, rest) = upstream.split_once('@').unwrap_or(("postgres://postgres", upstream));
        let path = rest.find('/').map_or("", |slash| &rest[slash..]);
        format!("{scheme_user}@127.0.0.1:{}{path}", self.port)
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for PgBouncer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Some(mut input) = child.stdin.take() {
                let _ = input.write_all(b"\n");
            }
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(5) {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// (user, host, port) of a `postgres://user@host:port/db` address.
fn parts(url: &str) -> Option<(String, String, u16)> {
    let rest = url.strip_prefix("postgres://").or_else(|| url.strip_prefix("postgresql://"))?;
    let (user, rest) = rest.split_once('@')?;
    let authority = rest.split('/').next()?;
    let (host, port) = authority.rsplit_once(':')?;
    let user = user.split(':').next()?.to_owned();
    Some((user, host.to_owned(), port.parse().ok()?))
}

/// A free port of 127.0.0.1 (free when asked: whoever binds it next may lose a race).
pub fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_read_and_rewritten() {
        assert_eq!(
            parts("postgres://postgres@127.0.0.1:5433/t_1"),
            Some(("postgres".to_owned(), "127.0.0.1".to_owned(), 5433))
        );
        assert_eq!(parts("mysql://x"), None);
    }
}
