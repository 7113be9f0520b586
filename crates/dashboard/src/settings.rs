//! The choices kept between runs, in `settings.json` of the app's data folder. Nothing secret:
//! secrets go to the OS keyring, the token stays in memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CommandError, codes};
use crate::views::ConnectionTarget;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The environment chosen last.
    #[serde(default)]
    pub target: Option<ConnectionTarget>,
    /// Connection key → the e-mail whose secret is remembered there.
    #[serde(default)]
    pub remembered: BTreeMap<String, String>,
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
