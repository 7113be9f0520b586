//! Typed ids: one newtype per kind of id, so a call cannot pass a webhook's id where a
//! subscriber's is asked (`resend(subscriber, webhook, event, ..)` with two swapped does not
//! compile). On the wire and in the tables each is the integer it wraps.

macro_rules! integer_newtype {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        // TypeScript and OpenAPI (`build.rs`) see the number it wraps.
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "number"))]
        pub struct $name(pub i64);

        impl $name {
            /// The integer the tables and the wire keep.
            pub const fn get(self) -> i64 {
                self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(formatter)
            }
        }

        impl From<i64> for $name {
            fn from(id: i64) -> $name {
                $name(id)
            }
        }

        impl From<$name> for i64 {
            fn from(id: $name) -> i64 {
                id.0
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::num::ParseIntError;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                text.parse().map(Self)
            }
        }

        #[cfg(feature = "sqlite")]
        impl rusqlite::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.0))
            }
        }

        #[cfg(feature = "sqlite")]
        impl rusqlite::types::FromSql for $name {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                i64::column_result(value).map(Self)
            }
        }

        #[cfg(feature = "postgres")]
        impl tokio_postgres::types::ToSql for $name {
            fn to_sql(
                &self,
                kind: &tokio_postgres::types::Type,
                out: &mut tokio_postgres::types::private::BytesMut,
            ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
                self.0.to_sql(kind, out)
            }

            fn accepts(kind: &tokio_postgres::types::Type) -> bool {
                <i64 as tokio_postgres::types::ToSql>::accepts(kind)
            }

            tokio_postgres::types::to_sql_checked!();
        }

        #[cfg(feature = "postgres")]
        impl<'a> tokio_postgres::types::FromSql<'a> for $name {
            fn from_sql(
                kind: &tokio_postgres::types::Type,
                raw: &'a [u8],
            ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
                i64::from_sql(kind, raw).map(Self)
            }

            fn accepts(kind: &tokio_postgres::types::Type) -> bool {
                <i64 as tokio_postgres::types::FromSql>::accepts(kind)
            }
        }
    )*};
}

integer_newtype! {
    /// A subscriber (an account of the service): what every other id is scoped by.
    SubscriberId;
    /// A webhook endpoint of a subscriber.
    WebhookId;
    /// A bank account a subscriber linked.
    AccountId;
    /// A person whose identity a subscriber verifies.
    PersonId;
    /// A card a subscriber enrolled.
    CardId;
    /// A merchant a subscriber enrolled.
    MerchantId;
    /// A location (a shop) of an enrolled merchant.
    LocationId;
    /// A transaction on a card or at a location.
    TransactionId;
    /// An event of a subscriber's log (`evt_…` on the wire is its public form).
    EventId;
    /// A sandbox snapshot a subscriber took.
    SnapshotId;
    /// A hosted card-entry session.
    CardSessionId;
    /// A hosted identity session handed to a person.
    PersonSessionId;
    /// A set of identity questions issued to a person.
    QuestionSetId;
    /// A merchant of the sandbox's directory: a generated one (above the directory's id base),
    /// or an enrolled location as the directory keeps it (the location's own id).
    DirectoryEntryId;
    /// An attempt to deliver an event to a webhook endpoint (its delivery log's cursor).
    AttemptId;
    /// A question of a set issued to a person (its set's id and its place in the set).
    QuestionId;
    /// A choice of a question (its question's id and its place among the choices).
    ChoiceId;
    /// An object whose kind is said beside it: the sandbox event's `objectId` (a card, a
    /// transaction, … as the event's type says), a secure page's card session or account.
    ObjectId;
}
