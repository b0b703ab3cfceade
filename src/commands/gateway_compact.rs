//! `clawtop compact KEY [--instructions …] [--yes]` through OpenClaw's Gateway: renders
//! [`crate::usecase::gateway_compact`]. Without `--yes` nothing is sent; the command says what it
//! would ask and that OpenClaw writes its own summary (no preview to edit on such a host).

use std::time::Duration;

use serde_json::json;

use crate::gateway::{CompactOutcome, GatewayTarget, SessionRow};
use crate::sanitize;
use crate::thresholds::thousands;
use crate::usecase::Exit;
use crate::usecase::gateway_compact::{self, GatewayCompaction};

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
    let started = || {
        eprintln!(
            "clawtop: compacting {key} through the gateway at {} ({how}); waiting up to {}s for OpenClaw's summary",
            job.target.url,
            job.wait.as_secs()
        )
    };
    let done = rt.block_on(gateway_compact::compact(
        &job.target,
        &job.key,
        instructions.as_deref(),
        job.wait,
        job.vouch_idle,
        started,
    ));
    match done {
        Ok(c) => render(&job, &c),
        Err(e) => fail(e.exit_code(), &e.to_string()),
    }
}

fn used(r: &SessionRow) -> String {
    match (r.total_tokens, r.total_tokens_fresh) {
        (Some(t), Some(true)) => thousands(t),
        (Some(t), _) => format!("{} (not fresh)", thousands(t)),
        (None, _) => "unknown".into(),
    }
}

fn render(job: &GatewayCompactJob, c: &GatewayCompaction) -> i32 {
    let key = sanitize::one_line(&job.key);
    match &c.outcome {
        CompactOutcome::Compacted {
            summary, notice, ..
        } => {
            if job.json {
                let v = json!({
                    "ok": true, "sent": true, "compacted": true, "gateway": job.target.url, "key": job.key,
                    "before": {"totalTokens": c.before.total_tokens, "fresh": c.before.total_tokens_fresh},
                    "after": {"totalTokens": c.after.total_tokens, "fresh": c.after.total_tokens_fresh},
                    "contextTokens": c.after.context_tokens,
                    "summary": summary, "notice": notice,
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
                if let Some(n) = notice {
                    println!("OpenClaw: {}", sanitize::one_line(n));
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
            Exit::OK
        }
        CompactOutcome::NotCompacted { reason } => {
            if job.json {
                println!(
                    "{}",
                    json!({"ok": false, "sent": true, "compacted": false, "gateway": job.target.url, "key": job.key, "reason": reason})
                );
            }
            eprintln!(
                "clawtop: OpenClaw did not compact {key}: {}",
                sanitize::one_line(reason)
            );
            Exit::FAILED
        }
    }
}
