//! The subscriber's own notes on its objects (`metadata`) and its users (`clientUserId`):
//! notes edited from each object's drawer, a user's cards, accounts and persons together, and a
//! user erased in one call.

use subscriber_protocol::{EndUser, EndUserRemoved, LocationChanges, Metadata, UpdateLocationRequest};

use crate::app::Dashboard;
use crate::error::CommandError;
use crate::views::Labelled;

impl Dashboard {
    /// Sets notes on one of the subscriber's objects (keys merge with those set; a key sent
    /// with "" is removed), checked by the service's rules before sending; the object's notes
    /// as they are then.
    pub async fn update_metadata(&self, object: Labelled, metadata: Metadata) -> Result<Metadata, CommandError> {
        let client = self.client().await?;
        Ok(match object {
            Labelled::Card(id) => client.update_card(id, &metadata).await?.metadata,
            Labelled::Account(id) => client.update_account(id, &metadata).await?.metadata,
            Labelled::Person(id) => client.update_person(id, &metadata).await?.metadata,
            Labelled::Location(id) => {
                let change = UpdateLocationRequest { location: LocationChanges::default(), metadata: Some(metadata) };
                client.update_location(id, &change).await?.metadata
            }
        })
    }

    /// The cards, bank accounts and persons the subscriber created with `client_user_id`.
    pub async fn user(&self, client_user_id: String) -> Result<EndUser, CommandError> {
        Ok(self.client().await?.user(client_user_id.trim()).await?)
    }

    /// Erases everything of the user at once (a right-to-erasure request).
    pub async fn remove_user(&self, client_user_id: String) -> Result<EndUserRemoved, CommandError> {
        Ok(self.client().await?.remove_user(client_user_id.trim()).await?)
    }
}
