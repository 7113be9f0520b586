//! The sandbox merchant directory: merchants generated once from a seed into the database,
//! plus the enrolled merchants' locations, held in memory with the index discovery searches
//! (see [`search`] for why in memory), grouped into [`brands`], which the [`matcher`] finds
//! from what a card network sends.

pub mod brands;
pub mod catalog;
pub mod descriptor;
pub mod generate;
pub mod intermediaries;
pub mod matcher;
pub mod search;

use std::sync::Arc;
use std::time::Instant;
use subscriber_protocol::UnixSeconds;

use parking_lot::RwLock;
use rand::RngCore;
use subscriber_protocol::{Confidence, CounterpartyType, DirectoryEntryId, LocationId, MatchReason};

use crate::reference::places;
pub use crate::storage::directory::{DirectoryMerchant, Entry, Interner};
use crate::storage::{self, Store};
use brands::Brands;
use intermediaries::Platform;
use matcher::NetworkData;
use search::{AddressQuery, Hit, SearchIndex};

impl Entry {
    pub fn to_merchant(&self) -> DirectoryMerchant {
        DirectoryMerchant {
            id: self.id,
            dba_name: self.dba_name.to_string(),
            descriptor: self.descriptor.to_string(),
            mcc: format!("{:04}", self.mcc),
            street: self.street.to_string(),
            street_no: self.street_no.to_string(),
            city: self.city.to_string(),
            region: self.region.as_deref().map(str::to_owned),
            country: self.country.to_string(),
            zip: self.zip.to_string(),
            phone: self.phone,
            latitude: self.latitude,
            longitude: self.longitude,
            currency: self.currency.to_string(),
            merchant_id: self.merchant_id,
            location_id: self.location_id,
        }
    }

    fn from_merchant(merchant: DirectoryMerchant, interner: &mut Interner) -> Self {
        Self {
            id: merchant.id,
            dba_name: merchant.dba_name.into(),
            descriptor: merchant.descriptor.into(),
            mcc: merchant.mcc.trim().parse().unwrap_or(0),
            street: interner.get(&merchant.street),
            street_no: merchant.street_no.into(),
            city: interner.get(&merchant.city),
            region: merchant.region.as_deref().map(|region| interner.get(region)),
            country: interner.get(&merchant.country),
            zip: interner.get(&merchant.zip),
            phone: merchant.phone,
            latitude: merchant.latitude,
            longitude: merchant.longitude,
            currency: interner.get(&merchant.currency),
            merchant_id: merchant.merchant_id,
            location_id: merchant.location_id,
            retired: false,
        }
    }
}

/// The entries and their indexes. Generated merchants and enrolled locations are indexed
/// apart: card histories are drawn from the generated directory alone (deterministic for a
/// seed, and never a subscriber's shop), so they get an index of exactly those entries, while
/// discovery searches both.
#[derive(Default)]
struct Inner {
    entries: Vec<Entry>,
    /// The first `generated` entries are the generated directory; enrolled locations follow.
    generated: usize,
    /// Indexes `entries[..generated]` only.
    generated_index: SearchIndex,
    /// The spending group of each generated merchant, worked out once (the sandbox's card
    /// histories look it up for every neighbour of a home).
    generated_groups: Vec<Option<catalog::Group>>,
    /// Indexes the enrolled locations, by their position in `entries` (all `>= generated`).
    enrolled_index: SearchIndex,
    /// Every entry's brand, and the platforms' own.
    brands: Brands,
    interner: Interner,
}

/// What discovery and enrichment both show of a merchant.
impl DirectoryMerchant {
    /// The postal address as the merchant's country writes it.
    pub fn postal_address(&self) -> String {
        places::postal_address(
            &self.street,
            &self.street_no,
            &self.city,
            self.region.as_deref(),
            &self.zip,
            &self.country,
        )
    }

    /// The `locationId` the API shows: an enrolled location's own, else the directory's id.
    pub fn location_id(&self) -> LocationId {
        self.location_id.unwrap_or(LocationId(self.id.get()))
    }
}

impl Inner {
    fn push_generated(&mut self, entry: Entry) {
        debug_assert_eq!(self.generated, self.entries.len(), "generated merchants come before enrolled ones");
        let group = catalog::group_of(entry.mcc, &entry.dba_name);
        if self.push(entry, |inner| &mut inner.generated_index) {
            self.generated = self.entries.len();
            self.generated_groups.push(group);
        }
    }

