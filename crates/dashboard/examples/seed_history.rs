//! Gives a sandbox card a long history for `make bench-dashboard`: copies the card's own
//! generated transactions (real directory merchants) until it has `--rows` of them, spread over
//! the 36 months the service serves. Run while the app is closed.
//!
//! `seed_history --database sandbox.sqlite3 --card-id 1 --rows 100000`

use std::path::PathBuf;

use anyhow::{Context, bail};
use subscriber_server::storage::Store;
use subscriber_server::storage::transactions::{Filter, Owner};

const SPAN_SECONDS: i64 = 35 * 30 * 24 * 3600;

fn flag(name: &str) -> anyhow::Result<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|arg| arg == name)
        .and_then(|index| args.get(index + 1).cloned())
        .with_context(|| format!("missing {name}: seed_history --database PATH --card-id ID --rows N"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let database = PathBuf::from(flag("--database")?);
    let card_id: subscriber_protocol::CardId = flag("--card-id")?.parse().context("--card-id is a number")?;
    let target: usize = flag("--rows")?.parse().context("--rows is a number")?;
    let db = Store::open(&database.clone().into()).await?;
    let existing = db.transactions_page(Owner::Card(card_id), Filter::default(), 100_000).await?;
    if existing.is_empty() {
        bail!("card {card_id} has no transactions to copy in {}", database.display());
    }
    let missing = target.saturating_sub(existing.len());
    let now = subscriber_protocol::UnixSeconds::now();
    let step = SPAN_SECONDS / i64::try_from(missing.max(1)).unwrap_or(i64::MAX);
    let copies: Vec<_> = (0..missing)
        .map(|index| {
            let template = &existing[index % existing.len()];
            let offset = i64::try_from(index).unwrap_or(0) * step;
            let mut row = template.clone();
            row.created_at = subscriber_protocol::UnixSeconds(now.get() - 3 * 24 * 3600 - offset);
            row.pending = false;
            row.settles_at = None;
            row
        })
        .collect();
    for chunk in copies.chunks(10_000) {
        db.insert_history(chunk.to_vec()).await?;
    }
    println!("card {card_id}: {} transactions ({} copied)", existing.len() + missing, missing);
    Ok(())
}
