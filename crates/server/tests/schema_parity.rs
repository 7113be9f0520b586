//! Both databases' schemas, migrated by the service itself, are the same schema: every table,
//! column (its type as each database spells it, NULL or not, default), primary key, unique
//! constraint, foreign key, CHECK and index of one is in the other, but for the differences
//! listed (and explained) in [`EXPECTED`]. The two migration sets are written by hand, side by
//! side: this is what keeps them in step.
//!
//! The SQLite half runs everywhere; the comparison needs a PostgreSQL cluster
//! (`SUBSCRIBER_TEST_POSTGRES`, as `tests/support/with-postgres.sh` gives: `make test-postgres`).

use std::collections::{BTreeMap, BTreeSet};

use subscriber_server::storage::{Location, Store};

/// A schema as both databases can say it: each table's facts, one line each.
type Schema = BTreeMap<String, BTreeSet<String>>;

/// Differences that are meant, as `(table, fact)`: a fact of one database alone.
const EXPECTED: &[(&str, &str, &str)] = &[
    // Stream places are held in the database so a cap holds across instances; one instance
    // serves a SQLite file and counts its streams in memory (migration postgres/0005).
    ("postgresql", "stream_places", "*"),
    // Each database keeps its migrations as it does: SQLite in `PRAGMA user_version`.
    ("postgresql", "schema_migrations", "*"),
];

/// SQLite's column types, as PostgreSQL spells the same.
const TYPES: &[(&str, &str)] =
    &[("INTEGER", "bigint"), ("TEXT", "text"), ("BLOB", "bytea"), ("REAL", "double precision")];

#[tokio::test]
async fn both_databases_migrate_to_the_same_schema() {
    let dir = tempfile::tempdir().expect("a folder");
    let path = dir.path().join("schema.sqlite3");
    Store::open(&Location::Sqlite(path.clone())).await.expect("SQLite migrates");
    let sqlite = sqlite_schema(&path);
    assert!(sqlite.contains_key("transactions") && sqlite["transactions"].len() > 20, "{sqlite:#?}");

    let Some(admin) = std::env::var("SUBSCRIBER_TEST_POSTGRES").ok().filter(|url| !url.is_empty()) else {
        eprintln!("schema parity: PostgreSQL half skipped (no SUBSCRIBER_TEST_POSTGRES: run `make test-postgres`)");
        return;
    };
    let postgres = postgres_schema(&admin).await;
    assert!(postgres.contains_key("transactions") && postgres["transactions"].len() > 20, "{postgres:#?}");

    let mut differences = Vec::new();
    for (side, this, other) in [("sqlite", &sqlite, &postgres), ("postgresql", &postgres, &sqlite)] {
        for (table, facts) in this {
            if EXPECTED.iter().any(|(only, name, fact)| *only == side && name == table && *fact == "*") {
                continue;
            }
            for fact in facts {
                let expected =
                    EXPECTED.iter().any(|(only, name, meant)| *only == side && name == table && meant == fact);
                if !expected && !other.get(table).is_some_and(|facts| facts.contains(fact)) {
                    differences.push(format!("only in {side}: {table}: {fact}"));
                }
            }
        }
    }
    assert!(differences.is_empty(), "the schemas differ:\n{}", differences.join("\n"));
}

/// `sql`, folded: lower case, single spaces, no parentheses, no `::type` casts (PostgreSQL's
/// way of printing a literal), `IN (…)` and `= ANY (ARRAY[…])` both as a set of the literals.
fn folded(sql: &str) -> String {
    let mut text = sql.to_lowercase();
    for cast in ["::text[]", "::text", "::bigint", "::integer"] {
        text = text.replace(cast, "");
    }
    let single = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = single(&text.replace(['(', ')'], " ")).replace("= any array[", "in ").replace(['[', ']'], " ");
    single(&text).replace(" ,", ",")
}

/// A column's default, folded (`'2026-11-21'::text` and `'2026-11-21'` are one).
fn default_of(default: Option<String>) -> String {
    default.map(|default| format!(" default {}", folded(&default))).unwrap_or_default()
}

