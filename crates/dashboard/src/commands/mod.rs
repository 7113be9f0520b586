//! The desktop commands, each declared once in [`for_each_command!`](crate::for_each_command)
//! (`table.rs`): the Tauri commands and their handler, the window's permissions and the UI's
//! typed functions are all made from that table. [`types`] names every type the table uses, so
//! whoever expands it imports them at once.

mod table;
/// Written by a test, as ts-rs writes the bindings of the types (`make bindings`).
#[cfg(all(feature = "ts", test))]
mod typescript;

/// Every type the command table names (but `Channel`, which each side brings: Tauri's channel
/// in the app, a marker for the TypeScript).
pub mod types {
    pub use subscriber_protocol::versions::ApiVersion;
    pub use subscriber_protocol::{
        Account, AccountTransaction, AuthenticatePersonRequest, AuthenticatePersonResponse, Bank, CardRecord,
        CardSession, CardTransaction, CreateLocationResponse, CreateWebhookRequest, EnrollCardRequest,
        EnrollCardResponse, EnrollMerchantRequest, Event, LocationInput, Merchant, MerchantCategory,
        MerchantTransaction, OnboardPersonRequest, Person, RecurringStream, SandboxCard, SandboxTransactionRequest,
        SandboxTransactionResponse, UpdateWebhookRequest, VerifyPersonRequest, VerifyPersonResponse, Webhook,
        WebhookDeleted, WebhookDelivery, WebhookQueued, WebhookRecovered,
    };

    pub use crate::CommandError;
    pub use crate::notices::NotificationSettings;
    pub use crate::palette::PaletteIndex;
    pub use crate::performance::{MerchantSales, SalesQuery};
    pub use crate::versions::ApiVersions;
    pub use crate::views::{
        AppStatus, Batch, ConnectionInfo, ConnectionTarget, Country, EnrichedFile, ExportResult, FieldErrors,
        LiveEvent, LoggedCall, LoginInput, Lookup, LookupQuery, Overview, RotateResult, SecurePage, SessionInfo,
        SignupResult, StatementDescriptor,
    };
}

/// The commands' names, in the table's order.
pub fn names() -> &'static [&'static str] {
    macro_rules! names {
        ($( $(#[doc = $doc:literal])* $name:ident ( $($argument:ident : $ty:ty),* $(,)? ) -> $returned:ty; )*) => {
            &[$(stringify!($name)),*]
        };
    }
    crate::for_each_command!(names)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_command_has_one_name_as_the_window_calls_it() {
        let names = super::names();
        assert!(names.len() > 60, "{}", names.len());
        let mut unique = names.to_vec();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "a command is declared twice");
        for name in names {
            assert!(
                name.chars().all(|character| character.is_ascii_lowercase() || character == '_'),
                "{name}: commands are snake_case (the window calls them so, the permissions are named after them)"
            );
        }
    }
}