    fn push_enrolled(&mut self, entry: Entry) {
        self.push(entry, |inner| &mut inner.enrolled_index);
    }

    fn push(&mut self, entry: Entry, index_of: impl FnOnce(&mut Self) -> &mut SearchIndex) -> bool {
        let Ok(position) = u32::try_from(self.entries.len()) else {
            tracing::warn!("the directory is full: a merchant was not added");
            return false;
        };
        index_of(self).add(position, &entry);
        self.brands.add(position, &entry);
        self.entries.push(entry);
        true
    }

    fn view(&self) -> matcher::View<'_> {
        matcher::View {
            entries: &self.entries,
            brands: &self.brands,
            indexes: [&self.generated_index, &self.enrolled_index],
        }
    }

    fn brand_info(&self, brand: u32) -> Option<BrandInfo> {
        self.brands.get(brand).map(BrandInfo::of)
    }

    fn brand_of_entry(&self, position: u32) -> Option<BrandInfo> {
        self.brand_info(self.brands.of_entry(position)?)
    }

    /// Discovery by descriptor: the matcher's brands and their locations, best first, then
    /// what the trigram search alone finds (a word such as `COFFEE` names no brand but many
    /// merchants), each no surer than the one before.
    fn search_descriptor(&self, text: &str, limit: usize) -> Vec<(Hit, Option<Confidence>, Vec<MatchReason>)> {
        let outcome = self.view().find(&NetworkData { descriptor: text.to_owned(), ..NetworkData::default() });
        let mut found: Vec<(Hit, Option<Confidence>, Vec<MatchReason>)> = Vec::new();
        let mut ceiling = 100.0_f64;
        for brand in &outcome.ranked {
            let best_odds = brand.locations.first().map_or(0.0, |(_, odds)| *odds);
            for (position, odds) in &brand.locations {
                if found.len() >= limit {
                    break;
                }
                let exact = brand.reasons.contains(&MatchReason::DescriptorExact) && Some(*position) == brand.location;
                let behind = (best_odds - odds).max(0.0);
                let score = if exact { 100.0 } else { (f64::from(brand.score) - (10.0 * behind).min(40.0)).max(1.0) };
                let score = score.min(ceiling);
                ceiling = score;
                let mut reasons = brand.reasons.clone();
                if Some(*position) != brand.location {
                    reasons.retain(|reason| !matches!(reason, MatchReason::StoreNumber | MatchReason::DescriptorExact));
                }
                found.push((
                    Hit { index: *position, score: score / 100.0, distance: None },
                    Some(Confidence::of_score(score as u8)),
                    reasons,
                ));
            }
        }
        if found.len() < limit {
            let query = Query::Descriptor { text: text.to_owned(), exact: false };
            for hit in self.search(&query, limit) {
                if found.len() >= limit {
                    break;
                }
                if found.iter().any(|(known, _, _)| known.index == hit.index) {
                    continue;
                }
                let score = (hit.score * 100.0).min(ceiling).min(60.0).floor();
                ceiling = score;
                let hit = Hit { score: score / 100.0, ..hit };
                found.push((hit, Some(Confidence::of_score(score as u8)), vec![MatchReason::DescriptorFuzzy]));
            }
        }
        found
    }

    /// The best `limit` hits of both indexes, as one index would rank them.
    fn search(&self, query: &Query, limit: usize) -> Vec<Hit> {
        let entries = &self.entries;
        let of = |index: &SearchIndex| match query {
            Query::Descriptor { text, exact } => index.by_descriptor(entries, text, *exact, limit),
            Query::Address(address) => index.by_address(entries, address, limit),
            Query::Position { latitude, longitude, radius } => {
                index.by_position(entries, *latitude, *longitude, *radius, limit)
            }
        };
        let mut hits = of(&self.generated_index);
        hits.extend(of(&self.enrolled_index));
        match query {
            // The one merchant printing exactly this; a generated one first, as ever.
            Query::Descriptor { exact: true, .. } => hits.truncate(1),
            Query::Descriptor { .. } | Query::Address(_) => search::rank(&mut hits, entries, limit),
            Query::Position { .. } => search::nearest_first(&mut hits, limit),
        }
        hits
    }
}

