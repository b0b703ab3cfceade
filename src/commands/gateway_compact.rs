//! `clawtop compact KEY [--instructions …] --yes` on a host whose sessions only OpenClaw's
//! Gateway may change (a SQLite host, or one reached with `--gateway` through a tunnel).
//!
//! Order, and why:
//! 1. Without `--yes` nothing is sent: the command says what it would ask the gateway to do
//!    and that OpenClaw writes its own summary (there is no preview to edit on such a host).
//! 2. The instructions are checked against OpenClaw's 800-character cap before connecting.
//! 3. Connect with clawtop's own device identity; read the session's row (`sessions.list`)
//!    for the "before" figures; refuse (exit 3) while a run is active, sending nothing.
//! 4. `sessions.compact` without instructions, `/compact <instructions>` with them; wait for
//!    the result (bounded; on timeout say that OpenClaw may still finish).
//! 5. Read the row again and report before → after, and the summary when the gateway returns
//!    one (`sessions.compact` does; `/compact` only returns its status notice).

use std::time::Duration;

use serde_json::{Value, json};

use super::Exit;
use crate::gateway::{
    CompactOutcome, DeviceIdentity, GatewayClient, GatewayError, GatewayTarget, SessionRow,
    Timeouts, identity, ops,
};
use crate::sanitize;

pub struct GatewayCompactJob {
    pub target: GatewayTarget,
    pub key: String,
    pub instructions: Option<String>,
    pub yes: bool,
    pub json: bool,
    /// How long to wait for OpenClaw's summary.
    pub wait: Duration,
}

/// Exit code for a gateway failure.
pub fn exit_code(e: &GatewayError) -> i32 {
    match e {
        GatewayError::ActiveRun { .. } => Exit::REFUSED,
        GatewayError::InstructionsTooLong { .. } | GatewayError::BadUrl { .. } => Exit::USAGE,
        _ => Exit::FAILED,
    }
}

pub fn run(job: GatewayCompactJob) -> i32 {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("clawtop: cannot start the async runtime: {e}");
            return Exit::FAILED;
        }
    };
    match rt.block_on(run_inner(&job)) {
        Ok(()) => Exit::OK,
        Err((code, msg)) => {
            eprintln!("clawtop: {}", sanitize::one_line(&msg));
            code
        }
    }
}

async fn run_inner(job: &GatewayCompactJob) -> Result<(), (i32, String)> {
    let fail = |e: GatewayError| (exit_code(&e), e.to_string());
    let instructions = match &job.instructions {
        Some(t) => Some(ops::check_instructions(t).map_err(fail)?.to_string()),
        None => None,
    }
    .filter(|t| !t.is_empty());
    let how = match &instructions {
        Some(_) => "/compact with your instructions as focus text",
        None => "sessions.compact",
    };
    if !job.yes {
        let text = format!(
            "Would ask the gateway at {} to compact {} ({how}). OpenClaw writes the summary with its own model; \
             there is no preview to edit on this host. Nothing was sent; add --yes to run it.",
            job.target.url,
            sanitize::one_line(&job.key)
        );
        if job.json {
            println!(
                "{}",
                json!({"ok": true, "sent": false, "gateway": job.target.url, "key": job.key, "via": how, "note": text})
            );
        } else {
            println!("{text}");
        }
        return Ok(());
    }
    let dir = identity::config_dir().ok_or_else(|| {
        (
            Exit::FAILED,
            "no config dir for clawtop's device identity: set HOME or CLAWTOP_CONFIG_DIR".into(),
        )
    })?;
    let id = DeviceIdentity::load_or_create(&dir).map_err(fail)?;
    let client = GatewayClient::connect(&job.target, &id, Timeouts::default())
        .await
        .map_err(fail)?;
    let before = row(&client, &job.key).await?;
    eprintln!(
        "clawtop: compacting {} through the gateway at {} ({how}); waiting up to {}s for OpenClaw's summary",
        sanitize::one_line(&job.key),
        job.target.url,
        job.wait.as_secs()
    );
    let outcome = match &instructions {
        Some(t) => {
            client
                .compact_with_instructions(&job.key, t, job.wait)
                .await
        }
        None => client.compact(&job.key).await,
    }
    .map_err(fail)?;
    let after = row(&client, &job.key).await?;
    client.close().await;
    report(job, &before, &after, &outcome)
}

async fn row(client: &GatewayClient, key: &str) -> Result<SessionRow, (i32, String)> {
    let rows = client
        .sessions_list()
        .await
        .map_err(|e| (exit_code(&e), e.to_string()))?;
    rows.into_iter().find(|r| r.key == key).ok_or_else(|| {
        (
            Exit::FAILED,
            format!(
                "unknown session {} on the gateway at {} (clawtop list shows the keys)",
                sanitize::one_line(key),
                client.url()
            ),
        )
    })
}

fn used(r: &SessionRow) -> String {
    match (r.total_tokens, r.total_tokens_fresh) {
        (Some(t), Some(true)) => crate::thresholds::thousands(t),
        (Some(t), _) => format!("{} (not fresh)", crate::thresholds::thousands(t)),
        (None, _) => "unknown".into(),
    }
}

fn report(
    job: &GatewayCompactJob,
    before: &SessionRow,
    after: &SessionRow,
    outcome: &CompactOutcome,
) -> Result<(), (i32, String)> {
    let window = after
        .context_tokens
        .map(crate::thresholds::thousands)
        .unwrap_or_else(|| "unknown".into());
    match outcome {
        CompactOutcome::Compacted {
            summary, notice, ..
        } => {
            if job.json {
                let v: Value = json!({
                    "ok": true, "sent": true, "compacted": true, "gateway": job.target.url, "key": job.key,
                    "before": {"totalTokens": before.total_tokens, "fresh": before.total_tokens_fresh},
                    "after": {"totalTokens": after.total_tokens, "fresh": after.total_tokens_fresh},
                    "contextTokens": after.context_tokens,
                    "summary": summary, "notice": notice,
                });
                println!("{v}");
            } else {
                println!(
                    "Compacted {} through the gateway at {}: used {} → {} of {}.",
                    sanitize::one_line(&job.key),
                    job.target.url,
                    used(before),
                    used(after),
                    window
                );
                if let Some(n) = notice {
                    println!("OpenClaw: {n}");
                }
                match summary {
                    Some(s) => {
                        println!("\nOpenClaw's summary:\n{}", sanitize::for_terminal(s, true))
                    }
                    None => println!(
                        "The gateway does not return the summary of a /compact; it is in the session's transcript on the host."
                    ),
                }
            }
            Ok(())
        }
        CompactOutcome::NotCompacted { reason } => {
            if job.json {
                println!(
                    "{}",
                    json!({"ok": false, "sent": true, "compacted": false, "gateway": job.target.url, "key": job.key, "reason": reason})
                );
            }
            Err((
                Exit::FAILED,
                format!("OpenClaw did not compact {}: {reason}", job.key),
            ))
        }
    }
}
