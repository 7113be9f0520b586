//! Discovery on a large directory: generation and load times, and p50/p99 of descriptor,
//! address and position lookups. Writes its figures into BENCHMARKS.md (between the
//! `discovery` markers) with the machine and the command.
//!
//! `cargo run --release -p subscriber-server --example bench_discovery -- [merchants] [BENCHMARKS.md]`
//! (`make bench-discovery` runs it on 1,000,000 merchants.)

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use subscriber_server::directory::descriptor::{cut, split_prefix};
use subscriber_server::directory::generate::{self, ID_BASE};
use subscriber_server::directory::search::AddressQuery;
use subscriber_server::directory::{Directory, Query};
use subscriber_server::simulation::history::{self, HistoryInput};
use subscriber_server::storage::Store;

const SEED: u64 = 20_261_122;
const LOOKUPS: usize = 2_000;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let size: u32 = args.next().map(|text| text.parse()).transpose()?.unwrap_or(1_000_000);
    let report: Option<PathBuf> = args.next().map(PathBuf::from);
    let machine = machine();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let dir = tempfile::tempdir()?;
    let database = dir.path().join("bench.sqlite3");

    let db = runtime.block_on(Store::open(&database.clone().into()))?;
    let started = Instant::now();
    let directory = runtime.block_on(Directory::open(&db, SEED, size))?;
    let first_start = started.elapsed();
    let started = Instant::now();
    let entries = generate::generate(SEED, size, &mut subscriber_server::directory::Interner::default());
    let generation = started.elapsed();
    let started = Instant::now();
    let indexed = Directory::from_entries(entries);
    let indexing = started.elapsed();
    drop(indexed);
    let started = Instant::now();
    let reloaded = runtime.block_on(Directory::open(&db, SEED, size))?;
    let restart = started.elapsed();
    drop(reloaded);
    println!(
        "directory of {size}: generated {generation:?}, indexed {indexing:?}; first start {first_start:?}; restart {restart:?}"
    );

    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let sample = |rng: &mut ChaCha8Rng| {
        directory
            .get(subscriber_protocol::DirectoryEntryId(ID_BASE + rng.random_range(1..=i64::from(size))))
            .expect("directory merchant")
    };
    let mut descriptor_times = Vec::with_capacity(LOOKUPS);
    let mut descriptor_hits = 0;
    for _ in 0..LOOKUPS {
        let merchant = sample(&mut rng);
        let text = match rng.random_range(0..4) {
            0 => merchant.descriptor.to_lowercase(),
            1 => merchant.descriptor.replace(' ', ""),
            2 => match split_prefix(&merchant.descriptor) {
                (Some(_), rest) => rest.to_owned(),
                (None, rest) => cut(format!("SQ *{rest}")),
            },
            // A narrower statement field; store numbers are printed in full.
            _ => {
                let keep = merchant.descriptor.rfind(|c: char| c.is_ascii_digit()).map_or(0, |last| last + 1);
                merchant.descriptor.chars().take(keep.max(18)).collect()
            }
        };
        let query = Query::Descriptor { text, exact: false };
        let started = Instant::now();
        let found = directory.search(&query, 10);
        descriptor_times.push(started.elapsed());
        descriptor_hits += usize::from(found.iter().take(3).any(|candidate| candidate.merchant.id == merchant.id));
    }
    let mut address_times = Vec::with_capacity(LOOKUPS);
    for _ in 0..LOOKUPS {
        let merchant = sample(&mut rng);
        let address = if rng.random_bool(0.5) {
            AddressQuery {
                street: Some(merchant.street.clone()),
                street_no: Some(merchant.street_no.clone()),
                zip: Some(merchant.zip.clone()),
                country: Some(merchant.country.clone()),
                ..AddressQuery::default()
            }
        } else {
            AddressQuery {
                street: Some(merchant.street.clone()),
                street_no: Some(merchant.street_no.clone()),
                city: Some(merchant.city.clone()),
                country: Some(merchant.country.clone()),
                ..AddressQuery::default()
            }
        };
        let started = Instant::now();
        let _found = directory.search(&Query::Address(address), 10);
        address_times.push(started.elapsed());
    }
    let mut position_times = Vec::with_capacity(LOOKUPS);
    for _ in 0..LOOKUPS {
        let merchant = sample(&mut rng);
        let radius = [250.0, 1_000.0, 5_000.0][rng.random_range(0..3)];
        let query = Query::Position { latitude: merchant.latitude, longitude: merchant.longitude, radius };
        let started = Instant::now();
        let _found = directory.search(&query, 10);
        position_times.push(started.elapsed());
    }
    // A sandbox card's 36-month history on this directory (the work enrollment does before
    // inserting the rows).
    let mut history_times = Vec::new();
    let mut history_rows = 0;
    for card in 0..50u32 {
        let input = HistoryInput {
            seed: SEED,
            fingerprint: card.to_le_bytes().to_vec(),
            last_four: 4242,
            country_code: ["USA", "USA", "USA", "DEU", "FRA"][card as usize % 5].to_owned(),
            enrolled_at: subscriber_protocol::UnixSeconds(1_790_000_000 + i64::from(card) * 3600),
        };
        let started = Instant::now();
        history_rows += history::generate(&directory, &input).len();
        history_times.push(started.elapsed());
    }
    let rows = [
        ("descriptor (`merchid`, fuzzy)", percentiles(&mut descriptor_times)),
        ("address (street, number, zip or city)", percentiles(&mut address_times)),
        ("position (radius 250 m to 5 km)", percentiles(&mut position_times)),
        ("a card's 36-month history (50 cards)", percentiles(&mut history_times)),
    ];
    let hit_rate = descriptor_hits as f64 / LOOKUPS as f64 * 100.0;
    let mut section = String::new();
    section.push_str("## Merchant discovery\n\n");
    section.push_str(&format!(
        "Command: `make bench-discovery` (`cargo run --release -p subscriber-server --example bench_discovery -- {size}`).\n\
         Machine: {machine}.\n\n"
    ));
    section.push_str(&format!(
        "Directory of {size} merchants (seed {SEED}): generated in {}, indexed in {}; first start \
         (generate, store in SQLite, index) {}; restart (load from SQLite, index) {}. A card history has \
         {} transactions on average.\n\n",
        seconds(generation),
        seconds(indexing),
        seconds(first_start),
        seconds(restart),
        history_rows / 50
    ));
    section.push_str(&format!(
        "{LOOKUPS} lookups of each kind in the service's directory (in process: the HTTP layer adds its own \
         fraction of a millisecond). Descriptors are drawn from the directory and varied (lower case, no spaces, \
         processor prefix added or dropped, cut to 18 characters but for store numbers); the right merchant was \
         in the top 3 for {hit_rate:.1}% (at a million merchants many independent names repeat from town to town, \
         which a descriptor without its town cannot tell apart).\n\n| lookup | p50 | p99 |\n|---|---|---|\n"
    ));
    for (name, (p50, p99)) in rows {
        section.push_str(&format!("| {name} | {} | {} |\n", millis(p50), millis(p99)));
    }
    section.push_str("\nTarget: p99 ≤ 10 ms for descriptor lookups.\n");
    println!("{section}");
    if let Some(path) = report {
        write_section(&path, &section)?;
        println!("written to {}", path.display());
    }
    Ok(())
}