/// The directory as the running service holds it.
#[derive(Default)]
pub struct Directory {
    inner: RwLock<Inner>,
}

/// The directory of a running service, loaded on first use: the card histories, discovery,
/// the simulator and location enrollment wait for it, everything else never does. The
/// dashboard's embedded sandbox shows its sign-in screen and settles without it (50,000
/// merchants and their indexes are about 40 MB and half a second of a two-core machine's
/// start); the standalone service loads it in the background as soon as it serves.
pub struct LazyDirectory {
    db: Store,
    seed: u64,
    size: u32,
    loaded: tokio::sync::OnceCell<Arc<Directory>>,
}

impl LazyDirectory {
    pub fn new(db: Store, seed: u64, size: u32) -> Self {
        Self { db, seed, size, loaded: tokio::sync::OnceCell::new() }
    }

    /// The directory, loading it first if nobody has yet. Callers that come while it loads
    /// wait for that one load; a failed load is tried again by the next caller.
    pub async fn get(&self) -> anyhow::Result<Arc<Directory>> {
        let directory = self
            .loaded
            .get_or_try_init(|| async { Directory::open(&self.db, self.seed, self.size).await.map(Arc::new) })
            .await?;
        Ok(Arc::clone(directory))
    }

    /// The directory if it is loaded, without loading it.
    pub fn if_loaded(&self) -> Option<Arc<Directory>> {
        self.loaded.get().cloned()
    }
}

/// The generated directory as the sandbox's card histories read it.
#[derive(Clone, Copy)]
pub(crate) struct Generated<'a> {
    pub entries: &'a [Entry],
    pub index: &'a SearchIndex,
    /// `groups[i]` is the spending group of `entries[i]`.
    pub groups: &'a [Option<catalog::Group>],
}

/// What discovery asks the directory.
#[derive(Debug, Clone)]
pub enum Query {
    Descriptor { text: String, exact: bool },
    Address(AddressQuery),
    Position { latitude: f64, longitude: f64, radius: f64 },
}

/// A merchant found, with its score (0 to 1) and distance in metres for position searches.
#[derive(Debug, Clone)]
pub struct Found {
    pub merchant: DirectoryMerchant,
    pub score: f64,
    pub distance: Option<f64>,
    /// The merchant's brand.
    pub brand: Option<BrandInfo>,
    /// For a search by descriptor: how sure the match is, and why.
    pub confidence: Option<Confidence>,
    pub reasons: Vec<MatchReason>,
}

/// A brand, as a counterparty shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct BrandInfo {
    /// `brd_` and 16 hex digits.
    pub id: String,
    pub name: String,
    pub kind: CounterpartyType,
    pub website: Option<String>,
    /// The brand's merchant category code (0 for a platform).
    pub mcc: u16,
    pub group: Option<catalog::Group>,
    /// Set for a platform's own brand.
    pub platform: Option<&'static Platform>,
}

impl BrandInfo {
    fn of(brand: &brands::Brand) -> Self {
        Self {
            id: brand.id.to_string(),
            name: brand.name.to_string(),
            kind: brand.kind,
            website: brand.website.as_deref().map(str::to_owned),
            mcc: brand.mcc,
            group: brand.group,
            platform: brand.platform,
        }
    }

    /// Where its logo is served, on this service.
    pub fn logo_url(&self) -> String {
        brands::logo_url(&self.id)
    }
}

/// The counterparty the matcher found for a transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterpartyFound {
    pub brand: BrandInfo,
    /// The location, when the descriptor or the fields tell which one.
    pub location: Option<DirectoryMerchant>,
    /// The trading name: the location's, else the brand's.
    pub name: String,
    pub score: u8,
    pub confidence: Confidence,
    pub reasons: Vec<MatchReason>,
}

/// What the matcher found for a transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    /// The intermediaries the descriptor names, in the order printed.
    pub intermediaries: Vec<&'static Platform>,
    pub counterparty: Option<CounterpartyFound>,
}

impl Directory {
    /// A directory of the given merchants (generated or loaded), indexed.
    pub fn from_entries(entries: Vec<Entry>) -> Self {
        let mut inner = Inner::default();
        inner.entries.reserve(entries.len());
        for entry in entries {
            inner.push_generated(entry);
        }
        Self { inner: RwLock::new(inner) }
    }