fn sqlite_schema(path: &std::path::Path) -> Schema {
    let connection = rusqlite::Connection::open(path).expect("the file opens");
    let strings = |sql: &str, param: &str| -> Vec<Vec<Option<String>>> {
        let mut statement = connection.prepare(sql).expect(sql);
        let width = statement.column_count();
        statement
            .query_map([param], |row| {
                (0..width)
                    .map(|index| {
                        Ok(match row.get_ref(index)? {
                            rusqlite::types::ValueRef::Null => None,
                            rusqlite::types::ValueRef::Integer(value) => Some(value.to_string()),
                            value => Some(value.as_str().unwrap_or_default().to_owned()),
                        })
                    })
                    .collect()
            })
            .expect(sql)
            .collect::<Result<_, _>>()
            .expect(sql)
    };
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    let mut schema = Schema::new();
    let tables = strings(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND ?1 = ?1",
        "",
    );
    for table in &tables {
        let (name, definition) = (text(&table[0]), text(&table[1]));
        let facts = schema.entry(name.clone()).or_default();
        let columns = strings("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)", &name);
        let mut key = Vec::new();
        for column in &columns {
            let declared = text(&column[1]);
            let generated = declared == "INTEGER"
                && column[4].as_deref() == Some("1")
                && columns.iter().filter(|c| c[4].as_deref() != Some("0")).count() == 1;
            let spelled = TYPES
                .iter()
                .find(|(sqlite, _)| *sqlite == declared)
                .map_or(declared.clone(), |(_, pg)| (*pg).to_owned());
            let null =
                if column[2].as_deref() == Some("1") || column[4].as_deref() != Some("0") { " not null" } else { "" };
            let generated = if generated && definition.contains("AUTOINCREMENT") { " generated" } else { "" };
            facts.insert(format!(
                "column {} {spelled}{null}{}{generated}",
                text(&column[0]),
                default_of(column[3].clone())
            ));
            if let Some(position) = column[4].as_deref().filter(|position| *position != "0") {
                key.push((position.to_owned(), text(&column[0])));
            }
        }
        key.sort();
        if !key.is_empty() {
            facts.insert(format!(
                "primary key ({})",
                key.into_iter().map(|(_, name)| name).collect::<Vec<_>>().join(", ")
            ));
        }
        let keys = strings(
            "SELECT id, \"table\", \"from\", \"to\", on_delete FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
            &name,
        );
        let mut foreign: BTreeMap<String, (String, Vec<String>, Vec<String>, String)> = BTreeMap::new();
        for key in &keys {
            let entry =
                foreign.entry(text(&key[0])).or_insert_with(|| (text(&key[1]), Vec::new(), Vec::new(), text(&key[4])));
            entry.1.push(text(&key[2]));
            entry.2.push(text(&key[3]));
        }
        for (table, from, to, on_delete) in foreign.into_values() {
            facts.insert(format!(
                "foreign key ({}) references {table} ({}) on delete {}",
                from.join(", "),
                to.join(", "),
                on_delete.to_lowercase()
            ));
        }
        for check in checks(&definition) {
            facts.insert(format!("check {}", folded(&check)));
        }
        let indexes = strings("SELECT name, \"unique\", origin FROM pragma_index_list(?1)", &name);
        for index in &indexes {
            let index_name = text(&index[0]);
            if index[2].as_deref() == Some("pk") {
                continue;
            }
            let columns =
                strings("SELECT name, \"desc\" FROM pragma_index_xinfo(?1) WHERE key = 1 ORDER BY seqno", &index_name);
            let columns: Vec<String> = columns
                .iter()
                .map(|column| {
                    format!("{}{}", text(&column[0]), if column[1].as_deref() == Some("1") { " desc" } else { "" })
                })
                .collect();
            let unique = if index[1].as_deref() == Some("1") { "unique " } else { "" };
            if index[2].as_deref() == Some("u") {
                facts.insert(format!("unique ({})", columns.join(", ")));
                continue;
            }
            let sql = strings("SELECT sql FROM sqlite_schema WHERE name = ?1", &index_name);
            let sql = sql.first().map(|row| text(&row[0])).unwrap_or_default();
            let predicate = sql
                .to_lowercase()
                .split_once(" where ")
                .map(|(_, predicate)| format!(" where {}", folded(predicate)))
                .unwrap_or_default();
            facts.insert(format!("{unique}index {index_name} ({}){predicate}", columns.join(", ")));
        }
    }
    schema
}

