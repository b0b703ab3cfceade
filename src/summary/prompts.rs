//! clawtop's own prompt wording. The summary *format* (section headings and their order) is
//! the one pi and OpenClaw write and read back (docs/pi-compaction.md §6),
//! so summaries made here look like every other compaction in the transcript.

pub const SYSTEM: &str = "You write context checkpoints. You are given the transcript of a working session between a user and an AI assistant, and you produce a structured summary of it in the exact format requested.

Never reply to the user, never carry on the conversation and never answer questions found in it. Your whole answer is the summary.";

/// First compaction of a session (no previous summary).
pub const INITIAL: &str = "Summarize the conversation above as a checkpoint that another model will use to carry on the work without the original messages.

Answer in exactly this format:

## Goal
[What the user wants to achieve; list several goals if the session covered several tasks.]

## Constraints & Preferences
- [Requirements, constraints or preferences the user stated]
- [Or \"(none)\" when there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work under way]

### Blocked
- [What stops progress, if anything]

## Key Decisions
- **[Decision]**: [Why, in a few words]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, examples, references or values needed to continue]
- [Or \"(none)\" when nothing applies]

Be brief in every section. Keep file paths, function names, identifiers and error messages exactly as written.";

/// Later compactions: fold new messages into the previous summary.
pub const UPDATE: &str = "The conversation above contains NEW messages. Merge them into the existing summary given in the <previous-summary> tags.

Rules:
- KEEP everything in the previous summary that is still true
- ADD the new progress, decisions and context
- MOVE items from \"In Progress\" to \"Done\" once they are finished
- REWRITE \"Next Steps\" to match where the work now stands
- KEEP file paths, function names, identifiers and error messages exactly as written
- DROP only what is clearly obsolete

Answer in exactly this format:

## Goal
[Earlier goals, plus any new ones]

## Constraints & Preferences
- [Earlier ones, plus any new ones]

## Progress
### Done
- [x] [Earlier finished items AND newly finished items]

### In Progress
- [ ] [Current work, updated]

### Blocked
- [Current blockers; remove resolved ones]

## Key Decisions
- **[Decision]**: [Why, in a few words] (keep the earlier ones, add new ones)

## Next Steps
1. [Updated to the current state]

## Critical Context
- [Important context, earlier and new]

Be brief in every section. Keep file paths, function names, identifiers and error messages exactly as written.";

/// The beginning of a turn that is cut in two: its end stays verbatim after the summary.
pub const TURN_PREFIX: &str = "The conversation above is the BEGINNING of one long turn. Its end (the most recent work) is kept word for word after this summary, so summarize only what is needed to make that end understandable:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions taken and work done in this first part]

## Context for Suffix
- [What the kept end of the turn relies on]

Be brief.";

/// Combining the partial summaries of staged summarization.
pub const MERGE: &str = "The user messages above are partial summaries of consecutive parts of one session, oldest first. Combine them into one summary. Keep: tasks and their status, progress counts, the user's latest request and what was being done about it, decisions with their reasons, open questions, TODOs, constraints and promised follow-ups. Prefer recent facts where parts disagree.";

/// How custom instructions are attached (the wording pi and OpenClaw use, so operators'
/// existing `customInstructions` behave the same here).
pub const FOCUS_PREFIX: &str = "\n\nAdditional focus: ";

/// Heading that joins the history summary and the split-turn prefix summary.
pub const TURN_CONTEXT_JOIN: &str = "\n\n---\n\n**Turn Context (split turn):**\n\n";

/// What a compaction says when there was nothing earlier to summarize.
pub const NO_PRIOR_HISTORY: &str = "No prior history.";

/// The user text of one summarization request.
pub fn user_text(
    serialized: &str,
    previous: Option<&str>,
    base: &str,
    instructions: Option<&str>,
) -> String {
    let mut t = format!("<conversation>\n{serialized}\n</conversation>\n\n");
    if let Some(p) = previous {
        t.push_str(&format!("<previous-summary>\n{p}\n</previous-summary>\n\n"));
    }
    t.push_str(base);
    if let Some(i) = crate::instructions::Instructions::from_opt(instructions) {
        t.push_str(FOCUS_PREFIX);
        t.push_str(i.as_str());
    }
    t
}