    /// The directory of `seed` and `size` without a database (tests, benchmarks).
    pub fn generate(seed: u64, size: u32) -> Self {
        let mut interner = Interner::default();
        let entries = generate::generate(seed, size, &mut interner);
        let directory = Self::from_entries(entries);
        directory.inner.write().interner = interner;
        directory
    }

    /// Loads the directory stored in the database, or generates it there when the database
    /// holds none of this seed and size (first start). Then adds the enrolled locations.
    pub async fn open(db: &Store, seed: u64, size: u32) -> anyhow::Result<Self> {
        let started = Instant::now();
        let stored = db.directory_state().await?;
        let wanted = storage::directory::DirectoryState {
            seed: seed as i64,
            size: i64::from(size),
            version: generate::GENERATOR_VERSION,
        };
        let directory = if stored.as_ref() == Some(&wanted) {
            let (entries, interner) = db.load_directory().await?;
            let directory = tokio::task::spawn_blocking(move || {
                let directory = Self::from_entries(entries);
                directory.inner.write().interner = interner;
                directory
            })
            .await?;
            tracing::info!(merchants = size, elapsed_ms = started.elapsed().as_millis(), "merchant directory loaded");
            directory
        } else {
            let (entries, interner) = tokio::task::spawn_blocking(move || {
                let mut interner = Interner::default();
                let entries = generate::generate(seed, size, &mut interner);
                (entries, interner)
            })
            .await?;
            let entries = Arc::new(entries);
            let to_store = Arc::clone(&entries);
            let now = UnixSeconds::now();
            db.replace_directory(wanted, to_store, now).await?;
            let entries = Arc::try_unwrap(entries).unwrap_or_else(|shared| (*shared).clone());
            let directory = tokio::task::spawn_blocking(move || {
                let directory = Self::from_entries(entries);
                directory.inner.write().interner = interner;
                directory
            })
            .await?;
            tracing::info!(
                merchants = size,
                seed,
                elapsed_ms = started.elapsed().as_millis(),
                "merchant directory generated"
            );
            directory
        };
        match db.enrolled_locations().await {
            Ok(locations) => {
                for location in locations {
                    directory.add_enrolled_location(location);
                }
            }
            Err(error) => tracing::warn!(error = %error, "enrolled locations not added to the directory"),
        }
        Ok(directory)
    }

    /// Makes an enrolled merchant's new location findable by discovery at once. Adding a
    /// location again replaces what the directory knew of it.
    pub fn add_enrolled_location(&self, location: DirectoryMerchant) {
        let mut location = location;
        if location.descriptor.trim().is_empty() {
            location.descriptor = descriptor_for_location(&location.dba_name, &location.city);
        }
        if location.currency.trim().is_empty() {
            location.currency = places::currency_of(&location.country).to_owned();
        }
        if location.region.is_none() {
            location.region =
                places::locate(&location.country, &location.city, &location.zip).and_then(|place| place.region);
        }
        let mut inner = self.inner.write();
        let generated = inner.generated;
        let location_id = location.location_id;
        if location_id.is_some() {
            for entry in &mut inner.entries[generated..] {
                if entry.location_id == location_id && !entry.retired {
                    entry.retired = true;
                }
            }
        }
        let entry = Entry::from_merchant(location, &mut inner.interner);
        inner.push_enrolled(entry);
    }

    /// The enrolled locations the directory finds.
    pub fn enrolled_location_ids(&self) -> Vec<LocationId> {
        let inner = self.inner.read();
        inner.entries[inner.generated..]
            .iter()
            .filter(|entry| !entry.retired)
            .filter_map(|entry| entry.location_id)
            .collect()
    }

    /// Whether the enrolled location is in the directory (and not retired).
    pub fn knows_location(&self, location_id: LocationId) -> bool {
        let inner = self.inner.read();
        inner.entries[inner.generated..].iter().any(|entry| entry.location_id == Some(location_id) && !entry.retired)
    }

    /// Enrolled locations that no longer exist (a sandbox reset) are no longer found.
    pub fn retire_enrolled_locations(&self, location_ids: &[LocationId]) {
        let mut inner = self.inner.write();
        let generated = inner.generated;
        for entry in &mut inner.entries[generated..] {
            if entry.location_id.is_some_and(|id| location_ids.contains(&id)) {
                entry.retired = true;
            }
        }
    }

