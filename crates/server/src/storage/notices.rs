//! What a write tells once it has committed: the changes other instances keep in memory and
//! must follow (a `NOTIFY` on PostgreSQL; see `changes` for how an instance hears them), and
//! the wake-up of the delivery worker.

use super::rows::snapshots::Restored;
use super::rows::transactions::Owner;
use subscriber_protocol::{LocationId, SubscriberId};

/// Owners named in one notice at most; a write touching more says "every owner".
const OWNERS_PER_NOTICE: usize = 200;

/// A kind of change other instances keep in memory and must follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Transaction events of these cards and merchants were recorded (the live streams);
    /// `None`: of too many to name.
    Transactions(Option<Vec<Owner>>),
    /// A merchant location was enrolled (discovery finds it).
    Location(LocationId),
    /// A merchant location changed or was removed: discovery finds it as it is now, or no
    /// longer (whichever the database says).
    LocationChanged(LocationId),
    /// The subscriber's credential generation moved on: older tokens are revoked.
    Credentials(SubscriberId),
    /// The subscriber's sandbox data was deleted: what was kept of it goes too, and its
    /// enrolled locations are no longer found (`None`: too many to name, or an earlier
    /// version's notice, which named none).
    Reset { subscriber_id: SubscriberId, locations: Option<Vec<LocationId>> },
    /// The subscriber's sandbox was put back as a snapshot held it: what is kept of these
    /// cards and merchants goes (`None`: of too many to name: all of it), its streams end, and
    /// discovery finds these locations as they are now (`None`: looks at every one).
    Restored { subscriber_id: SubscriberId, owners: Option<Vec<Owner>>, locations: Option<Vec<LocationId>> },
    /// Webhook deliveries were queued: delivery looks at once.
    Deliveries,
    /// The subscriber's pinned API version moved.
    ApiVersion(SubscriberId),
    /// An owner of transactions was removed (`DELETE /card/{id}`): what is kept of it goes
    /// and its streams end.
    Removed(Owner),
}

impl Change {
    /// The transaction events of `owners`.
    pub fn transactions(owners: impl IntoIterator<Item = Owner>) -> Self {
        let mut owners: Vec<Owner> = owners.into_iter().collect();
        owners.sort_unstable_by_key(|owner| owner.sort_key());
        owners.dedup();
        Self::Transactions((owners.len() <= OWNERS_PER_NOTICE).then_some(owners))
    }

    /// The reset of `subscriber_id`, which deleted `locations`.
    pub fn reset(subscriber_id: SubscriberId, locations: &[LocationId]) -> Self {
        Self::Reset { subscriber_id, locations: (locations.len() <= OWNERS_PER_NOTICE).then(|| locations.to_vec()) }
    }

    /// The restore of `subscriber_id`'s snapshot.
    pub fn restored(subscriber_id: SubscriberId, restored: &Restored) -> Self {
        let owners = restored.owners();
        let locations = &restored.location_ids;
        Self::Restored {
            subscriber_id,
            owners: (owners.len() <= OWNERS_PER_NOTICE).then_some(owners),
            locations: (locations.len() <= OWNERS_PER_NOTICE).then(|| locations.clone()),
        }
    }

    pub fn payload(&self) -> String {
        match self {
            Self::Transactions(None) => "tx:*".to_owned(),
            Self::Transactions(Some(owners)) => format!("tx:{}", owner_names(owners)),
            Self::Location(id) => format!("location:{id}"),
            Self::LocationChanged(id) => format!("location_changed:{id}"),
            Self::Credentials(subscriber_id) => format!("credentials:{subscriber_id}"),
            Self::Reset { subscriber_id, locations: None } => format!("reset:{subscriber_id}:*"),
            Self::Reset { subscriber_id, locations: Some(locations) } => {
                let ids: Vec<String> = locations.iter().map(LocationId::to_string).collect();
                format!("reset:{subscriber_id}:{}", ids.join(","))
            }
            Self::Restored { subscriber_id, owners, locations } => {
                let owners = owners.as_ref().map_or_else(|| "*".to_owned(), |owners| owner_names(owners));
                let locations = locations.as_ref().map_or_else(
                    || "*".to_owned(),
                    |ids| ids.iter().map(LocationId::to_string).collect::<Vec<_>>().join(","),
                );
                format!("restored:{subscriber_id}:{owners}:{locations}")
            }
            Self::Deliveries => "deliveries".to_owned(),
            Self::ApiVersion(subscriber_id) => format!("api_version:{subscriber_id}"),
            Self::Removed(Owner::Card(id)) => format!("removed:c{id}"),
            Self::Removed(Owner::Merchant(id)) => format!("removed:m{id}"),
        }
    }

