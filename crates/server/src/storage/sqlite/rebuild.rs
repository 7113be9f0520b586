//! SQLite changes a column's constraints or a table's key only by rebuilding the table (its
//! "generalized ALTER TABLE procedure"): a new table from the changed definition, the rows
//! copied, the old one dropped, the new one renamed, the indexes made again. The procedure is
//! written once here; a migration that needs it says only how the definition changes, starting
//! from the definition the database holds (so it cannot drift from what earlier migrations
//! made). The caller runs with foreign keys off and checks them afterwards, as SQLite's
//! procedure asks.

use rusqlite::{OptionalExtension, Transaction};
use rusqlite_migration::{HookError, HookResult};

/// Rebuilds `table` from its definition as `edit` changes it; the rows keep their ids.
/// `edit` answers `None` when the definition is not the one it expects: the migration then
/// fails and changes nothing.
pub fn rebuild(transaction: &Transaction, table: &str, edit: impl Fn(&str) -> Option<String>) -> HookResult {
    let definition: String = transaction
        .query_row("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?1", [table], |row| row.get(0))
        .optional()?
        .ok_or_else(|| HookError::Hook(format!("no table {table} to rebuild")))?;
    let changed = edit(&definition)
        .ok_or_else(|| HookError::Hook(format!("the table {table} is not the one this migration changes")))?;
    let columns = changed.find('(').ok_or_else(|| HookError::Hook(format!("the table {table} has no column list")))?;
    let indexes = transaction
        .prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL")?
        .query_map([table], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let rebuilt = format!("{table}_rebuilt");
    transaction.execute_batch(&format!(
        "CREATE TABLE \"{rebuilt}\" {};
         INSERT INTO \"{rebuilt}\" SELECT * FROM \"{table}\";
         DROP TABLE \"{table}\";
         ALTER TABLE \"{rebuilt}\" RENAME TO \"{table}\";",
        &changed[columns..]
    ))?;
    for index in indexes {
        transaction.execute_batch(&index)?;
    }
    Ok(())
}

/// `definition` with the column `column`, defined as `was` (white space aside), defined as `now`
/// instead; the line's comment goes with the old definition. `None` when no line defines the
/// column that way.
pub fn redefine_column(definition: &str, column: &str, was: &str, now: &str) -> Option<String> {
    let expected = format!("{column} {was}");
    let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut found = false;
    let lines = definition.split('\n').map(|line| {
        let code = line.split("--").next().unwrap_or_default().trim_end();
        let (code, comma) = code.strip_suffix(',').map_or((code, ""), |code| (code, ","));
        if !found && words(code) == expected {
            found = true;
            let indent = &line[..line.len() - line.trim_start().len()];
            format!("{indent}{column} {now}{comma}")
        } else {
            line.to_string()
        }
    });
    let changed = lines.collect::<Vec<_>>().join("\n");
    found.then_some(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redefine_column_changes_only_the_named_column() {
        let definition = "CREATE TABLE t (\n    id   INTEGER PRIMARY KEY,\n    idx  INTEGER NOT NULL,  -- an index\n    s TEXT NOT NULL -- free\n)";
        assert_eq!(
            redefine_column(definition, "id", "INTEGER PRIMARY KEY", "INTEGER PRIMARY KEY AUTOINCREMENT").as_deref(),
            Some(
                "CREATE TABLE t (\n    id INTEGER PRIMARY KEY AUTOINCREMENT,\n    idx  INTEGER NOT NULL,  -- an index\n    s TEXT NOT NULL -- free\n)"
            )
        );
        assert_eq!(
            redefine_column(definition, "s", "TEXT NOT NULL", "TEXT NOT NULL CHECK (s <> '')").as_deref(),
            Some(
                "CREATE TABLE t (\n    id   INTEGER PRIMARY KEY,\n    idx  INTEGER NOT NULL,  -- an index\n    s TEXT NOT NULL CHECK (s <> '')\n)"
            )
        );
        assert_eq!(redefine_column(definition, "idx", "INTEGER PRIMARY KEY", "x"), None, "defined otherwise");
        assert_eq!(redefine_column(definition, "missing", "TEXT", "x"), None);
    }
}