    /// A merchant for a simulated purchase: one of the generated directory. Enrolled locations
    /// are their subscribers' own: a purchase there is chosen by rules of its own (the
    /// simulator's pick, or the owner naming the location), never by landing on it here.
    pub fn random_merchant(&self, rng: &mut dyn RngCore) -> Option<DirectoryMerchant> {
        let inner = self.inner.read();
        let generated = &inner.entries[..inner.generated];
        if generated.is_empty() {
            return None;
        }
        let index = usize::try_from(rng.next_u64() % generated.len() as u64).unwrap_or(0);
        generated.get(index).map(Entry::to_merchant)
    }

    /// A merchant of the generated directory by its id (what discovery shows as its
    /// `locationId`); an enrolled location is not one.
    pub fn generated_merchant(&self, id: DirectoryEntryId) -> Option<DirectoryMerchant> {
        let inner = self.inner.read();
        let index = usize::try_from(id.get().checked_sub(generate::ID_BASE + 1)?).ok()?;
        inner.entries[..inner.generated].get(index).filter(|entry| entry.id == id).map(Entry::to_merchant)
    }

    /// The merchant with this id (a directory id, or an enrolled location's id).
    pub fn get(&self, id: DirectoryEntryId) -> Option<DirectoryMerchant> {
        let inner = self.inner.read();
        if id.get() > generate::ID_BASE {
            let index = usize::try_from(id.get() - generate::ID_BASE - 1).ok()?;
            return inner.entries.get(index).filter(|entry| entry.id == id).map(Entry::to_merchant);
        }
        inner.entries[inner.generated..]
            .iter()
            .rev()
            .find(|entry| entry.id == id && !entry.retired)
            .map(Entry::to_merchant)
    }

