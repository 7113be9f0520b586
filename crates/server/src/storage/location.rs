//! Where the data lives, and how it may be shown.

use std::fmt;
use std::path::{Path, PathBuf};

/// A SQLite file (the default, nothing to set up) or a PostgreSQL database (`postgres://…`),
/// which several instances of the service may share.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl std::str::FromStr for Location {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Self::Postgres(text.to_owned())
        } else {
            Self::Sqlite(PathBuf::from(text))
        })
    }
}

impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Self {
        Self::Sqlite(path)
    }
}

impl From<&Path> for Location {
    fn from(path: &Path) -> Self {
        Self::Sqlite(path.to_path_buf())
    }
}

/// The file's path, or the PostgreSQL address without its password in any form (fit for a
/// log, a readiness answer or an error).
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite(path) => write!(f, "{}", path.display()),
            Self::Postgres(url) => f.write_str(&without_secrets(url)),
        }
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Location {
    /// The PostgreSQL database's name (`None` for SQLite, or when the address names none).
    pub fn database_name(&self) -> Option<String> {
        let Self::Postgres(url) = self else { return None };
        let rest = url.split_once("://")?.1;
        let rest = rest.split(['?', '#']).next()?;
        let host_and_path = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
        let name = host_and_path.split_once('/')?.1;
        (!name.is_empty() && name.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"_-".contains(&byte)))
            .then(|| name.to_owned())
    }

    /// The most files the database keeps open at once: on SQLite each pooled connection, the
    /// writer and a readiness check hold the file, its journal and its shared memory; on
    /// PostgreSQL the pool, the connection that listens to the other instances and the
    /// readiness one.
    pub fn open_files_at_most(&self) -> usize {
        match self {
            Self::Sqlite(_) => (super::sqlite::READERS + 2) * 3,
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => super::postgres::POOL_SIZE + 2,
            #[cfg(not(feature = "postgres"))]
            Self::Postgres(_) => 0,
        }
    }

    /// The SQLite file, `None` on PostgreSQL.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Self::Sqlite(path) => Some(path),
            Self::Postgres(_) => None,
        }
    }
}

/// The address with neither a password (`user:password@`) nor any query parameter (where
/// `?password=` and `?sslpassword=` would be), for logs.
pub fn without_secrets(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return "(not a database address)".to_owned() };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    match rest.rsplit_once('@') {
        Some((credentials, host)) => {
            let user = credentials.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}@{host}")
        }
        None => format!("{scheme}://{rest}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_name_names_the_default_key_file() {
        let name = |url: &str| url.parse::<Location>().ok().and_then(|location| location.database_name());
        assert_eq!(name("postgres://app:s3cret@db.internal:5432/data?sslmode=require").as_deref(), Some("data"));
        assert_eq!(name("postgresql://db/subscriber_data").as_deref(), Some("subscriber_data"));
        assert_eq!(name("postgres://db").as_deref(), None);
        assert_eq!(name("postgres://db/../etc").as_deref(), None);
        assert_eq!(name("service.sqlite3"), None);
    }

    #[test]
    fn passwords_stay_out_of_logs_in_every_form() {
        assert_eq!(
            without_secrets("postgres://app:s3cret@db.internal:5432/data?sslmode=require"),
            "postgres://app@db.internal:5432/data"
        );
        assert_eq!(without_secrets("postgres://db/data"), "postgres://db/data");
        assert_eq!(without_secrets("postgres://db/data?password=s3cret&user=app"), "postgres://db/data");
        assert_eq!(without_secrets("postgresql://app@db/data?sslpassword=s3cret"), "postgresql://app@db/data");
        assert_eq!(without_secrets("postgres://a:b:c@db/data#s3cret"), "postgres://a@db/data");
        let location: Location = "postgres://app:s3cret@db/data?password=other".parse().expect("parsed");
        assert!(!location.to_string().contains("s3cret") && !format!("{location:?}").contains("other"));
    }
}
