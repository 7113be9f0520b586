//! The service's secret keys, kept apart from the data: a key file (`--keys`, mode 0600) that
//! a copy of the database does not include. A database alone then gives neither PANs (the
//! fingerprints and idempotency hashes are keyed), nor tokens (their signing key is here), nor
//! live links (idempotent replays are sealed with a key from here).
//!
//! The database keeps only a check value per key (an HMAC of a fixed label), so the service
//! refuses to start with a key file that does not belong to the database instead of silently
//! making new keys that would no longer recognise a card enrolled twice.

use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// Every key the service uses, by name as written in the key file.
pub const KEY_NAMES: [&str; 5] =
    ["token_signing", "card_fingerprint", "hosted_forms", "idempotency", "webhook_signing"];

const CHECK_LABEL: &[u8] = b"subscriber-data key check v1";
const CHECK_PREFIX: &str = "check:";

#[derive(Clone)]
pub struct Keys {
    pub token_signing: Vec<u8>,
    pub card_fingerprint: Vec<u8>,
    pub hosted_forms: Vec<u8>,
    pub idempotency: Vec<u8>,
    pub webhook_signing: Vec<u8>,
}

#[derive(Serialize, Deserialize, Default)]
struct KeyFile {
    version: u32,
    /// Key name → base64 of 32 random bytes.
    keys: std::collections::BTreeMap<String, String>,
}

/// `--keys`, else `<database>.keys` beside the database.
pub fn default_path(database: &Path) -> PathBuf {
    let mut name = database.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_else(|| "service".into());
    name.push(".keys");
    database.with_file_name(name)
}

impl Keys {
    /// Loads the key file, adding keys it lacks. `legacy` holds keys an older version kept in
    /// the database: they move to the file (so tokens and fingerprints stay valid) and the
    /// caller then deletes them from the database.
    /// `checks` are the check values the database holds: a key file that does not match them
    /// is refused before anything is written.
    pub fn load_or_create(
        path: &Path,
        legacy: &[(String, Vec<u8>)],
        checks: &[(String, Vec<u8>)],
    ) -> anyhow::Result<Self> {
        let mut file = match std::fs::read(path) {
            Ok(bytes) => {
                refuse_loose_permissions(path)?;
                serde_json::from_slice::<KeyFile>(&bytes)
                    .map_err(|error| anyhow::anyhow!("the key file {} is not valid: {error}", path.display()))?
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => KeyFile { version: 1, ..KeyFile::default() },
            Err(error) => anyhow::bail!("the key file {} cannot be read: {error}", path.display()),
        };
        let mut changed = false;
        for name in KEY_NAMES {
            if file.keys.contains_key(name) {
                continue;
            }
            let value = match legacy.iter().find(|(legacy_name, _)| legacy_name == name) {
                Some((_, value)) => value.clone(),
                None => {
                    let mut value = vec![0u8; 32];
                    rand::rng().fill_bytes(&mut value);
                    value
                }
            };
            file.keys.insert(name.to_owned(), STANDARD.encode(value));
            changed = true;
        }
        let key = |name: &str| -> anyhow::Result<Vec<u8>> {
            let text = file.keys.get(name).map(String::as_str).unwrap_or_default();
            let value = STANDARD
                .decode(text)
                .map_err(|_| anyhow::anyhow!("the key {name} in {} is not base64", path.display()))?;
            anyhow::ensure!(value.len() >= 32, "the key {name} in {} is shorter than 32 bytes", path.display());
            Ok(value)
        };
        let keys = Self {
            token_signing: key("token_signing")?,
            card_fingerprint: key("card_fingerprint")?,
            hosted_forms: key("hosted_forms")?,
            idempotency: key("idempotency")?,
            webhook_signing: key("webhook_signing")?,
        };
        keys.verify_checks(checks, path)?;
        if changed {
            write_private(path, &serde_json::to_vec_pretty(&file)?)?;
        }
        Ok(keys)
    }

    fn by_name(&self, name: &str) -> &[u8] {
        match name {
            "token_signing" => &self.token_signing,
            "card_fingerprint" => &self.card_fingerprint,
            "hosted_forms" => &self.hosted_forms,
            "idempotency" => &self.idempotency,
            _ => &self.webhook_signing,
        }
    }

    /// `(row name, check value)` for each key: what the database keeps to recognise its keys.
    pub fn checks(&self) -> Vec<(String, Vec<u8>)> {
        KEY_NAMES.iter().map(|name| (format!("{CHECK_PREFIX}{name}"), check_value(self.by_name(name)))).collect()
    }

    /// `Err` naming the keys whose check in the database does not match this key file.
    pub(crate) fn verify_checks(&self, stored: &[(String, Vec<u8>)], path: &Path) -> anyhow::Result<()> {
        let mismatched: Vec<&str> = stored
            .iter()
            .filter_map(|(row, value)| {
                let name = row.strip_prefix(CHECK_PREFIX)?;
                KEY_NAMES.contains(&name).then_some(())?;
                (check_value(self.by_name(name)) != *value).then_some(name)
            })
            .collect();
        anyhow::ensure!(
            mismatched.is_empty(),
            "the key file {} does not belong to this database (keys {} differ): start with the key file \
             made with this database (--keys), or with a new database",
            path.display(),
            mismatched.join(", ")
        );
        Ok(())
    }

    /// HMAC-SHA256 under the idempotency key: what is kept to recognise a retried request
    /// without keeping anything a guesser could test a card number against.
    pub fn idempotency_hash(&self, parts: &[&[u8]]) -> Vec<u8> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.idempotency).expect("HMAC takes any key length");
        for part in parts {
            mac.update(part);
        }
        mac.finalize().into_bytes().to_vec()
    }

    /// Seals a stored replay (it may hold a live one-time link) under a key derived from the
    /// idempotency key: 24-byte random nonce, then the XChaCha20-Poly1305 ciphertext.
    pub fn seal(&self, plain: &[u8]) -> Vec<u8> {
        let cipher = self.replay_cipher();
        let mut nonce = [0u8; 24];
        rand::rng().fill_bytes(&mut nonce);
        let mut sealed = nonce.to_vec();
        // Encryption of a byte slice under a valid key cannot fail.
        sealed.extend(cipher.encrypt(&XNonce::from(nonce), plain).unwrap_or_default());
        sealed
    }

    /// The plain replay, or `None` when it was not sealed with this key.
    pub fn open(&self, sealed: &[u8]) -> Option<Vec<u8>> {
        if sealed.len() < 24 {
            return None;
        }
        let (nonce, ciphertext) = sealed.split_at(24);
        let nonce: [u8; 24] = nonce.try_into().ok()?;
        self.replay_cipher().decrypt(&XNonce::from(nonce), ciphertext).ok()
    }

    fn replay_cipher(&self) -> XChaCha20Poly1305 {
        let key = self.idempotency_hash(&[b"replay sealing key"]);
        XChaCha20Poly1305::new_from_slice(&key).expect("a 32-byte key")
    }
}

