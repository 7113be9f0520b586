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
        Account, AccountId, AccountTransaction, AuthenticatePersonRequest, AuthenticatePersonResponse, Bank, CardId,
        CardRecord, CardSession, CardSessionId, CardTransaction, ClockAdvanced, CreateLocationResponse,
        CreateWebhookRequest, EndUser, EndUserRemoved, EnrollCardRequest, EnrollCardResponse, EnrollMerchantRequest,
        Event, Location, LocationId, LocationInput, LocationRemoved, Merchant, MerchantCategory, MerchantId,
        MerchantTransaction, Metadata, OnboardPersonRequest, Person, PersonId, RecurringStream, RemoveAccountResponse,
        RemoveCardResponse, RemovePersonResponse, RequestQuery, SandboxCard, SandboxReset, SandboxRestored,
        SandboxReversal, SandboxSnapshot, SandboxSnapshotDeleted, SandboxTransactionRequest,
        SandboxTransactionResponse, SnapshotId, TransactionId, UpdateLocationRequest, UpdateWebhookRequest,
        VerifyPersonRequest, VerifyPersonResponse, Webhook, WebhookDeleted, WebhookDelivery, WebhookId, WebhookQueued,
        WebhookRecovered,
    };

    pub use crate::CommandError;
    pub use crate::notices::NotificationSettings;
    pub use crate::palette::PaletteIndex;
    pub use crate::performance::{MerchantSales, SalesQuery};
    pub use crate::versions::ApiVersions;
    pub use crate::views::{
        AppStatus, Batch, ConnectionInfo, ConnectionTarget, Country, EnrichedFile, ExportResult, FieldErrors, Labelled,
        LiveEvent, LoggedCall, LoginInput, Lookup, LookupQuery, Overview, RequestDetailView, RequestLogView,
        RotateResult, SecurePage, SessionInfo, SignupResult, StatementDescriptor,
    };
    pub use crate::workbench::{Inspection, ShellAnswer, ShellOperation, ShellRequest};
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

/// `card_id` as the window names it: `cardId` (Tauri's default for command arguments).
#[cfg(test)]
fn camel_case(name: &str) -> String {
    let mut words = name.split('_');
    let mut camel = words.next().unwrap_or_default().to_owned();
    for word in words {
        let mut characters = word.chars();
        if let Some(first) = characters.next() {
            camel.extend(first.to_uppercase());
            camel.push_str(characters.as_str());
        }
    }
    camel
}

#[cfg(test)]
mod tests {
    /// Each command's name and its arguments' names, in the table's order.
    fn signatures() -> Vec<(&'static str, Vec<&'static str>)> {
        macro_rules! signatures {
            ($( $(#[doc = $doc:literal])* $name:ident ( $($argument:ident : $ty:ty),* $(,)? ) -> $returned:ty; )*) => {
                vec![$((stringify!($name), vec![$(stringify!($argument)),*])),*]
            };
        }
        crate::for_each_command!(signatures)
    }

    /// Without the feature `ts` (which `make bindings-check` uses to compare the whole file):
    /// the committed `ui/src/lib/bindings/commands.ts` lists every command of the table, in its
    /// order, and calls each with the table's arguments, so a command added, removed or changed
    /// without `make bindings` fails `cargo test` too.
    #[test]
    fn the_committed_typescript_functions_are_the_tables() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ui/src/lib/bindings/commands.ts");
        let file = std::fs::read_to_string(path).expect("ui/src/lib/bindings/commands.ts");
        let stale = "ui/src/lib/bindings/commands.ts is out of date with the command table: run `make bindings`";
        let listed = file
            .split_once("export const COMMAND_NAMES = [")
            .and_then(|(_, rest)| rest.split_once("] as const;"))
            .map(|(list, _)| list)
            .expect("COMMAND_NAMES in commands.ts");
        let listed: Vec<&str> =
            listed.split(',').map(|name| name.trim().trim_matches('"')).filter(|name| !name.is_empty()).collect();
        assert_eq!(listed, super::names(), "{stale}");
        let signatures = signatures();
        assert_eq!(file.matches("      invoke<").count(), signatures.len(), "{stale}");
        for (name, arguments) in signatures {
            let arguments: Vec<String> = arguments.iter().map(|argument| super::camel_case(argument)).collect();
            let passed = if arguments.is_empty() { String::new() } else { format!(", {{ {} }}", arguments.join(", ")) };
            let call = format!(">(\"{name}\"{passed}),\n");
            let function = format!("    {}: (", super::camel_case(name));
            assert!(file.contains(&call) && file.contains(&function), "{name}: {stale}");
        }
    }

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
