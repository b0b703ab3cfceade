//! clawtop's own device identity: one Ed25519 keypair, kept in clawtop's config dir.
//!
//! The gateway pairs devices by key (docs/openclaw-2026.9.md §7): a new key on loopback is
//! paired silently, and new silent pairings prune older ones, so clawtop keeps **one stable
//! identity** and reuses it on every connection. It is never OpenClaw's own identity (that sits
//! in OpenClaw's state DB, `device_identities`).
//!
//! The file is created once, with mode 0600 inside a 0700 dir, by writing a temp file and
//! hard-linking it into place: `link(2)` fails if another clawtop process won the race, and then
//! that one's key is read instead, so two processes never end up with two identities. A key file
//! that others can read is refused rather than used (as ssh does).

use std::fmt;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signer, SigningKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::GatewayError;

/// File name inside clawtop's config dir.
pub const IDENTITY_FILE: &str = "device-identity.json";

/// clawtop's config dir, where the identity file lives ([`crate::paths::Env::config_dir`]).
pub use crate::paths::config_dir;

/// The device keypair. `Debug` shows the device id only; the private key has no accessor.
pub struct DeviceIdentity {
    key: SigningKey,
    device_id: String,
    path: PathBuf,
}

impl fmt::Debug for DeviceIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceIdentity")
            .field("device_id", &self.device_id)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdentityFile {
    version: u32,
    algorithm: String,
    device_id: String,
    public_key: String,
    private_key_seed: String,
    created_at: String,
}

impl DeviceIdentity {
    /// Loads `<dir>/device-identity.json`, creating it (and `dir`, mode 0700) on first use.
    pub fn load_or_create(dir: &Path) -> Result<DeviceIdentity, GatewayError> {
        let path = dir.join(IDENTITY_FILE);
        if path.exists() {
            return Self::load(&path);
        }
        create_private_dir(dir)?;
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| GatewayError::Identity {
            path: path.clone(),
            problem: format!("no randomness for a new key: {e}"),
        })?;
        let key = SigningKey::from_bytes(&seed);
        seed.fill(0);
        let public = key.verifying_key().to_bytes();
        let file = IdentityFile {
            version: 1,
            algorithm: "ed25519".into(),
            device_id: device_id_of(&public),
            public_key: URL_SAFE_NO_PAD.encode(public),
            private_key_seed: URL_SAFE_NO_PAD.encode(key.to_bytes()),
            created_at: chrono::Utc::now().to_rfc3339(),
        };
        let text = serde_json::to_string_pretty(&file).expect("identity serializes");
        let tmp = dir.join(format!(".{IDENTITY_FILE}.{}.tmp", uuid::Uuid::new_v4()));
        let io = |e: std::io::Error| GatewayError::Identity {
            path: path.clone(),
            problem: e.to_string(),
        };
        let result = (|| {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            std::fs::hard_link(&tmp, &path)
        })();
        let _ = std::fs::remove_file(&tmp);
        match result {
            Ok(()) => Ok(DeviceIdentity {
                device_id: file.device_id,
                key,
                path,
            }),
            // Another process created it first: use theirs.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Self::load(&path),
            Err(e) => Err(io(e)),
        }
    }

    fn load(path: &Path) -> Result<DeviceIdentity, GatewayError> {
        Self::load_as(path, rustix::process::geteuid().as_raw())
    }

    /// [`Self::load`] for the user `uid`: the file must be theirs (a key another user can
    /// replace would let them pose as this device) and private to them.
    fn load_as(path: &Path, uid: u32) -> Result<DeviceIdentity, GatewayError> {
        use std::os::unix::fs::MetadataExt;
        let bad = |problem: String| GatewayError::Identity {
            path: path.to_path_buf(),
            problem,
        };
        let meta = std::fs::metadata(path).map_err(|e| bad(e.to_string()))?;
        if meta.uid() != uid {
            return Err(bad(format!(
                "owned by uid {}, not by this user (uid {uid}); a device key must be the user's own: remove it to make a new one, or `chown` it",
                meta.uid()
            )));
        }
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(bad(format!(
                "the private key is readable by others (mode {mode:o}); run `chmod 600 {}`",
                path.display()
            )));
        }
        let text = crate::regular_file::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let file: IdentityFile = serde_json::from_str(&text)
            .map_err(|e| bad(format!("not a clawtop identity file ({e})")))?;
        if file.version != 1 || file.algorithm != "ed25519" {
            return Err(bad(format!(
                "unsupported identity version {} / algorithm {}",
                file.version, file.algorithm
            )));
        }
        let seed: [u8; 32] = URL_SAFE_NO_PAD
            .decode(file.private_key_seed.trim())
            .ok()
            .and_then(|v| v.try_into().ok())
            .ok_or_else(|| bad("the private key is not 32 base64url bytes".into()))?;
        let key = SigningKey::from_bytes(&seed);
        let public = key.verifying_key().to_bytes();
        if URL_SAFE_NO_PAD.encode(public) != file.public_key
            || device_id_of(&public) != file.device_id
        {
            return Err(bad(
                "the public key or device id does not match the private key (file damaged?)".into(),
            ));
        }
        Ok(DeviceIdentity {
            key,
            device_id: file.device_id,
            path: path.to_path_buf(),
        })
    }

    /// `hex(sha256(raw public key))`, as the gateway computes it.
    pub fn device_id(&self) -> &str {
        &self.device_id
    }

    /// The raw 32-byte public key, base64url without padding.
    pub fn public_key_b64url(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.key.verifying_key().to_bytes())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Ed25519 signature over `payload`, base64url without padding.
    pub fn sign(&self, payload: &str) -> String {
        URL_SAFE_NO_PAD.encode(self.key.sign(payload.as_bytes()).to_bytes())
    }
}