fn check_value(key: &[u8]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(CHECK_LABEL);
    mac.finalize().into_bytes().to_vec()
}

#[cfg(unix)]
fn refuse_loose_permissions(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)?.permissions().mode();
    anyhow::ensure!(
        mode & 0o077 == 0,
        "the key file {} is readable by others (mode {:o}): run `chmod 600 {}`",
        path.display(),
        mode & 0o777,
        path.display()
    );
    Ok(())
}

#[cfg(not(unix))]
fn refuse_loose_permissions(_path: &Path) -> anyhow::Result<()> {
    Ok(())
}

/// Writes `bytes` to `path` readable by the owner only: a temporary file beside it, synced,
/// then renamed over, so a crash leaves either the old file or the new one.
fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let directory = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(directory)?;
    let temporary = directory.join(format!(".keys-{}.tmp", uuid::Uuid::new_v4().simple()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let result = (|| -> anyhow::Result<()> {
        let mut file = options.open(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)?;
        if let Ok(directory) = std::fs::File::open(directory) {
            let _ = directory.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result.map_err(|error| anyhow::anyhow!("the key file {} cannot be written: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_persist_and_move_from_the_database() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("db.keys");
        let legacy = vec![("token_signing".to_owned(), vec![7u8; 32])];
        let keys = Keys::load_or_create(&path, &legacy, &[]).expect("created");
        assert_eq!(keys.token_signing, vec![7u8; 32]);
        let again = Keys::load_or_create(&path, &[], &keys.checks()).expect("loaded");
        assert_eq!(again.card_fingerprint, keys.card_fingerprint);
        let other_path = dir.path().join("other.keys");
        assert!(Keys::load_or_create(&other_path, &[], &keys.checks()).is_err());
        assert!(!other_path.exists(), "a refused key file is not written");
        let other = Keys::load_or_create(&other_path, &[], &[]).expect("other");
        let sealed = keys.seal(b"{\"url\":\"x\"}");
        assert_eq!(keys.open(&sealed).as_deref(), Some(&b"{\"url\":\"x\"}"[..]));
        assert!(other.open(&sealed).is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_key_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("db.keys");
        Keys::load_or_create(&path, &[], &[]).expect("created");
        assert_eq!(std::fs::metadata(&path).expect("exists").permissions().mode() & 0o777, 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(Keys::load_or_create(&path, &[], &[]).is_err());
    }
}
