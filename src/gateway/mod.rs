//! OpenClaw Gateway client (2026.9.x, protocol 4): the only way to change a SQLite-era host.
//!
//! No terminal code here; the CLI and the TUI call these and render the results.
//!
//! - [`target`]: which gateway and which token, found as OpenClaw's CLI finds them, with
//!   clawtop's overrides (`--gateway`, `--gateway-token-file`).
//! - [`identity`]: clawtop's own Ed25519 device identity (one stable keypair, mode 0600).
//! - [`client`]: the connection — challenge/connect handshake with the v3 signature, requests
//!   by id, events.
//! - [`ops`]: `sessions.list`, `sessions.describe`, `chat.history`, `sessions.subscribe`,
//!   `sessions.compact`, and `/compact <instructions>` through `chat.send`, each behind the
//!   active-run check.
//! - [`live`]: a reconnecting watcher that turns session events into "this session changed".
//! - [`running`]: whether a gateway likely runs beside a file-backed host (a loopback connect
//!   to its port), which the file source reports before a local write.
//! - [`error`]: every failure with what to do about it; server text neutralised, the token
//!   scrubbed.
//!
//! Facts: `docs/openclaw-2026.9.md` §7–§9 (observed on a real 2026.9.6 gateway).

pub mod client;
pub mod error;
pub mod identity;
pub mod live;
pub mod ops;
pub mod running;
pub mod target;

pub use client::{GatewayClient, GatewayEvent, Hello, Timeouts};
pub use error::{GatewayError, MAX_COMPACT_INSTRUCTIONS};
pub use identity::DeviceIdentity;
pub use live::{Backoff, LiveEvent};
pub use ops::{ChatHistory, CompactOutcome, SessionRow};
pub use target::{GatewayEnv, GatewayTarget, Overrides};
