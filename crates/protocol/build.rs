//! The OpenAPI document describes a typed id (`CardId`, …) as the integer it wraps, as the
//! wire has it: utoipa reads these aliases from `OUT_DIR` while it derives the schemas. The ids
//! are read from `src/ids.rs` (the `integer_newtype!` list, a line `    Name;` each), so a new one
//! needs no second list.

use std::fs;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/ids.rs");
    let ids = fs::read_to_string("src/ids.rs").expect("src/ids.rs is readable");
    let names: Vec<&str> = ids
        .lines()
        .filter_map(|line| line.strip_prefix("    ")?.strip_suffix(';'))
        .filter(|name| !name.is_empty() && name.chars().all(char::is_alphanumeric) && name.ends_with("Id"))
        .collect();
    assert!(names.contains(&"CardId"), "no ids found in src/ids.rs: {names:?}");
    let config = names.iter().fold(utoipa_config::Config::new(), |config, id| config.alias_for(id, "i64"));
    config.write_to_file();
}
