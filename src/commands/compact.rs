//! `clawtop compact KEY|FILE` without `--dry-run`: generate a summary with the model and print
//! the preview (nothing written); `--yes` commits it; `--summary-file F --expect-leaf ID --yes`
//! commits an edited preview, refused when the transcript moved. The work is
//! [`crate::usecase::compact`]; this renders it.

use crate::llm::{CancellationToken, ClientOptions};
use crate::report::compact as plan_report;
use crate::sanitize;
use crate::source::SessionHandle;
use crate::usecase::{self, Exit, ModelChoice, Problem};
use serde_json::{Value, json};
use std::path::PathBuf;

pub struct CompactJob {
    pub session: SessionHandle,
    /// `--keep-recent-tokens` (None: the config's).
    pub keep_recent_tokens: Option<u64>,
    /// `--instructions` / `--instructions-file` (None: the config's customInstructions).
    pub instructions: Option<String>,
    pub summary_file: Option<PathBuf>,
    pub expect_leaf: Option<String>,
    pub expect_first_kept: Option<String>,
    pub yes: bool,
    pub json: bool,
    pub model: ModelChoice,
}

pub fn run(job: CompactJob) -> i32 {
    match run_inner(&job) {
        Ok(()) => Exit::OK,
        Err(p) => {
            super::report_error(&p.to_string(), p.exit_code());
            p.exit_code()
        }
    }
}

fn run_inner(job: &CompactJob) -> Result<(), Problem> {
    let p = usecase::compact::prepare(
        &job.session,
        &usecase::compact::Options {
            keep_recent_tokens: job.keep_recent_tokens,
            model: job.model.clone(),
        },
    )?;
    let draft = match &job.summary_file {
        Some(f) => edited_summary(job, &p, f)?,
        None => generated_summary(job, &p)?,
    };
    // What is printed as the preview is what the commit writes (the use case cleans it the
    // same way again at commit).
    let summary = sanitize::committable(&draft.summary);
    for w in &draft.warnings {
        eprintln!("clawtop: warning: {}", sanitize::one_line(w));
    }
    let committed = if job.yes {
        Some(usecase::compact::commit(&p, &summary)?)
    } else {
        None
    };
    let outcome = Outcome {
        tokens_after: committed
            .as_ref()
            .map(|c| c.tokens_after)
            .unwrap_or_else(|| {
                crate::compaction::tokens_after(p.transcript(), &p.prepared.plan, &summary)
            }),
        audit: usecase::compact::audit_draft(&p, &summary),
        summary,
        committed,
    };
    if job.json {
        print_json(&p, &draft, &outcome);
    } else {
        print_text(job, &p, &draft, &outcome);
    }
    Ok(())
}

/// The summary text and where it came from.
struct Draft {
    summary: String,
    provider: Option<String>,
    model: Option<String>,
    warnings: Vec<String>,
    /// The summarization requests made (None for an edited preview: no model was asked).
    requests: Option<Vec<crate::summary::RequestNote>>,
}

/// What was (or would be) written.
struct Outcome {
    summary: String,
    committed: Option<crate::compaction::Committed>,
    tokens_after: u64,
    audit: crate::audit::CompactionAudit,
}

/// An edited preview (`--summary-file`): only valid on the transcript state it was made for.
fn edited_summary(
    job: &CompactJob,
    p: &usecase::compact::Prepared,
    f: &std::path::Path,
) -> Result<Draft, Problem> {
    let t = p.transcript();
    let plan = &p.prepared.plan;
    let leaf_display = t.display_id(plan.leaf);
    let Some(expected) = &job.expect_leaf else {
        return Err(Problem::Usage(
            "--summary-file needs --expect-leaf ID (the leafId printed with the preview)".into(),
        ));
    };
    if expected != &leaf_display && Some(expected.as_str()) != t.entry_id(plan.leaf) {
        return Err(Problem::Refused(format!(
            "transcript changed since preview: leaf is {leaf_display}, the preview was made at {expected}"
        )));
    }
    let kept_display = t.display_id(plan.first_kept_entry);
    if let Some(fk) = &job.expect_first_kept {
        if fk != &kept_display && Some(fk.as_str()) != t.entry_id(plan.first_kept_entry) {
            return Err(Problem::Refused(format!(
                "the cut moved since the preview: it now keeps from {kept_display}, the summary was made for a cut at {fk} (check --keep-recent-tokens)"
            )));
        }
    }
    let text = std::fs::read_to_string(f)
        .map_err(|e| Problem::Failed(format!("cannot read summary file {}: {e}", f.display())))?;
    // Saving the preview (or an editor) ends the file with a newline the summary lacks.
    let text = text.strip_suffix('\n').map(str::to_string).unwrap_or(text);
    if text.trim().is_empty() {
        return Err(Problem::Failed(format!(
            "summary file {} is empty",
            f.display()
        )));
    }
    Ok(Draft {
        summary: text,
        provider: None,
        model: None,
        warnings: Vec::new(),
        requests: None,
    })
}

/// A summary the model writes now (Ctrl-C cancels it).
fn generated_summary(job: &CompactJob, p: &usecase::compact::Prepared) -> Result<Draft, Problem> {
    let model = p
        .model
        .clone()
        .map_err(|e| Problem::Failed(e.to_string()))?;
    if let Some(n) = &model.endpoint_note {
        eprintln!("clawtop: note: {}", crate::sanitize::one_line(n));
    }
    let instructions =
        usecase::compact::instructions(job.instructions.clone(), p.default_instructions.as_deref());
    let cancel = CancellationToken::new();
    let show_progress = !job.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Problem::Failed(e.to_string()))?;
    let out = rt.block_on(async {
        let c2 = cancel.clone();
        let ctrl_c = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                c2.cancel();
            }
        });
        let r = usecase::compact::generate(
            p,
            &model,
            instructions,
            ClientOptions::default(),
            cancel.clone(),
            super::progress_printer(show_progress),
        )
        .await;
        ctrl_c.abort();
        r
    });
    if show_progress {
        eprintln!();
    }
    let g = out?;
    Ok(Draft {
        summary: g.text,
        provider: Some(model.endpoint.provider.clone()),
        model: Some(model.endpoint.model.clone()),
        warnings: g.warnings,
        requests: Some(g.requests),
    })
}

