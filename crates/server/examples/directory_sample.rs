//! Prints a sample of the sandbox directory (a look at what the generator makes).
//! `cargo run -p subscriber-server --example directory_sample -- [size] [seed]`

use subscriber_server::directory::search::AddressQuery;
use subscriber_server::directory::{Directory, Query};

fn main() {
    let mut args = std::env::args().skip(1);
    let size: u32 = args.next().and_then(|text| text.parse().ok()).unwrap_or(2000);
    let seed: u64 = args.next().and_then(|text| text.parse().ok()).unwrap_or(20_261_122);
    let directory = Directory::generate(seed, size);
    for id in (1..=40).map(|n| subscriber_server::directory::generate::ID_BASE + n * i64::from(size / 41).max(1)) {
        if let Some(m) = directory.get(id) {
            println!(
                "{:<24} | {:<32} | {} | {} {}, {} {:?} {} | {} | {:.4},{:.4}",
                m.descriptor,
                m.dba_name,
                m.mcc,
                m.street_no,
                m.street,
                m.zip,
                m.region,
                m.city,
                m.phone,
                m.latitude,
                m.longitude
            );
        }
    }
    let _ = (Query::Address(AddressQuery::default()),);
}
