//! The sandbox's background point-of-sale: `--simulate-rate` purchases a minute, by enrolled
//! cards and by a synthetic population, at enrolled locations and directory merchants.

use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::time::MissedTickBehavior;

use super::purchase::{self, Buyer, Shop};
use crate::error::ApiError;
use crate::http::idempotency::Idempotent;
use crate::lease::Lease;
use crate::state::AppState;

/// Makes `per_minute` purchases a minute until the task is aborted, while this instance holds
/// the simulator's lease: instances on one database make `per_minute` together, not each.
pub async fn run(state: AppState, per_minute: u32) {
    if per_minute == 0 {
        return;
    }
    let mut tick = tokio::time::interval(Duration::from_secs_f64(60.0 / f64::from(per_minute)));
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut rng = StdRng::from_os_rng();
    tracing::info!(per_minute, "sandbox purchase simulator started");
    let mut lease = Lease::new("sandbox simulator");
    loop {
        tick.tick().await;
        if !lease.held(&state.db).await {
            continue;
        }
        if let Err(error) = simulate_one(&state, &mut rng).await {
            tracing::warn!(error = %error, "simulated purchase failed");
        }
    }
}

/// One purchase: half by an enrolled card (when there is one), half by a synthetic card; half
/// at an enrolled location (when there is one), half at a directory merchant.
pub async fn simulate_one(state: &AppState, rng: &mut StdRng) -> Result<(), ApiError> {
    let card_pick = rng.random::<u64>();
    let location_pick = rng.random::<u64>();
    let by_enrolled_card = rng.random_bool(0.5);
    let at_enrolled_location = rng.random_bool(0.5);
    let card = async { if by_enrolled_card { state.db.pick_card(card_pick).await } else { Ok(None) } };
    let (card, location) = futures::join!(card, state.db.pick_any_location(location_pick));
    let (card, location) = (card?, location?);
    // A synthetic card anywhere but at an enrolled location: nobody could see the purchase.
    // Skipped before the directory is asked, so a sandbox nobody has enrolled anything in
    // never loads it for the simulator.
    if card.is_none() && !(at_enrolled_location && location.is_some()) {
        return Ok(());
    }
    let buyer = match card {
        Some((card_id, last_four)) => Buyer { card_id: Some(card_id), last_four },
        None => Buyer::synthetic(rng),
    };
    let from_directory = if at_enrolled_location && location.is_some() {
        None
    } else {
        state.directory.get().await.map_err(ApiError::internal)?.random_merchant(rng)
    };
    let shop = match (from_directory, location) {
        (Some(merchant), _) => Shop::from_directory(merchant),
        (None, Some((location, merchant))) => Shop::at_location(&location, &merchant),
        (None, None) => Shop::generated(rng, None),
    };
    let amount_minor = purchase::random_amount_minor(rng);
    // Nobody asked for this purchase: there is no response to replay.
    purchase::record(state, purchase::Sale::now(buyer, shop, amount_minor), Idempotent::none(), |_| Ok(())).await?;
    Ok(())
}