fn print_json(p: &usecase::compact::Prepared, draft: &Draft, o: &Outcome) {
    let t = p.transcript();
    let key = p.store.as_ref().map(|s| s.session_key.as_str());
    let report = plan_report::from_plan(t, key, p.keep.source, &p.prepared.plan);
    let (summary, committed, tokens_after, audit) =
        (&o.summary, &o.committed, o.tokens_after, &o.audit);
    let (provider, model, warnings, requests) = (
        &draft.provider,
        &draft.model,
        &draft.warnings,
        &draft.requests,
    );
    let mut v = serde_json::to_value(&report).unwrap_or(Value::Null);
    if let Some(m) = v.as_object_mut() {
        m.insert("summary".into(), json!(summary));
        m.insert("provider".into(), json!(provider));
        m.insert("model".into(), json!(model));
        m.insert("committed".into(), json!(committed.is_some()));
        m.insert(
            "entryId".into(),
            json!(committed.as_ref().and_then(|c| c.entry_id.clone())),
        );
        m.insert("tokensAfter".into(), json!(tokens_after));
        // What this summary loses of the span it replaces (SPEC §6a).
        m.insert("audit".into(), json!(audit));
        // What the compaction costs and saves, as the dry run said (SPEC §10).
        m.insert(
            "economics".into(),
            json!(p.outlook.as_ref().and_then(|d| d.economics.as_ref())),
        );
        m.insert(
            "storeUpdated".into(),
            json!(committed.as_ref().map(|c| c.store_updated).unwrap_or(false)),
        );
        m.insert("warnings".into(), json!(warnings));
        // How many summarization requests were made and whether each carried the
        // operator's instructions (null for an edited preview: no model was asked).
        m.insert("requests".into(), json!(requests.as_ref().map(Vec::len)));
        m.insert(
            "requestsWithInstructions".into(),
            json!(
                requests
                    .as_ref()
                    .map(|r| r.iter().filter(|r| r.carried_instructions).count())
            ),
        );
        m.insert("requestDetails".into(), json!(requests));
    }
    print!("{}", crate::report::json::to_string(&v));
}

fn print_text(job: &CompactJob, p: &usecase::compact::Prepared, draft: &Draft, o: &Outcome) {
    let t = p.transcript();
    let plan = &p.prepared.plan;
    let key = p.store.as_ref().map(|s| s.session_key.as_str());
    let report = plan_report::from_plan(t, key, p.keep.source, plan);
    let leaf_display = t.display_id(plan.leaf);
    let (summary, committed, tokens_after, audit) =
        (&o.summary, &o.committed, o.tokens_after, &o.audit);
    let requests = &draft.requests;
    let who = key
        .map(str::to_string)
        .unwrap_or_else(|| p.transcript.display().to_string());
    super::print_text(summary);
    // On stderr with the footer, so `> summary.md` captures only the summary.
    eprintln!("Audit: {}", crate::report::audit::draft_line(audit));
    if let Some(e) = p.outlook.as_ref().and_then(|d| d.economics.as_ref()) {
        eprintln!("Economics: {}", e.line());
    }
    match committed {
        Some(c) => println!(
            "Committed: compaction entry {} appended to {}{}; expected after ≈{} (overhead + kept + summary; tokensBefore {}).",
            c.entry_id
                .clone()
                .unwrap_or_else(|| "(v1: id assigned by pi on load)".into()),
            sanitize::one_line(&p.transcript.display().to_string()),
            if c.store_updated {
                format!(", sessions.json entry {} updated", sanitize::one_line(&who))
            } else {
                String::new()
            },
            crate::thresholds::thousands(tokens_after),
            crate::thresholds::thousands(report.tokens_before)
        ),
        None => {
            if let Some(r) = &requests {
                let with = r.iter().filter(|r| r.carried_instructions).count();
                eprintln!(
                    "{} model request{}; {}",
                    r.len(),
                    if r.len() == 1 { "" } else { "s" },
                    if crate::instructions::Instructions::from_opt(job.instructions.as_deref())
                        .is_some()
                    {
                        format!("{with} of {} carried your instructions", r.len())
                    } else {
                        "no instructions given".to_string()
                    }
                );
            }
            // The footer goes to stderr so `> summary.md` captures only the summary.
            eprintln!(
                "Preview only: nothing written. Summarizes {} messages (+{} turn-prefix), keeps from {}; expected after ≈{} (overhead + kept + summary; tokensBefore {}).\n\
                 To commit exactly this text, save it (stdout) to FILE, edit it if you like, and run:\n  \
                 clawtop compact {} --summary-file FILE --expect-leaf {} --expect-first-kept {} --keep-recent-tokens {} --yes\n\
                 (--yes without --summary-file asks the model again and commits that new answer.)",
                report.messages_to_summarize,
                report.turn_prefix_messages,
                sanitize::one_line(&t.display_id(plan.first_kept_entry)),
                crate::thresholds::thousands(tokens_after),
                crate::thresholds::thousands(report.tokens_before),
                sanitize::one_line(&who),
                sanitize::one_line(&leaf_display),
                sanitize::one_line(&t.display_id(plan.first_kept_entry)),
                p.keep.value,
            );
        }
    }
}
