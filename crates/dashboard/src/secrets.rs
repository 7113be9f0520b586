//! The OS keyring, where a remembered secret lives (never a file, never the web view's storage).
//!
//! `keyring-core` holds one default store per process, registered once at start with
//! [`use_os_store`]; on Linux that is the Secret Service (GNOME Keyring, KWallet) or, for
//! sessions without one, the kernel keyring (`keyctl`, lost at reboot).

use keyring_core::{Entry, Error as KeyringError};
use serde::Serialize;

use crate::error::{CommandError, codes};

/// The name the dashboard's entries carry in the keyring.
pub const SERVICE_NAME: &str = "subscriber-data-dashboard";

/// Which OS store holds the secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "kebab-case")]
pub enum StoreKind {
    /// The freedesktop Secret Service over D-Bus (GNOME Keyring, KWallet).
    SecretService,
    /// The Linux kernel keyring of the session (`keyctl`): gone at reboot.
    KernelKeyring,
}

impl StoreKind {
    /// `SUBSCRIBER_DASHBOARD_KEYRING=secret-service|keyutils`, else the Secret Service.
    pub fn from_env() -> Self {
        match std::env::var("SUBSCRIBER_DASHBOARD_KEYRING").as_deref() {
            Ok("keyutils" | "kernel" | "kernel-keyring") => Self::KernelKeyring,
            _ => Self::SecretService,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::SecretService => "Secret Service",
            Self::KernelKeyring => "kernel keyring",
        }
    }
}

/// Whether secrets can be remembered, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct KeyringStatus {
    pub available: bool,
    pub store: StoreKind,
    pub problem: Option<String>,
}

/// Registers the OS store as keyring-core's default. Call once at start; a failure leaves the
/// app working without "remember".
pub fn use_os_store(kind: StoreKind) -> KeyringStatus {
    let registered = register(kind);
    KeyringStatus { available: registered.is_ok(), store: kind, problem: registered.err() }
}

/// The OS keyring as the app sees it: registered already, or being registered on a thread of
/// its own ([`Keyring::register_in_background`]). Connecting to the Secret Service is a D-Bus
/// handshake (about 20 ms on a quiet machine) that the first window need not wait for: the
/// page asks for the keyring's status only once it has loaded, by when it is long known.
#[derive(Debug, Clone)]
pub struct Keyring(tokio::sync::watch::Receiver<Option<KeyringStatus>>);

impl Keyring {
    /// Starts [`use_os_store`] on its own thread; a thread that cannot start registers here.
    pub fn register_in_background(kind: StoreKind) -> Self {
        let (ready, status) = tokio::sync::watch::channel(None);
        let started = std::thread::Builder::new().name("keyring".to_owned()).spawn(move || {
            ready.send_replace(Some(use_os_store(kind)));
        });
        match started {
            Ok(_) => Self(status),
            Err(_) => use_os_store(kind).into(),
        }
    }

    /// The status once registration is done.
    pub async fn status(&self) -> KeyringStatus {
        let mut status = self.0.clone();
        let said = status.wait_for(Option::is_some).await.ok().and_then(|said| said.clone());
        said.unwrap_or_else(|| KeyringStatus {
            available: false,
            store: StoreKind::SecretService,
            problem: Some("the OS keyring could not be registered".to_owned()),
        })
    }
}

impl From<KeyringStatus> for Keyring {
    fn from(status: KeyringStatus) -> Self {
        Self(tokio::sync::watch::channel(Some(status)).1)
    }
}

#[cfg(target_os = "linux")]
fn register(kind: StoreKind) -> Result<(), String> {
    match kind {
        StoreKind::SecretService => keyring_core::set_default_store(
            zbus_secret_service_keyring_store::Store::new().map_err(|error| describe(&error))?,
        ),
        StoreKind::KernelKeyring => keyring_core::set_default_store(
            linux_keyutils_keyring_store::Store::new().map_err(|error| describe(&error))?,
        ),
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn register(kind: StoreKind) -> Result<(), String> {
    Err(format!("the {} is only wired up on Linux in this build", kind.label()))
}

/// Whose secret an entry holds: one per environment and e-mail, so a sandbox secret never
/// stands in for a production one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Account {
    /// `sandbox-local` or the service's base URL.
    pub connection: String,
    pub email: String,
}

impl Account {
    pub fn new(connection: &str, email: &str) -> Self {
        Self { connection: connection.to_owned(), email: email.trim().to_ascii_lowercase() }
    }

    fn user(&self) -> String {
        format!("{} {}", self.connection, self.email)
    }
}

/// The dashboard's entries in the default store.
#[derive(Debug, Clone)]
pub struct Secrets {
    service: String,
}

impl Default for Secrets {
    fn default() -> Self {
        Self::new(SERVICE_NAME)
    }
}

impl Secrets {
    /// Entries under `service` (tests use their own name so they never touch a user's).
    pub fn new(service: &str) -> Self {
        Self { service: service.to_owned() }
    }

    pub fn save(&self, account: &Account, secret: &str) -> Result<(), CommandError> {
        self.entry(account)?.set_password(secret).map_err(|error| keyring_error(&error))
    }

    /// The remembered secret, or `None` when there is none.
    pub fn load(&self, account: &Account) -> Result<Option<String>, CommandError> {
        match self.entry(account)?.get_password() {
            Ok(secret) => Ok(Some(secret)),
            Err(KeyringError::NoEntry) => Ok(None),
            Err(error) => Err(keyring_error(&error)),
        }
    }

    /// Forgets the secret; forgetting one that is not there is fine.
    pub fn forget(&self, account: &Account) -> Result<(), CommandError> {
        match self.entry(account)?.delete_credential() {
            Ok(()) | Err(KeyringError::NoEntry) => Ok(()),
            Err(error) => Err(keyring_error(&error)),
        }
    }

    fn entry(&self, account: &Account) -> Result<Entry, CommandError> {
        Entry::new(&self.service, &account.user()).map_err(|error| keyring_error(&error))
    }
}

fn describe(error: &KeyringError) -> String {
    match error {
        KeyringError::NoDefaultStore => "no OS keyring store is registered".to_owned(),
        KeyringError::NoStorageAccess(inner) => format!("the keyring is locked or refused access: {inner}"),
        KeyringError::PlatformFailure(inner) => format!("the keyring failed: {inner}"),
        other => other.to_string(),
    }
}

fn keyring_error(error: &KeyringError) -> CommandError {
    CommandError::new(codes::KEYRING_UNAVAILABLE, describe(error))
}
