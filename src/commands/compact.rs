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
    /// `--flush-first` / `--no-flush` (neither: a due flush refuses the compaction).
    pub flush: usecase::compact::FlushChoice,
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
    let opts = usecase::compact::Options {
        keep_recent_tokens: job.keep_recent_tokens,
        model: job.model.clone(),
    };
    let mut p = usecase::compact::prepare(&job.session, &opts)?;
    // OpenClaw's order: a due flush first, unless the operator skipped it (the use case decides).
    let flushed = match usecase::compact::flush_first(&p, job.flush)? {
        usecase::compact::FlushStep::Compact => None,
        usecase::compact::FlushStep::FlushThenCompact => {
            let f = super::flush::before_compaction(&job.session, &job.model, job.yes, job.json)?;
            // Planned again on the files as they are after the flush.
            p = usecase::compact::prepare(&job.session, &opts)?;
            Some(f)
        }
    };
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
            .unwrap_or_else(|| usecase::compact::written(&p, &summary).tokens_after),
        audit: usecase::compact::audit_draft(&p, &summary),
        summary,
        committed,
    };
    if job.json {
        print_json(&p, &draft, &outcome, flushed);
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
    if expected != &leaf_display && Some(expected.as_str()) != t.entry_id(plan.leaf).as_deref() {
        return Err(Problem::Refused(format!(
            "transcript changed since preview: leaf is {leaf_display}, the preview was made at {expected}"
        )));
    }
    let kept_display = t.display_id(plan.first_kept_entry);
    if let Some(fk) = &job.expect_first_kept {
        if fk != &kept_display && Some(fk.as_str()) != t.entry_id(plan.first_kept_entry).as_deref()
        {
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

fn print_json(p: &usecase::compact::Prepared, draft: &Draft, o: &Outcome, flushed: Option<Value>) {
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
        // The flush run first (--flush-first), null when none ran.
        m.insert("flushFirst".into(), flushed.unwrap_or(Value::Null));
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
            crate::format::thousands(tokens_after),
            crate::format::thousands(report.tokens_before)
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
                 clawtop compact {} --summary-file FILE --expect-leaf {} --expect-first-kept {} --keep-recent-tokens {}{} --yes\n\
                 (--yes without --summary-file asks the model again and commits that new answer.)",
                report.messages_to_summarize,
                report.turn_prefix_messages,
                sanitize::one_line(&t.display_id(plan.first_kept_entry)),
                crate::format::thousands(tokens_after),
                crate::format::thousands(report.tokens_before),
                sanitize::one_line(&who),
                sanitize::one_line(&leaf_display),
                sanitize::one_line(&t.display_id(plan.first_kept_entry)),
                p.keep.value,
                match job.flush {
                    usecase::compact::FlushChoice::FlushFirst => " --flush-first",
                    usecase::compact::FlushChoice::Skip => " --no-flush",
                    usecase::compact::FlushChoice::Unsaid => "",
                },
            );
        }
    }
}

// ---------------------------------------------------------------- the verb, from the command line

use super::args::*;
use super::host::*;
use crate::commands::{out, report_error};
use crate::report::json;
use crate::source::SessionSource;