    pub(super) fn parse(payload: &str) -> Option<Self> {
        match payload.split_once(':') {
            None if payload == "deliveries" => Some(Self::Deliveries),
            Some(("tx", "*")) => Some(Self::Transactions(None)),
            Some(("tx", names)) => parse_owners(names).map(|owners| Self::Transactions(Some(owners))),
            Some(("restored", rest)) => {
                let mut fields = rest.splitn(3, ':');
                let subscriber_id = fields.next()?.parse().ok()?;
                let owners = match fields.next()? {
                    "*" => None,
                    names => Some(parse_owners(names)?),
                };
                let locations = match fields.next()? {
                    "*" => None,
                    "" => Some(Vec::new()),
                    ids => Some(ids.split(',').map(|id| id.parse().ok()).collect::<Option<Vec<LocationId>>>()?),
                };
                Some(Self::Restored { subscriber_id, owners, locations })
            }
            Some(("location", id)) => id.parse().ok().map(Self::Location),
            Some(("location_changed", id)) => id.parse().ok().map(Self::LocationChanged),
            Some(("credentials", id)) => id.parse().ok().map(Self::Credentials),
            Some(("reset", rest)) => {
                let (id, locations) = rest.split_once(':').unwrap_or((rest, "*"));
                let locations = match locations {
                    "*" => None,
                    "" => Some(Vec::new()),
                    ids => Some(ids.split(',').map(|id| id.parse().ok()).collect::<Option<Vec<LocationId>>>()?),
                };
                id.parse().ok().map(|subscriber_id| Self::Reset { subscriber_id, locations })
            }
            Some(("api_version", id)) => id.parse().ok().map(Self::ApiVersion),
            Some(("removed", name)) => match name.split_at_checked(1)? {
                ("c", id) => id.parse().ok().map(|id| Self::Removed(Owner::Card(id))),
                ("m", id) => id.parse().ok().map(|id| Self::Removed(Owner::Merchant(id))),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Owners as a notice names them: `c12,m3`.
fn owner_names(owners: &[Owner]) -> String {
    let names: Vec<String> = owners
        .iter()
        .map(|owner| match owner {
            Owner::Card(id) => format!("c{id}"),
            Owner::Merchant(id) => format!("m{id}"),
        })
        .collect();
    names.join(",")
}

/// [`owner_names`] read back (none from an empty text).
fn parse_owners(names: &str) -> Option<Vec<Owner>> {
    if names.is_empty() {
        return Some(Vec::new());
    }
    names
        .split(',')
        .map(|name| match name.split_at_checked(1)? {
            ("c", id) => id.parse().ok().map(Owner::Card),
            ("m", id) => id.parse().ok().map(Owner::Merchant),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use subscriber_protocol::{CardId, MerchantId};

    #[test]
    fn payloads_read_back() {
        for change in [
            Change::transactions([Owner::Card(CardId(3)), Owner::Merchant(MerchantId(9)), Owner::Card(CardId(3))]),
            Change::Transactions(None),
            Change::Location(LocationId(12)),
            Change::LocationChanged(LocationId(12)),
            Change::Credentials(SubscriberId(42)),
            Change::reset(SubscriberId(7), &[]),
            Change::reset(SubscriberId(7), &[LocationId(12), LocationId(13)]),
            Change::reset(SubscriberId(7), &(0..1000).map(LocationId).collect::<Vec<_>>()),
            Change::Deliveries,
            Change::Restored {
                subscriber_id: SubscriberId(4),
                owners: Some(vec![Owner::Card(CardId(1)), Owner::Merchant(MerchantId(2))]),
                locations: Some(vec![LocationId(5)]),
            },
            Change::Restored { subscriber_id: SubscriberId(4), owners: Some(Vec::new()), locations: Some(Vec::new()) },
            Change::Restored { subscriber_id: SubscriberId(4), owners: None, locations: None },
            Change::ApiVersion(SubscriberId(3)),
            Change::Removed(Owner::Card(CardId(5))),
            Change::Removed(Owner::Merchant(MerchantId(6))),
        ] {
            assert_eq!(Change::parse(&change.payload()), Some(change));
        }
        assert_eq!(Change::parse("credentials:x"), None);
        assert_eq!(Change::parse("tx:x1"), None);
        assert_eq!(Change::parse("other"), None);
        assert_eq!(
            Change::parse("reset:7"),
            Some(Change::Reset { subscriber_id: SubscriberId(7), locations: None }),
            "named none"
        );
        assert!(Change::reset(SubscriberId(7), &(0..1000).map(LocationId).collect::<Vec<_>>()).payload().len() < 8000);
        let many = Change::transactions((0..1000).map(|id| Owner::Card(CardId(id))));
        assert_eq!(many, Change::Transactions(None), "too many owners to name");
        assert!(many.payload().len() < 8000, "a notice fits PostgreSQL's payload limit");
    }
}
