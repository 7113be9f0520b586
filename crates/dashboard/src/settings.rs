//! The choices kept between runs, in `settings.json` of the app's data folder. Nothing secret:
//! secrets go to the OS keyring, the token stays in memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CommandError, codes};
use crate::views::{ConnectionTarget, WindowSize};

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
    /// The window's size when it was last resized or closed.
    #[serde(default)]
    pub window: Option<WindowSize>,
}

/// Screens the UI names (`card/12` is a card's transactions): anything else is not kept, so a
/// settings file cannot make the UI open something it does not know.
pub fn known_screen(screen: &str) -> bool {
    const SCREENS: [&str; 7] = ["overview", "cards", "merchant", "lookup", "accounts", "identity", "credentials"];
    SCREENS.contains(&screen)
        || screen
            .strip_prefix("card/")
            .is_some_and(|id| !id.is_empty() && id.len() <= 18 && id.bytes().all(|byte| byte.is_ascii_digit()))
}

/// A size a window can take: within what screens offer, never smaller than the app's minimum.
pub fn usable_window(size: WindowSize) -> Option<WindowSize> {
    let fits = |value: f64, min: f64| value.is_finite() && (min..=16_384.0).contains(&value);
    (fits(size.width, 960.0) && fits(size.height, 600.0)).then_some(size)
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
    fn only_known_screens_and_usable_sizes_are_kept() {
        for screen in ["overview", "merchant", "card/12", "identity"] {
            assert!(known_screen(screen), "{screen}");
        }
        for screen in ["", "card/", "card/x", "card/-1", "admin", "https://example.com"] {
            assert!(!known_screen(screen), "{screen}");
        }
        assert!(usable_window(WindowSize { width: 1280.0, height: 820.0 }).is_some());
        assert!(usable_window(WindowSize { width: 200.0, height: 820.0 }).is_none());
        assert!(usable_window(WindowSize { width: f64::NAN, height: 820.0 }).is_none());
    }

    #[test]
    fn settings_round_trip_through_the_file() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let settings = Settings {
            target: Some(ConnectionTarget::Sandbox),
            last_screen: Some("merchant".into()),
            window: Some(WindowSize { width: 1100.0, height: 700.0 }),
            ..Settings::default()
        };
        settings.save(dir.path()).expect("saved");
        assert_eq!(Settings::load(dir.path()), settings);
    }
}