fn device_id_of(public: &[u8; 32]) -> String {
    hex::encode(Sha256::digest(public))
}

fn create_private_dir(dir: &Path) -> Result<(), GatewayError> {
    let err = |e: std::io::Error| GatewayError::Identity {
        path: dir.to_path_buf(),
        problem: format!("cannot create clawtop's config dir: {e}"),
    };
    if !dir.is_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(err)?;
    }
    Ok(())
}

/// The v3 device-auth payload the gateway verifies (reference §7, `buildDeviceAuthPayloadV3`):
/// `v3|deviceId|clientId|clientMode|role|scopes|signedAt|token|nonce|platform|deviceFamily`.
#[allow(clippy::too_many_arguments)]
pub fn v3_payload(
    device_id: &str,
    client_id: &str,
    client_mode: &str,
    role: &str,
    scopes: &[String],
    signed_at_ms: i64,
    token: &str,
    nonce: &str,
    platform: &str,
    device_family: &str,
) -> String {
    format!(
        "v3|{device_id}|{client_id}|{client_mode}|{role}|{}|{signed_at_ms}|{token}|{nonce}|{}|{}",
        scopes.join(","),
        platform.to_lowercase(),
        device_family.to_lowercase()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signature, Verifier, VerifyingKey};

    #[test]
    fn created_once_private_and_stable() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("cfg");
        let a = DeviceIdentity::load_or_create(&cfg).unwrap();
        let b = DeviceIdentity::load_or_create(&cfg).unwrap();
        assert_eq!(a.device_id(), b.device_id());
        assert_eq!(a.public_key_b64url(), b.public_key_b64url());
        let mode = std::fs::metadata(cfg.join(IDENTITY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let dmode = std::fs::metadata(&cfg).unwrap().permissions().mode();
        assert_eq!(dmode & 0o777, 0o700);
        // Debug never shows key material.
        let dbg = format!("{a:?}");
        let text = std::fs::read_to_string(cfg.join(IDENTITY_FILE)).unwrap();
        let f: IdentityFile = serde_json::from_str(&text).unwrap();
        assert!(!dbg.contains(&f.private_key_seed));
        // No temp files left behind.
        assert_eq!(std::fs::read_dir(&cfg).unwrap().count(), 1);
    }

    #[test]
    fn device_id_is_sha256_of_raw_public_key_and_signature_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let id = DeviceIdentity::load_or_create(dir.path()).unwrap();
        let raw: [u8; 32] = URL_SAFE_NO_PAD
            .decode(id.public_key_b64url())
            .unwrap()
            .try_into()
            .unwrap();
        assert_eq!(id.device_id(), device_id_of(&raw));
        assert_eq!(id.device_id().len(), 64);
        let payload = v3_payload(
            id.device_id(),
            "cli",
            "cli",
            "operator",
            &["operator.read".into(), "operator.write".into()],
            1_795_457_042_282,
            "tok",
            "n-1",
            "Linux",
            "",
        );
        assert_eq!(
            payload,
            format!(
                "v3|{}|cli|cli|operator|operator.read,operator.write|1795457042282|tok|n-1|linux|",
                id.device_id()
            )
        );
        let sig: [u8; 64] = URL_SAFE_NO_PAD
            .decode(id.sign(&payload))
            .unwrap()
            .try_into()
            .unwrap();
        let vk = VerifyingKey::from_bytes(&raw).unwrap();
        vk.verify(payload.as_bytes(), &Signature::from_bytes(&sig))
            .unwrap();
    }

    #[test]
    fn readable_by_others_or_damaged_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let id = DeviceIdentity::load_or_create(dir.path()).unwrap();
        let p = id.path().to_path_buf();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = DeviceIdentity::load_or_create(dir.path()).unwrap_err();
        assert!(e.to_string().contains("chmod 600"), "{e}");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["deviceId"] = "00".repeat(32).into();
        std::fs::write(&p, v.to_string()).unwrap();
        let e = DeviceIdentity::load_or_create(dir.path()).unwrap_err();
        assert!(e.to_string().contains("does not match"), "{e}");
    }

    #[test]
    fn a_key_file_owned_by_another_user_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let id = DeviceIdentity::load_or_create(dir.path()).unwrap();
        let me = rustix::process::geteuid().as_raw();
        let e = DeviceIdentity::load_as(id.path(), me.wrapping_add(1)).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(&format!("owned by uid {me}")), "{msg}");
        assert!(msg.contains(IDENTITY_FILE), "names the file: {msg}");
        assert!(DeviceIdentity::load_as(id.path(), me).is_ok());
    }
}
