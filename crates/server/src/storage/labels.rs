//! Whose an object is and the subscriber's notes on it: a `PATCH`'s new metadata, and the
//! objects of one of the subscriber's users (`clientUserId`).

use super::rows::bank_accounts::{BankAccountRow, COLUMNS as ACCOUNT_COLUMNS};
use super::rows::cards::{COLUMNS as CARD_COLUMNS, CardRow};
use super::rows::labels::Metadata;
use super::rows::persons::{COLUMNS as PERSON_COLUMNS, PersonRow};
use super::rows::removals::UserObject;
use super::sql::{Sql, args, sql};
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::SubscriberId;
use subscriber_protocol::rules::labels::METADATA_PAIRS_AT_MOST;

/// A kind of object that carries metadata: how each database lays a `PATCH`'s pairs over it
/// in one statement (`$1` the subscriber, `$2` the object, `$3` the pairs as a JSON object, a
/// key to remove set to null), so two `PATCH`es at once each keep their keys. Neither writes
/// past [`METADATA_PAIRS_AT_MOST`] pairs: the statement then changes nothing.
pub struct Labelled {
    /// SQLite's `json_patch` (RFC 7396: null removes the key).
    sqlite: &'static Sql,
    /// PostgreSQL's `||` on `jsonb`, the nulls stripped.
    postgres: &'static Sql,
}

/// The two statements of one table (`{0}` in each text); the texts are written once here.
macro_rules! labelled {
    ($vis:vis static $name:ident = $table:literal;) => {
        $vis static $name: Labelled = Labelled {
            sqlite: sql!(
                "UPDATE {0} SET metadata = json_patch(metadata, $3)
                 WHERE id = $2 AND subscriber_id = $1
                   AND (SELECT count(*) FROM json_each(json_patch(metadata, $3))) <= {METADATA_PAIRS_AT_MOST}",
                $table
            ),
            postgres: sql!(
                "UPDATE {0} SET metadata = jsonb_strip_nulls(metadata::jsonb || $3::TEXT::jsonb)::TEXT
                 WHERE id = $2 AND subscriber_id = $1
                   AND (SELECT count(*) FROM jsonb_object_keys(jsonb_strip_nulls(metadata::jsonb || $3::TEXT::jsonb)))
                       <= {METADATA_PAIRS_AT_MOST}",
                $table
            ),
        };
    };
}

labelled! { static CARD = "cards"; }
labelled! { static ACCOUNT = "bank_accounts"; }
labelled! { static PERSON = "persons"; }

/// How an object of this kind takes a `PATCH`'s pairs.
fn labelled(object: UserObject) -> &'static Labelled {
    match object {
        UserObject::Card(_) => &CARD,
        UserObject::Account(_) => &ACCOUNT,
        UserObject::Person(_) => &PERSON,
    }
}

/// One user's objects, newest first.
#[derive(Debug, Default)]
pub struct UserObjects {
    pub cards: Vec<CardRow>,
    pub accounts: Vec<BankAccountRow>,
    pub persons: Vec<PersonRow>,
}

impl Store {
    /// Lays `patch` over the object's metadata (a key with "" is removed); `false` when the
    /// object is not the subscriber's or the result would hold too many pairs (nothing changed).
    #[cfg_attr(not(feature = "postgres"), allow(unused_variables))]
    pub async fn merge_metadata(
        &self,
        subscriber_id: SubscriberId,
        object: UserObject,
        patch: &Metadata,
    ) -> StorageResult<bool> {
        let kind = labelled(object);
        let pairs: serde_json::Map<String, serde_json::Value> = patch
            .iter()
            .map(|(key, value)| {
                let value = if value.is_empty() { serde_json::Value::Null } else { value.clone().into() };
                (key.clone(), value)
            })
            .collect();
        let args = args![subscriber_id, object.id(), serde_json::Value::Object(pairs).to_string()];
        let changed = dispatch!(self,
            db => db.write(move |connection| sqlite::rows::execute(connection, kind.sqlite, rusqlite::params_from_iter(&args))).await,
            db => postgres::rows::execute(&*db.client().await?, kind.postgres, &postgres::rows::bound(&args)).await,
        )?;
        Ok(changed > 0)
    }

    /// The subscriber's cards, bank accounts and persons created with `client_user_id`.
    pub async fn user_objects(&self, subscriber_id: SubscriberId, client_user_id: &str) -> StorageResult<UserObjects> {
        let cards =
            sql!("SELECT {CARD_COLUMNS} FROM cards WHERE subscriber_id = $1 AND client_user_id = $2 ORDER BY id DESC");
        let accounts = sql!(
            "SELECT {ACCOUNT_COLUMNS} FROM bank_accounts WHERE subscriber_id = $1 AND client_user_id = $2
               AND merged_into IS NULL
             ORDER BY id DESC"
        );
        let persons = sql!(
            "SELECT {PERSON_COLUMNS} FROM persons WHERE subscriber_id = $1 AND client_user_id = $2 ORDER BY id DESC"
        );
        let user = || args![subscriber_id, client_user_id.to_owned()];
        let (cards, accounts, persons) = futures::future::try_join3(
            self.fetch_all(cards, user()),
            self.fetch_all(accounts, user()),
            self.fetch_all(persons, user()),
        )
        .await?;
        Ok(UserObjects { cards, accounts, persons })
    }
}
