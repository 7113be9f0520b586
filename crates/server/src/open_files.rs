//! The process's open-file limit. Every event stream, database connection and listener is a
//! file, and the soft limit a shell or a container starts a process with is often 1,024, well
//! under `--max-streams`' 2,000: the binary raises its soft limit to the hard one at start,
//! and refuses a `--max-streams` that even the hard limit cannot hold, saying so, rather than
//! failing to accept connections once the streams have used the files up.

use crate::config::Config;

/// Files beyond the streams, the database and the listeners: the connections of other
/// requests, webhook deliveries (64 at once), DNS look-ups, the key and log files and the
/// runtime's own.
const SPARE: u64 = 256;

/// What the configuration needs open at once, at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Need {
    streams: u64,
    database: u64,
    listeners: u64,
}

impl Need {
    fn of(config: &Config) -> Self {
        Self {
            streams: u64::try_from(config.max_streams).unwrap_or(u64::MAX),
            database: u64::try_from(config.database.open_files_at_most()).unwrap_or(u64::MAX),
            listeners: 1 + u64::from(config.metrics_listen.is_some()),
        }
    }

    fn total(self) -> u64 {
        self.streams.saturating_add(self.database).saturating_add(self.listeners).saturating_add(SPARE)
    }
}

/// Raises the soft limit to the hard limit (no further than the kernel lets a process go)
/// and checks that `--max-streams` fits in it. The error is one line, for the person starting
/// the service.
pub fn raise_and_check(config: &Config) -> anyhow::Result<()> {
    let limit = match raise() {
        Ok(limit) => limit,
        Err(error) => {
            tracing::warn!(error = %error, "the open-file limit could not be raised or read: not checked");
            return Ok(());
        }
    };
    tracing::info!(limit, "open-file limit");
    check(Need::of(config), limit)
}

/// The soft limit after raising it as far as the hard limit allows.
fn raise() -> std::io::Result<u64> {
    // A hard limit of "unlimited" cannot be the soft one (Linux stops at `fs.nr_open`, by
    // default 1,048,576): then that much.
    rlimit::increase_nofile_limit(u64::MAX).or_else(|_| rlimit::increase_nofile_limit(1 << 20))
}

fn check(need: Need, limit: u64) -> anyhow::Result<()> {
    if need.total() <= limit {
        return Ok(());
    }
    let streams_possible = limit.saturating_sub(need.total() - need.streams);
    anyhow::bail!(
        "--max-streams {} needs about {} open files ({} streams + {} for the database + {} listener(s) + {} spare) but \
         this process may open only {limit} (its hard limit, `ulimit -Hn`): lower --max-streams to at most \
         {streams_possible}, or start it with a higher limit (LimitNOFILE= in a systemd unit, --ulimit nofile= for a \
         container)",
        need.streams,
        need.total(),
        need.streams,
        need.database,
        need.listeners,
        SPARE,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_the_limit_cannot_hold_are_refused_with_what_would_fit() {
        let need = Need { streams: 2000, database: 30, listeners: 1 };
        assert!(check(need, 4096).is_ok());
        assert!(check(need, need.total()).is_ok());
        let refused = check(need, 1024).expect_err("2,000 streams do not fit in 1,024 files").to_string();
        assert!(refused.contains("--max-streams 2000") && refused.contains("at most 737"), "{refused}");
        assert!(!refused.contains('\n'), "one line: {refused}");
        assert!(check(Need { streams: 0, ..need }, 100).is_err(), "even no streams need the spare files");
    }

    #[test]
    fn the_database_and_a_metrics_listener_count() {
        let mut config = Config::sandbox(std::path::PathBuf::from("x.sqlite3"));
        let sqlite = Need::of(&config);
        assert_eq!((sqlite.streams, sqlite.listeners), (2000, 1));
        assert!(sqlite.database >= 27, "{sqlite:?}");
        config.metrics_listen = Some(std::net::SocketAddr::from(([127, 0, 0, 1], 9000)));
        assert_eq!(Need::of(&config).listeners, 2);
    }
}
