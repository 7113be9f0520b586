//! The choices kept between runs, in `settings.json` of the app's data folder. Nothing secret:
//! secrets go to the OS keyring, the token stays in memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CommandError, codes};
use crate::links;
use crate::notices::NotificationSettings;
use crate::views::ConnectionTarget;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The environment chosen last.
    #[serde(default)]
    pub target: Option<ConnectionTarget>,
    /// Connection key → the e-mail whose secret is remembered there.
    #[serde(default)]
    pub remembered: BTreeMap<String, String>,
    /// The screen shown last, opened again after the next sign-in.
    #[serde(default)]
    pub last_screen: Option<String>,
    /// Which notifications to show (every kind until switched off).
    #[serde(default)]
    pub notifications: NotificationSettings,
}

/// Screens the UI names (`card/12` is a card's transactions): anything else is not kept, so a
/// settings file cannot make the UI open something it does not know. (The window's size and
/// place are the window-state plugin's, in a file of their own.)
pub fn known_screen(screen: &str) -> bool {
    links::known_route(screen)
}

impl Settings {
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join("settings.json")
    }

    /// The saved settings; a missing or unreadable file gives the defaults (it only holds
    /// conveniences).
    pub fn load(data_dir: &Path) -> Self {
        std::fs::read(Self::path(data_dir))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Writes through a temporary file so a crash never leaves half a file.
    pub fn save(&self, data_dir: &Path) -> Result<(), CommandError> {
        let io = |error: std::io::Error| CommandError::new(codes::IO, format!("settings not saved: {error}"));
        std::fs::create_dir_all(data_dir).map_err(io)?;
        let bytes = serde_json::to_vec_pretty(self)
            .map_err(|error| CommandError::new(codes::IO, format!("settings not saved: {error}")))?;
        let temporary = data_dir.join("settings.json.tmp");
        std::fs::write(&temporary, bytes).map_err(io)?;
        std::fs::rename(&temporary, Self::path(data_dir)).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_screens_are_kept() {
        for screen in ["overview", "merchant", "card/12", "identity", "developers", "settings"] {
            assert!(known_screen(screen), "{screen}");
        }
        for screen in ["", "card/", "card/x", "card/-1", "admin", "https://example.com"] {
            assert!(!known_screen(screen), "{screen}");
        }
    }

    #[test]
    fn settings_round_trip_through_the_file() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let settings = Settings {
            target: Some(ConnectionTarget::Sandbox),
            last_screen: Some("merchant".into()),
            notifications: NotificationSettings { sales: false, ..NotificationSettings::default() },
            ..Settings::default()
        };
        settings.save(dir.path()).expect("saved");
        assert_eq!(Settings::load(dir.path()), settings);
    }
}
