//! SQL written once for both databases: a statement's text with PostgreSQL's numbered
//! placeholders (`$1`, `$2`), and the arguments it takes.
//!
//! SQLite reads `$1` as a *named* parameter, numbered by first appearance (`… $2 … $1` would
//! bind the other way round), so it is given the same text with `?1`, `?2`: made once, at the
//! statement's first use, and kept. Each database then prepares its text once per connection
//! (`prepare_cached`), as before.

use std::borrow::Cow;
use std::sync::OnceLock;

/// A statement both databases read the same way, made by [`sql!`].
pub struct Sql {
    build: fn() -> String,
    texts: OnceLock<Texts>,
}

struct Texts {
    numbered: Box<str>,
    sqlite: Box<str>,
}

impl Sql {
    /// A statement whose text `build` makes (at first use: it may name column lists).
    pub const fn new(build: fn() -> String) -> Self {
        Self { build, texts: OnceLock::new() }
    }

    fn texts(&self) -> &Texts {
        self.texts.get_or_init(|| {
            let numbered = (self.build)();
            let sqlite = question_marks(&numbered);
            Texts { numbered: numbered.into(), sqlite: sqlite.into() }
        })
    }

    /// The text as written, `$N` (PostgreSQL's).
    pub fn numbered(&self) -> &str {
        &self.texts().numbered
    }

    /// The text with `?N` for `$N` (SQLite's).
    pub fn sqlite(&self) -> &str {
        &self.texts().sqlite
    }
}

/// `$N` as `?N`. The statements hold no `$` in a literal or a name, so every `$` followed by
/// digits is a placeholder.
pub(in crate::storage) fn question_marks(numbered: &str) -> String {
    let mut text = String::with_capacity(numbered.len());
    let mut characters = numbered.chars().peekable();
    while let Some(character) = characters.next() {
        if character == '$' && characters.peek().is_some_and(char::is_ascii_digit) {
            text.push('?');
        } else {
            text.push(character);
        }
    }
    text
}

/// A statement, its text given as to `format!` (constants in scope may be named:
/// `"SELECT {COLUMNS} FROM cards WHERE id = $1"`), made at first use and kept.
/// - In place: `sql!("…")` is a `&'static Sql`.
/// - Named, for several places: `sql! { pub(in crate::storage) static NAME = "…"; }`.
macro_rules! sql {
    ($(#[$meta:meta])* $vis:vis static $name:ident = $text:literal $(, $arg:expr)* $(,)?;) => {
        $(#[$meta])*
        $vis static $name: $crate::storage::sql::Sql = $crate::storage::sql::Sql::new({
            // A text with nothing to put in is `format!`ted too: one way for every statement.
            #[allow(clippy::useless_format)]
            fn text() -> String {
                format!($text $(, $arg)*)
            }
            text
        });
    };
    ($text:literal $(, $arg:expr)* $(,)?) => {{
        $crate::storage::sql::sql! { static SQL = $text $(, $arg)*; }
        &SQL
    }};
}
pub(crate) use sql;

/// An argument of a statement written once: what both drivers bind. Numbers are 64-bit (every
/// integer column is), flags 0 or 1 (as the tables keep them); text and bytes borrowed where
/// the statement runs while they are there, owned where it runs later (`Param<'static>`).
#[derive(Debug, Clone, PartialEq)]
pub enum Param<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(Cow<'a, str>),
    Bytes(Cow<'a, [u8]>),
}

impl Param<'_> {
    /// The argument, owning its text or bytes (for a statement that runs later).
    pub fn into_owned(self) -> Param<'static> {
        match self {
            Self::Null => Param::Null,
            Self::Int(value) => Param::Int(value),
            Self::Real(value) => Param::Real(value),
            Self::Text(text) => Param::Text(Cow::Owned(text.into_owned())),
            Self::Bytes(bytes) => Param::Bytes(Cow::Owned(bytes.into_owned())),
        }
    }
}

impl From<i64> for Param<'_> {
    fn from(value: i64) -> Self {
        Self::Int(value)
    }
}

impl From<u32> for Param<'_> {
    fn from(value: u32) -> Self {
        Self::Int(i64::from(value))
    }
}

impl From<u16> for Param<'_> {
    fn from(value: u16) -> Self {
        Self::Int(i64::from(value))
    }
}

impl From<bool> for Param<'_> {
    fn from(value: bool) -> Self {
        Self::Int(i64::from(value))
    }
}

impl From<f64> for Param<'_> {
    fn from(value: f64) -> Self {
        Self::Real(value)
    }
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(value: &'a str) -> Self {
        Self::Text(Cow::Borrowed(value))
    }
}

impl<'a> From<&'a String> for Param<'a> {
    fn from(value: &'a String) -> Self {
        Self::Text(Cow::Borrowed(value))
    }
}

impl From<String> for Param<'_> {
    fn from(value: String) -> Self {
        Self::Text(Cow::Owned(value))
    }
}

impl<'a> From<&'a [u8]> for Param<'a> {
    fn from(value: &'a [u8]) -> Self {
        Self::Bytes(Cow::Borrowed(value))
    }
}

impl<'a> From<&'a Vec<u8>> for Param<'a> {
    fn from(value: &'a Vec<u8>) -> Self {
        Self::Bytes(Cow::Borrowed(value))
    }
}

impl From<Vec<u8>> for Param<'_> {
    fn from(value: Vec<u8>) -> Self {
        Self::Bytes(Cow::Owned(value))
    }
}

impl<'a, T: Into<Param<'a>>> From<Option<T>> for Param<'a> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Null, Into::into)
    }
}

/// The arguments of a statement written once, in placeholder order: `args![id, subscriber_id]`.
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        [$($crate::storage::sql::Param::from($value)),*]
    };
}
pub(crate) use args;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_reads_question_marks_with_the_same_numbers() {
        let statement = sql!("UPDATE t SET a = $2, b = $10 WHERE id = $1 AND c = '$' AND d = $1");
        assert_eq!(statement.numbered(), "UPDATE t SET a = $2, b = $10 WHERE id = $1 AND c = '$' AND d = $1");
        assert_eq!(statement.sqlite(), "UPDATE t SET a = ?2, b = ?10 WHERE id = ?1 AND c = '$' AND d = ?1");
    }

    #[test]
    fn arguments_are_what_the_tables_keep() {
        assert_eq!(args![3_i64, true, 7_u32, None::<i64>], [Param::Int(3), Param::Int(1), Param::Int(7), Param::Null]);
        assert_eq!(args!["a", String::from("b")], [Param::Text("a".into()), Param::Text("b".into())]);
    }
}