    /// Merchants (generated and enrolled).
    pub fn len(&self) -> usize {
        self.inner.read().entries.iter().filter(|entry| !entry.retired).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Discovery: the best `limit` merchants for a query.
    pub fn search(&self, query: &Query, limit: usize) -> Vec<Found> {
        let inner = self.inner.read();
        let hits: Vec<(Hit, Option<Confidence>, Vec<MatchReason>)> = match query {
            Query::Descriptor { text, exact: false } => inner.search_descriptor(text, limit),
            Query::Descriptor { exact: true, .. } => inner
                .search(query, limit)
                .into_iter()
                .map(|hit| (hit, Some(Confidence::VeryHigh), vec![MatchReason::DescriptorExact]))
                .collect(),
            Query::Address(_) | Query::Position { .. } => {
                inner.search(query, limit).into_iter().map(|hit| (hit, None, Vec::new())).collect()
            }
        };
        hits.into_iter()
            .map(|(hit, confidence, reasons)| Found {
                merchant: inner.entries[hit.index as usize].to_merchant(),
                score: hit.score,
                distance: hit.distance,
                brand: inner.brand_of_entry(hit.index),
                confidence,
                reasons,
            })
            .collect()
    }

    /// The counterparty of each transaction, as a card network describes it (one read of the
    /// directory for all of them).
    pub fn match_transactions(&self, transactions: &[NetworkData]) -> Vec<Matched> {
        let inner = self.inner.read();
        let view = inner.view();
        transactions
            .iter()
            .map(|network| {
                let outcome = view.find(network);
                let counterparty = outcome.best.and_then(|best| {
                    let brand = inner.brand_info(best.brand)?;
                    let location = best.location.map(|position| inner.entries[position as usize].to_merchant());
                    let name =
                        location.as_ref().map_or_else(|| brand.name.clone(), |location| location.dba_name.clone());
                    Some(CounterpartyFound {
                        brand,
                        location,
                        name,
                        score: best.score,
                        confidence: best.confidence,
                        reasons: best.reasons,
                    })
                });
                Matched { intermediaries: outcome.reading.intermediaries, counterparty }
            })
            .collect()
    }

    /// The counterparty of one transaction.
    pub fn match_transaction(&self, network: &NetworkData) -> Matched {
        self.match_transactions(std::slice::from_ref(network))
            .pop()
            .unwrap_or(Matched { intermediaries: Vec::new(), counterparty: None })
    }

    /// The brand with this id.
    pub fn brand(&self, id: &str) -> Option<BrandInfo> {
        let inner = self.inner.read();
        inner.brands.by_id(id).map(|(_, brand)| BrandInfo::of(brand))
    }

    /// Brands (the platforms' own included).
    pub fn brand_count(&self) -> usize {
        self.inner.read().brands.len()
    }

    /// Read access to the generated merchants and their index, which holds exactly those
    /// entries (card histories pick from them).
    pub(crate) fn with_generated<R>(&self, work: impl FnOnce(Generated<'_>) -> R) -> R {
        let inner = self.inner.read();
        work(Generated {
            entries: &inner.entries[..inner.generated],
            index: &inner.generated_index,
            groups: &inner.generated_groups,
        })
    }
}

/// The statement descriptor of an enrolled merchant's location.
pub fn descriptor_for_location(merchant_name: &str, city: &str) -> String {
    descriptor::for_location(merchant_name, city)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enrolled(location_id: LocationId, name: &str, city: &str) -> DirectoryMerchant {
        DirectoryMerchant {
            id: DirectoryEntryId(location_id.get()),
            dba_name: name.to_owned(),
            descriptor: String::new(),
            mcc: "5812".to_owned(),
            street: "Market St".to_owned(),
            street_no: "1".to_owned(),
            city: city.to_owned(),
            region: None,
            country: "USA".to_owned(),
            zip: "94103".to_owned(),
            phone: 14_155_550_100,
            latitude: 37.7725,
            longitude: -122.4091,
            currency: String::new(),
            merchant_id: Some(subscriber_protocol::MerchantId(7)),
            location_id: Some(location_id),
        }
    }

    #[test]
    fn enrolled_locations_are_found_at_once() {
        let directory = Directory::generate(1, 300);
        let query = Query::Descriptor { text: "ZEBRA QUILT SAN FRANCISCO".to_owned(), exact: false };
        assert!(directory.search(&query, 10).iter().all(|found| found.merchant.location_id.is_none()));
        directory.add_enrolled_location(enrolled(LocationId(5), "Zebra Quilt", "San Francisco"));
        let found = directory.search(&query, 10);
        assert_eq!(found[0].merchant.location_id, Some(LocationId(5)), "{found:?}");
        assert_eq!(found[0].merchant.descriptor, "ZEBRA QUILT SAN FRANCI");
        assert_eq!(found[0].merchant.region.as_deref(), Some("CA"));
        assert_eq!(found[0].merchant.currency, "USD");
        let exact = Query::Descriptor { text: "zebra quilt san franci".to_owned(), exact: true };
        assert_eq!(directory.search(&exact, 10).len(), 1);
        assert_eq!(
            directory.get(DirectoryEntryId(5)).map(|merchant| merchant.dba_name),
            Some("Zebra Quilt".to_owned())
        );
        assert_eq!(directory.len(), 301);
    }

    #[test]
    fn a_location_added_again_replaces_the_old_one() {
        let directory = Directory::generate(1, 100);
        directory.add_enrolled_location(enrolled(LocationId(9), "Old Bakery", "Oakland"));
        directory.add_enrolled_location(enrolled(LocationId(9), "New Bakery", "Oakland"));
        let old = Query::Descriptor { text: "OLD BAKERY OAKLAND".to_owned(), exact: true };
        assert!(directory.search(&old, 10).is_empty());
        let new = Query::Descriptor { text: "NEW BAKERY OAKLAND".to_owned(), exact: true };
        assert_eq!(directory.search(&new, 10).len(), 1);
        assert_eq!(directory.len(), 101);
    }

    #[test]
    fn random_merchants_come_from_the_directory() {
        let directory = Directory::generate(3, 50);
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(7);
        let merchant = directory.random_merchant(&mut rng).expect("a merchant");
        assert!(merchant.id.get() > generate::ID_BASE);
        assert_eq!(directory.generated_merchant(merchant.id), Some(merchant));
        directory.add_enrolled_location(enrolled(LocationId(5), "Only Shop", "Oakland"));
        for _ in 0..200 {
            let merchant = directory.random_merchant(&mut rng).expect("a merchant");
            assert_eq!(merchant.location_id, None, "never another subscriber's shop");
        }
        assert_eq!(directory.generated_merchant(DirectoryEntryId(5)), None);
        assert!(Directory::default().random_merchant(&mut rng).is_none());
    }
}
