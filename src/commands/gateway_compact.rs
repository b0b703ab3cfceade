//! `clawtop compact KEY [--instructions …] [--yes]` through OpenClaw's Gateway: renders
//! [`crate::usecase::gateway_compact`]. Without `--yes` nothing is sent; the command says what it
//! would ask and that OpenClaw writes its own summary (no preview to edit on such a host).

use std::time::Duration;

use serde_json::json;

use crate::format::thousands;
use crate::gateway::{CompactOutcome, GatewayTarget};
use crate::sanitize;
use crate::source::SessionHandle;
use crate::usecase::Exit;
use crate::usecase::gateway_compact::{self, GatewayReport};

pub struct GatewayCompactJob {
    pub target: GatewayTarget,
    pub key: String,
    pub instructions: Option<String>,
    pub yes: bool,
    pub json: bool,
    /// How long to wait for OpenClaw's summary.
    pub wait: Duration,
    /// The caller checked OpenClaw's transcript lock itself (a file-backed host's own gateway).
    pub vouch_idle: bool,
    /// The session as clawtop reads the host, to read back what OpenClaw wrote (None: the
    /// host is reached only through its gateway).
    pub host: Option<SessionHandle>,
    /// `host` was found by key on a local state dir while the gateway was named by address:
    /// it is read back only if the gateway's row has the same sessionId (the same session).
    pub host_by_key_only: bool,
}

pub fn run(job: GatewayCompactJob) -> i32 {
    let fail = |code: i32, msg: &str| {
        eprintln!("clawtop: {}", sanitize::one_line(msg));
        code
    };
    let instructions = match gateway_compact::instructions(job.instructions.as_deref()) {
        Ok(i) => i,
        Err(e) => return fail(e.exit_code(), &e.to_string()),
    };
    let how = match &instructions {
        Some(_) => "/compact with your instructions as focus text",
        None => "sessions.compact",
    };
    let key = sanitize::one_line(&job.key);
    if !job.yes {
        let text = format!(
            "Would ask the gateway at {} to compact {key} ({how}). OpenClaw writes the summary with its own model; \
             there is no preview to edit on this host. Nothing was sent; add --yes to run it.",
            job.target.url
        );
        if job.json {
            println!(
                "{}",
                json!({"ok": true, "sent": false, "gateway": job.target.url, "key": job.key, "via": how, "note": text})
            );
        } else {
            println!("{text}");
        }
        return Exit::OK;
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            return fail(
                Exit::FAILED,
                &format!("cannot start the async runtime: {e}"),
            );
        }
    };
    let req = gateway_compact::Request {
        target: job.target.clone(),
        key: job.key.clone(),
        instructions,
        wait: job.wait,
        vouch_idle: job.vouch_idle,
        host: job.host.clone(),
        host_by_key_only: job.host_by_key_only,
        identity_dir: None,
    };
    let step = |s: gateway_compact::Step| {
        if s == gateway_compact::Step::Sent {
            eprintln!(
                "clawtop: compacting {key} through the gateway at {} ({how}); waiting up to {}s for OpenClaw's summary",
                job.target.url,
                job.wait.as_secs()
            )
        }
    };
    match rt.block_on(gateway_compact::run(req, step)) {
        Ok(r) => render(&job, &r),
        Err(gateway_compact::GatewayCompactError::NotCompacted { reason }) => {
            if job.json {
                println!(
                    "{}",
                    json!({"ok": false, "sent": true, "compacted": false, "gateway": job.target.url, "key": job.key, "reason": reason})
                );
            }
            fail(
                Exit::FAILED,
                &format!("OpenClaw did not compact {key}: {reason}"),
            )
        }
        Err(e) => fail(e.exit_code(), &e.to_string()),
    }
}

use gateway_compact::{or_unknown as count, row_used as used};

fn render(job: &GatewayCompactJob, r: &GatewayReport) -> i32 {
    let key = sanitize::one_line(&job.key);
    let (c, w) = (&r.compaction, &r.written);
    match &c.outcome {
        CompactOutcome::Compacted { notice, .. } => {
            if job.json {
                let v = json!({
                    "ok": true, "sent": true, "compacted": true, "gateway": job.target.url, "key": job.key,
                    "before": {"totalTokens": c.before.total_tokens, "fresh": c.before.total_tokens_fresh},
                    "after": {"totalTokens": c.after.total_tokens, "fresh": c.after.total_tokens_fresh},
                    "contextTokens": c.after.context_tokens,
                    "tokensBefore": w.tokens_before, "tokensAfter": w.tokens_after,
                    "compactionCountBefore": w.compaction_count_before,
                    "compactionCount": w.compaction_count,
                    "summary": w.summary, "summaryFrom": w.summary_from,
                    "notice": notice,
                });
                println!("{v}");
            } else {
                let window = c
                    .after
                    .context_tokens
                    .map(thousands)
                    .unwrap_or_else(|| "unknown".into());
                println!(
                    "Compacted {key} through the gateway at {}: used {} → {} of {window}.",
                    job.target.url,
                    used(&c.before),
                    used(&c.after),
                );
                println!(
                    "OpenClaw wrote: tokensBefore {} → tokensAfter {}; compactionCount {} → {}.",
                    count(w.tokens_before),
                    count(w.tokens_after),
                    count(w.compaction_count_before),
                    count(w.compaction_count),
                );
                if let Some(n) = notice {
                    println!("OpenClaw: {}", sanitize::one_line(n));
                }
                match &w.summary {
                    Some(s) => println!(
                        "\nOpenClaw's summary ({}):\n{}",
                        sanitize::one_line(&w.summary_from),
                        sanitize::for_terminal(s, true)
                    ),
                    None => println!("Summary {}.", sanitize::one_line(&w.summary_from)),
                }
            }
            Exit::OK
        }
        // [`gateway_compact::run`] returns a refusal as its error, never in a report.
        CompactOutcome::NotCompacted { reason } => {
            eprintln!(
                "clawtop: OpenClaw did not compact {key}: {}",
                sanitize::one_line(reason)
            );
            Exit::FAILED
        }
    }
}