pub(crate) fn cmd_compact(g: &Global, a: &CompactArgs) -> i32 {
    use crate::usecase::route::{self, Door, Route};
    if g.gateway.is_some() {
        return compact_on_gateway_url(g, a);
    }
    let target = match resolve_target(g, &a.target, Exit::REFUSED) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let door = match (&target, a.via_gateway) {
        (_, false) => Door::Default,
        (Target::File(_), true) => {
            return usage(
                "--via-gateway compacts a session of a host; a bare transcript file has no gateway",
            );
        }
        (Target::Session { seen_gateway, .. }, true) => Door::HostGateway {
            seen_port: *seen_gateway,
        },
    };
    let handle = target.handle();
    // A file-backed host's gateway does not report runs: OpenClaw's transcript lock is checked
    // first, whatever the route (a busy session is refused before anything else is said).
    if a.via_gateway {
        if let Err(e) = crate::usecase::refuse_if_busy(&handle) {
            return refuse(e.to_string());
        }
    }
    // The use cases' router is the one place that decides where this compaction goes; the
    // dry run starts from the same answer as the commit, so it refuses what the commit
    // refuses, with the same exit code and reason.
    match route::route(&handle, crate::source::Operation::Compact, door) {
        // Why the session has no transcript (a FIFO, a link out of the sessions dir) was
        // found while listing: said with the refusal.
        Route::ReadOnly(why) => match &target {
            Target::Session { session, .. }
                if session.transcript.is_none() && !session.warnings.is_empty() =>
            {
                refuse(format!("{why}: {}", session.warnings.join("; ")))
            }
            _ => refuse(&why),
        },
        // A local SQLite host: the dry run shows clawtop's reading of the transcript; the
        // commit is OpenClaw's (it plans and summarizes with its own model).
        Route::Gateway(r) if a.dry_run && !a.via_gateway => {
            eprintln!(
                "note: this session is compacted through {}: OpenClaw plans and writes the summary; the plan below is clawtop's reading of the transcript",
                crate::sanitize::one_line(&r.via)
            );
            compact_dry_run(&target, a, None)
        }
        Route::Gateway(r) => {
            let key = match &target {
                Target::Session { session, .. } => session.key().to_string(),
                Target::File(_) => a.target.clone(),
            };
            let host = (a.yes || r.vouch_idle).then(|| handle.clone());
            compact_through_gateway(a, *r, key, host, false)
        }
        Route::Local(_) if a.dry_run => {
            // Its transcript and diagnosis are reused (the file is read and diagnosed once).
            let opts = crate::usecase::compact::Options {
                keep_recent_tokens: a.keep_recent_tokens,
                model: crate::usecase::ModelChoice::default(),
            };
            match crate::usecase::compact::prepare(&handle, &opts) {
                Ok(p) => compact_dry_run(&target, a, Some(p)),
                Err(p) if p.exit_code() == Exit::REFUSED => {
                    report_error(&p.to_string(), p.exit_code());
                    p.exit_code()
                }
                // No plan: the dry run still shows the figures and what to do instead.
                Err(_) => compact_dry_run(&target, a, None),
            }
        }
        Route::Local(_) => compact_commit(&target, a),
    }
}

/// `compact --dry-run`: the plan and the diagnosis, from the use case's prepared transcript
/// when there is one.
pub(crate) fn compact_dry_run(
    target: &Target,
    a: &CompactArgs,
    prepared: Option<crate::usecase::compact::Prepared>,
) -> i32 {
    let (source, reference, key): (&dyn SessionSource, _, _) = match target {
        Target::File(f) => (f.as_ref(), f.reference(), None),
        Target::Session {
            source, session, ..
        } => {
            if session.transcript.is_none() {
                return fail(format!(
                    "session {} has no transcript: {}",
                    session.key(),
                    session.warnings.join("; ")
                ));
            }
            (
                source.as_ref(),
                session.reference.clone(),
                Some(session.key()),
            )
        }
    };
    let opened;
    let t: &crate::transcript::Transcript = match &prepared {
        Some(p) => p.transcript(),
        None => {
            opened = match source.open_transcript(&reference) {
                Ok(t) => t,
                Err(e) => return fail(e.to_string()),
            };
            &opened
        }
    };
    let mut warnings = Vec::new();
    crate::numbers::push_transcript_warnings(t, &mut warnings);
    let keep = keep_recent(a.keep_recent_tokens, source);
    let session = match target {
        Target::Session { session, .. } => Some(session.as_ref()),
        Target::File(_) => None,
    };
    let (diag, busy) = match prepared.as_ref().and_then(|p| p.outlook.clone()) {
        Some(d) => (*d, crate::diagnosis::busy(t.path())),
        None => {
            let (d, b, _) = crate::diagnosis::gather::for_target(source, session, t, keep.0);
            (d, b)
        }
    };
    // The use case already planned on this transcript; the plan is a function of the
    // transcript and keepRecentTokens, so it is reused rather than made (and its files read)
    // again.
    let planned = prepared
        .as_ref()
        .map(|p| &p.prepared.plan)
        .filter(|p| p.keep_recent_tokens == keep.0);
    let report = match planned {
        Some(p) => Ok(crate::report::compact::from_plan(t, key, keep.1, p)),
        None => crate::report::compact::build(t, key, keep).map(|(r, _)| r),
    };
    match report {
        Ok(r) => {
            if a.json {
                out(&json::to_string(&crate::report::compact::DryRun {
                    plan: r,
                    busy,
                    diagnosis: diag,
                }));
            } else {
                out(&crate::report::compact::render(&r));
                out(&crate::report::compact::render_diagnosis(
                    &diag,
                    busy.as_ref(),
                ));
            }
            warn_all(&warnings);
            Exit::OK
        }
        Err(why) => {
            warn_all(&warnings);
            // No plan, but the operator still gets the figures and what to do instead.
            eprint!(
                "{}",
                crate::report::compact::render_diagnosis(&diag, busy.as_ref())
            );
            fail(format!("{}: {why}", t.path().display()))
        }
    }
}