fn percentiles(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    let at = |fraction: f64| {
        let index = ((times.len() as f64 * fraction).ceil() as usize).saturating_sub(1);
        times[index.min(times.len() - 1)]
    };
    (at(0.50), at(0.99))
}

fn millis(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name").and_then(|rest| rest.split(':').nth(1)))
        .map_or_else(|| "unknown CPU".to_owned(), |model| model.trim().to_owned());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory_kb: u64 = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0);
    let memory = memory_kb as f64 / 1024.0 / 1024.0;
    // The machine is shared: the load says how much of it the run had.
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?").to_owned();
    format!("{cpus} CPUs (nproc), {model}, {memory:.0} GiB RAM; load average {load} at the start of the run")
}

/// Replaces the text between the discovery markers (the markers `bench/common.py` uses for
/// its sections), or appends it.
fn write_section(path: &PathBuf, section: &str) -> anyhow::Result<()> {
    const BEGIN: &str = "<!-- discovery:start -->";
    const END: &str = "<!-- discovery:end -->";
    let existing = std::fs::read_to_string(path).unwrap_or_else(|_| {
        "# Benchmarks\n\nEach section says the machine and the command that produced it.\n".to_owned()
    });
    let block = format!("{BEGIN}\n{section}{END}");
    let updated = match (existing.find(BEGIN), existing.find(END)) {
        (Some(begin), Some(end)) if end > begin => {
            format!("{}{block}{}", &existing[..begin], &existing[end + END.len()..])
        }
        _ => format!("{}\n{block}\n", existing.trim_end()),
    };
    std::fs::write(path, updated)?;
    Ok(())
}