/// The CHECK expressions of a table's definition.
fn checks(definition: &str) -> Vec<String> {
    let mut found = Vec::new();
    let upper = definition.to_uppercase();
    let mut from = 0;
    while let Some(at) = upper[from..].find("CHECK") {
        let start = from + at + "CHECK".len();
        let Some(open) = definition[start..].find('(').map(|open| start + open) else { break };
        let mut depth = 0;
        let mut end = open;
        for (offset, character) in definition[open..].char_indices() {
            match character {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + offset;
                        break;
                    }
                }
                _ => {}
            }
        }
        found.push(definition[open + 1..end].to_owned());
        from = end;
    }
    found
}

#[cfg(feature = "postgres")]
async fn postgres_schema(admin: &str) -> Schema {
    let (client, connection) =
        tokio_postgres::connect(admin, tokio_postgres::NoTls).await.expect("the cluster answers");
    tokio::spawn(connection);
    let name = format!("schema_{}", std::process::id());
    for statement in [format!("DROP DATABASE IF EXISTS {name}"), format!("CREATE DATABASE {name}")] {
        client.batch_execute(&statement).await.expect("a database");
    }
    let (server, _) = admin.rsplit_once('/').expect("an address with a database");
    let url = format!("{server}/{name}");
    Store::open(&Location::Postgres(url.clone())).await.expect("PostgreSQL migrates");
    let (database, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("the database");
    tokio::spawn(connection);
    let rows = |sql: &'static str| {
        let database = &database;
        async move {
            database
                .query(sql, &[])
                .await
                .expect(sql)
                .iter()
                .map(|row| (0..row.len()).map(|index| row.get::<_, Option<String>>(index)).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        }
    };
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    let mut schema = Schema::new();
    for column in rows(
        "SELECT table_name::text, column_name::text, data_type::text, is_nullable::text, column_default::text,
                is_identity::text
         FROM information_schema.columns WHERE table_schema = current_schema()",
    )
    .await
    {
        let null = if column[3].as_deref() == Some("NO") { " not null" } else { "" };
        let generated = if column[5].as_deref() == Some("YES") { " generated" } else { "" };
        schema.entry(text(&column[0])).or_default().insert(format!(
            "column {} {}{null}{}{generated}",
            text(&column[1]),
            text(&column[2]),
            default_of(column[4].clone())
        ));
    }
    for constraint in rows(
        "SELECT c.conrelid::regclass::text, c.contype::text, pg_get_constraintdef(c.oid, true)
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
         WHERE n.nspname = current_schema()",
    )
    .await
    {
        let definition = text(&constraint[2]);
        let fact = match constraint[1].as_deref() {
            Some("p") => definition.to_lowercase(),
            Some("u") => definition.to_lowercase(),
            Some("f") => {
                let lower = definition.to_lowercase().replace('(', " (");
                let lower = lower.split_whitespace().collect::<Vec<_>>().join(" ");
                let on_delete =
                    lower.split_once(" on delete ").map_or("no action".to_owned(), |(_, action)| action.to_owned());
                let head = lower.split(" on delete ").next().unwrap_or_default().to_owned();
                format!("{head} on delete {on_delete}")
            }
            Some("c") => format!("check {}", folded(definition.trim_start_matches("CHECK").trim())),
            _ => continue,
        };
        schema.entry(text(&constraint[0])).or_default().insert(fact);
    }
    for index in rows(
        "SELECT t.relname::text, i.relname::text, x.indisunique::text, pg_get_indexdef(x.indexrelid),
                pg_get_expr(x.indpred, x.indrelid)
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         WHERE n.nspname = current_schema() AND NOT x.indisprimary
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)",
    )
    .await
    {
        let definition = text(&index[3]);
        let columns = definition.split_once(" USING btree (").map_or("", |(_, rest)| rest);
        let columns = columns.split(") WHERE").next().unwrap_or_default().trim_end_matches(')').to_lowercase();
        let unique = if index[2].as_deref() == Some("true") { "unique " } else { "" };
        let predicate =
            index[4].as_deref().map(|predicate| format!(" where {}", folded(predicate))).unwrap_or_default();
        schema
            .entry(text(&index[0]))
            .or_default()
            .insert(format!("{unique}index {} ({columns}){predicate}", text(&index[1])));
    }
    drop(database);
    let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
    schema
}

#[cfg(not(feature = "postgres"))]
async fn postgres_schema(_admin: &str) -> Schema {
    panic!("this build has no PostgreSQL (the `postgres` feature is off)")
}