/// `compact --gateway URL KEY`: a host reached only through its Gateway (a tunnel); no local
/// state is needed. The key is sent as given (the gateway finds the session); the router
/// still decides, on a session named by that key.
pub(crate) fn compact_on_gateway_url(g: &Global, a: &CompactArgs) -> i32 {
    use crate::usecase::route::{self, Door, Route};
    if a.via_gateway {
        return usage(
            "--via-gateway uses the host's own gateway; --gateway names one: give one of them",
        );
    }
    let source = match source_for(g) {
        Ok(s) => s,
        Err(e) => return fail(e.to_string()),
    };
    let reference = crate::source::SessionRef {
        source: source.label(),
        agent_id: crate::source::gateway::agent_of(&a.target),
        key: a.target.clone(),
        session_id: String::new(),
    };
    let handle = SessionHandle::new(source, reference);
    match route::route(&handle, crate::source::Operation::Compact, Door::Default) {
        Route::Gateway(r) => {
            // Where clawtop reads back what OpenClaw wrote: a local state dir, when there is
            // one, matched by key (see `GatewayCompactJob::host_by_key_only`).
            let host = (!a.dry_run && a.yes)
                .then(|| open_host(g).ok())
                .flatten()
                .and_then(|h| session_by_key(crate::source::for_host(h), &a.target));
            compact_through_gateway(a, *r, a.target.clone(), host, true)
        }
        Route::ReadOnly(why) => refuse(&why),
        Route::Local(_) => fail("a gateway source answered with a local writer"),
    }
}

/// A compaction OpenClaw's Gateway performs: the flags that only a local compaction takes are
/// refused, and the job runs (where `route.vouch_idle`, the caller checked the transcript lock).
pub(crate) fn compact_through_gateway(
    a: &CompactArgs,
    route: crate::usecase::route::GatewayRoute,
    key: String,
    host: Option<SessionHandle>,
    host_by_key_only: bool,
) -> i32 {
    use crate::commands::gateway_compact::{self, GatewayCompactJob};
    let local_only = [
        (a.dry_run, "--dry-run"),
        (a.summary_file.is_some(), "--summary-file"),
        (a.expect_leaf.is_some(), "--expect-leaf"),
        (a.expect_first_kept.is_some(), "--expect-first-kept"),
        (a.keep_recent_tokens.is_some(), "--keep-recent-tokens"),
        (
            a.model.provider.is_some()
                || a.model.model.is_some()
                || a.model.base_url.is_some()
                || a.model.api.is_some()
                || a.model.api_key_env.is_some(),
            "model flags",
        ),
    ];
    if let Some((_, flag)) = local_only.iter().find(|(set, _)| *set) {
        return usage(&format!(
            "{flag} does not apply through the gateway: OpenClaw plans and writes the summary with its own model \
             (use --instructions to give it focus text)"
        ));
    }
    let instructions = match read_instructions(&a.instructions, &a.instructions_file) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    gateway_compact::run(GatewayCompactJob {
        target: route.target,
        key,
        instructions,
        yes: a.yes,
        json: a.json,
        wait: crate::gateway::ops::COMPACT_WAIT,
        vouch_idle: route.vouch_idle,
        host_by_key_only,
        host,
    })
}

/// The session `key` of a local host, to read back what its gateway wrote.
pub(crate) fn session_by_key(
    source: crate::source::SourceHandle,
    key: &str,
) -> Option<crate::source::SessionHandle> {
    let found = source
        .listing_for(None, key)
        .sessions
        .into_iter()
        .find(|s| s.key() == key)?;
    Some(crate::source::SessionHandle::new(source, found.reference))
}

/// The write path of `compact`: generate, preview, and commit with `--yes`.
pub(crate) fn compact_commit(target: &Target, a: &CompactArgs) -> i32 {
    let (model, instructions) =
        match model_and_instructions(&a.model, &a.instructions, &a.instructions_file) {
            Ok(x) => x,
            Err(code) => return code,
        };
    crate::commands::compact::run(crate::commands::compact::CompactJob {
        session: target.handle(),
        keep_recent_tokens: a.keep_recent_tokens,
        instructions,
        summary_file: a.summary_file.clone(),
        expect_leaf: a.expect_leaf.clone(),
        expect_first_kept: a.expect_first_kept.clone(),
        yes: a.yes,
        json: a.json,
        model,
        flush: match (a.flush_first, a.no_flush) {
            (true, _) => crate::usecase::compact::FlushChoice::FlushFirst,
            (_, true) => crate::usecase::compact::FlushChoice::Skip,
            _ => crate::usecase::compact::FlushChoice::Unsaid,
        },
    })
}
