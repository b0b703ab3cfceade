#!/usr/bin/env python3
"""Write the small edge-case pi transcripts in tests/fixtures/transcripts/.

Deterministic (fixed ids and timestamps): running it twice gives identical bytes.
Each file is a realistic pi session (header, 8-hex ids, parentIds, ISO timestamps,
assistant usage + stopReason) shaped so one behaviour of pi's session model,
token estimate or cut point shows up. pi's own figures for every file come from
`node interop/pi_figures.mjs --keep 2000,8000,20000,50000 tests/fixtures/transcripts/*.jsonl`.
See tests/fixtures/transcripts/README.md for what each file exercises.

Usage: python3 interop/make_edge_fixtures.py [OUT_DIR]
"""
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "fixtures", "transcripts")

# A 1x1 transparent PNG.
PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

SENTENCES = [
    "The exporter reads invoices from the ledger in pages of two hundred rows.",
    "Each page is converted to CSV and uploaded to the bucket named in EXPORT_BUCKET.",
    "A transient 503 from the storage API currently aborts the whole run.",
    "The retry wrapper should only retry idempotent uploads, never the ledger cursor commit.",
    "Logs go to stderr as JSON lines with the page number and the elapsed time in ms.",
    "The nightly job runs at 02:15 UTC and must finish before the 04:00 reconciliation.",
    "Tests use a fake clock so backoff delays do not slow the suite down.",
    "The config loader merges defaults, the YAML file and environment overrides in that order.",
]


def prose(n_chars, seed=0):
    """Deterministic English-looking text of exactly n_chars (ASCII) characters."""
    out = []
    i = seed
    size = 0
    while size < n_chars:
        s = SENTENCES[i % len(SENTENCES)] + (" " if (i + 1) % 5 else "\n")
        out.append(s)
        size += len(s)
        i += 1
    return "".join(out)[:n_chars]


def code(n_chars, seed=0):
    lines = []
    i = seed
    size = 0
    while size < n_chars:
        ln = f"{i + 1:>4}\texport async function step{i}(ctx: ExportContext): Promise<void> {{ await ctx.page({i}); }}\n"
        lines.append(ln)
        size += len(ln)
        i += 1
    return "".join(lines)[:n_chars]


class Session:
    def __init__(self, name, version=3, start_ms=1767261600000, cwd="/home/dev/projects/billing-export",
                 ids=True, header_extra=None, provider="anthropic", model="claude-sonnet-4-5",
                 api="anthropic-messages"):
        self.name = name
        self.version = version
        self.ids = ids
        self.t = start_ms
        self.lines = []
        self.leaf = None
        self.n = 0
        self.provider, self.model, self.api = provider, model, api
        self.tc = 0
        self.sid = self._uuid("session")
        header = {"type": "session"}
        if version is not None:
            header["version"] = version
        header["id"] = self.sid
        header["timestamp"] = self.iso()
        header["cwd"] = cwd
        if header_extra:
            header.update(header_extra)
        self.lines.append(json.dumps(header, ensure_ascii=False, separators=(",", ":")))
        self.entries = []

    def _uuid(self, salt):
        h = hashlib.sha256(f"{self.name}/{salt}".encode()).hexdigest()
        return f"{h[0:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"

    def iso(self, ms=None):
        import datetime
        ms = self.t if ms is None else ms
        d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"

    def tick(self, ms=1500):
        self.t += ms

    def new_id(self):
        self.n += 1
        return hashlib.sha256(f"{self.name}#{self.n}".encode()).hexdigest()[:8]

    def add(self, entry_type, fields, parent="leaf", raw_tail=None, front=None):
        """Append an entry. parent='leaf' chains to the current leaf; otherwise an id or None."""
        self.tick()
        e = {"type": entry_type}
        if front:
            e.update(front)
        eid = None
        if self.ids:
            eid = self.new_id()
            e["id"] = eid
            e["parentId"] = self.leaf if parent == "leaf" else parent
        e["timestamp"] = self.iso()
        e.update(fields)
        line = json.dumps(e, ensure_ascii=False, separators=(",", ":"))
        if raw_tail is not None:  # splice hand-written JSON text (exact number spellings)
            assert line.endswith("}")
            line = line[:-1] + raw_tail + "}"
        self.lines.append(line)
        self.entries.append(e)
        self.leaf = eid
        return eid

    # -- message helpers -------------------------------------------------
    def user(self, content, parent="leaf"):
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        return self.add("message", {"message": {"role": "user", "content": content, "timestamp": self.t + 1500}}, parent)

    def usage(self, inp, out, cr=0, cw=0, total="sum"):
        u = {"input": inp, "output": out, "cacheRead": cr, "cacheWrite": cw}
        if total == "sum":
            u["totalTokens"] = inp + out + cr + cw
        elif total is not None:
            u["totalTokens"] = total
        u["cost"] = {
            "input": round(inp * 3e-6, 6), "output": round(out * 15e-6, 6),
            "cacheRead": round(cr * 3e-7, 6), "cacheWrite": round(cw * 3.75e-6, 6),
        }
        u["cost"]["total"] = round(sum(u["cost"].values()), 6)
        return u

    def assistant(self, blocks, usage, stop=None, parent="leaf", error=None, raw_tail=None):
        if stop is None:
            stop = "toolUse" if any(b["type"] == "toolCall" for b in blocks) else "stop"
        msg = {"role": "assistant", "content": blocks, "api": self.api, "provider": self.provider,
               "model": self.model, "usage": usage, "stopReason": stop}
        if error:
            msg["errorMessage"] = error
        msg["timestamp"] = self.t + 1500
        return self.add("message", {"message": msg}, parent, raw_tail=raw_tail)

    def call(self, name, args):
        self.tc += 1
        return {"type": "toolCall", "id": f"toolu_{hashlib.sha256(f'{self.name}:{self.tc}'.encode()).hexdigest()[:20]}",
                "name": name, "arguments": args}

    def result(self, call, content, is_error=False, details=None, parent="leaf"):
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        msg = {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"], "content": content}
        if details is not None:
            msg["details"] = details
        msg["isError"] = is_error
        msg["timestamp"] = self.t + 1500
        return self.add("message", {"message": msg}, parent)

    def tool_turn(self, name, args, output, usage, text_before=None, is_error=False, details=None):
        c = self.call(name, args)
        blocks = ([{"type": "text", "text": text_before}] if text_before else []) + [c]
        self.assistant(blocks, usage)
        return self.result(c, output, is_error, details)

    def text(self, t, usage, thinking=None):
        blocks = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": thinking,
                           "thinkingSignature": "EqQBCkgIBxABGAIiQL" + hashlib.sha256(thinking.encode()).hexdigest()[:40]})
        blocks.append({"type": "text", "text": t})
        return self.assistant(blocks, usage)

    def settings_model(self, provider, model_id):
        return self.add("model_change", {"provider": provider, "modelId": model_id})

    def settings_thinking(self, level):
        return self.add("thinking_level_change", {"thinkingLevel": level})

    def compaction(self, summary, first_kept, tokens_before, details=None, from_hook=None, legacy_index=None):
        f = {"summary": summary}
        if legacy_index is not None:
            f["firstKeptEntryIndex"] = legacy_index
        else:
            f["firstKeptEntryId"] = first_kept
        f["tokensBefore"] = tokens_before
        if details is not None:
            f["details"] = details
        if from_hook is not None:
            f["fromHook"] = from_hook
        return self.add("compaction", f)

    def custom_message(self, custom_type, content, display=True, details=None, parent="leaf"):
        # pi writes custom_message with customType first: type,customType,content,display,details,id,parentId,timestamp
        self.tick()
        e = {"type": "custom_message", "customType": custom_type, "content": content, "display": display}
        if details is not None:
            e["details"] = details
        eid = self.new_id()
        e["id"] = eid
        e["parentId"] = self.leaf if parent == "leaf" else parent
        e["timestamp"] = self.iso()
        self.lines.append(json.dumps(e, ensure_ascii=False, separators=(",", ":")))
        self.leaf = eid
        return eid

    def custom(self, custom_type, data):
        self.tick(5)
        e = {"type": "custom", "customType": custom_type, "data": data}
        eid = self.new_id()
        e["id"] = eid
        e["parentId"] = self.leaf
        e["timestamp"] = self.iso()
        self.lines.append(json.dumps(e, ensure_ascii=False, separators=(",", ":")))
        self.leaf = eid
        return eid

    def write(self, extra_tail=""):
        os.makedirs(OUT, exist_ok=True)
        p = os.path.join(OUT, self.name)
        with open(p, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(self.lines) + "\n" + extra_tail)
        return p


def summary_text(goal, done, nxt, read=(), modified=(), split_prefix=None):
    s = (f"## Goal\n{goal}\n\n## Constraints & Preferences\n- Keep the public CLI flags unchanged\n\n"
         "## Progress\n### Done\n" + "".join(f"- [x] {d}\n" for d in done) +
         "\n### In Progress\n- [ ] Wire the retry wrapper into the uploader\n\n### Blocked\n- (none)\n\n"
         "## Key Decisions\n- **Retry only uploads**: the ledger cursor commit is not idempotent\n\n"
         "## Next Steps\n" + "".join(f"{i + 1}. {n}\n" for i, n in enumerate(nxt)) +
         "\n## Critical Context\n- Bucket: `EXPORT_BUCKET=billing-exports-prod`")
    if split_prefix:
        s += "\n\n---\n\n**Turn Context (split turn):**\n\n" + split_prefix
    parts = []
    if read:
        parts.append("<read-files>\n" + "\n".join(read) + "\n</read-files>")
    if modified:
        parts.append("<modified-files>\n" + "\n".join(modified) + "\n</modified-files>")
    if parts:
        s += "\n\n" + "\n\n".join(parts)
    return s


# ---------------------------------------------------------------------------
def branched():
    s = Session("v3-branched.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.settings_thinking("medium")
    s.user("Add retry logic to the invoice exporter in src/export/invoice.ts. Uploads fail on transient 503s.")
    c = s.call("read", {"path": "src/export/invoice.ts"})
    s.assistant([{"type": "thinking", "thinking": "Read the exporter first to see where uploads happen.",
                  "thinkingSignature": "EqQBCkgIBxABGAIiQLbranched1"},
                 {"type": "text", "text": "Let me look at the exporter."}, c], s.usage(5210, 96))
    s.result(c, code(6000))
    s.tool_turn("edit", {"path": "src/export/invoice.ts", "oldText": "await upload(page);",
                         "newText": "await withRetry(() => upload(page), { attempts: 3 });"},
                "Successfully replaced text in src/export/invoice.ts.", s.usage(6850, 140, 5100, 0))
    after_edit = s.text("I wrapped the upload in `withRetry` with 3 attempts. The cursor commit stays outside the retry.",
                        s.usage(7030, 60, 6800, 0))
    s.user("Now run the tests.")
    s.tool_turn("bash", {"command": "npm test -- invoice", "timeout": 120},
                "FAIL test/invoice.test.ts\n" + prose(7000, 3) + "\nTests: 2 failed, 14 passed", s.usage(7120, 80, 6900, 0),
                is_error=True)
    s.text("Two tests fail because the retry waits on the real clock.", s.usage(8950, 70, 7000, 0))
    # main line continues
    s.user("Fix the failing tests by injecting a fake clock.")
    s.tool_turn("write", {"path": "test/helpers/clock.ts", "content": "export const fakeClock = () => { let t = 0; return { now: () => t, sleep: async (ms: number) => { t += ms; } }; };\n"},
                "Wrote 118 bytes to test/helpers/clock.ts", s.usage(9060, 210, 8900, 0))
    s.text("Added a fake clock helper; the suite passes now.", s.usage(9400, 40, 9000, 0))
    # side branch: the user went back to the point after the edit and tried another approach
    s.user("Actually, go back: use exponential backoff with full jitter instead of fixed retries.", parent=after_edit)
    c = s.call("edit", {"path": "src/export/invoice.ts", "oldText": "{ attempts: 3 }",
                        "newText": "{ attempts: 5, backoff: { baseMs: 200, maxMs: 5000, jitter: \"full\" } }"})
    s.assistant([{"type": "thinking", "thinking": "Full jitter: sleep = random(0, min(cap, base * 2^attempt)). " + prose(4000, 4),
                  "thinkingSignature": "EqQBCkgIBxABGAIiQLbranched2"}, c], s.usage(7300, 1180, 6900, 0))
    s.result(c, "Successfully replaced text in src/export/invoice.ts.\n" + code(4000, 50))
    s.text("Switched to exponential backoff with full jitter (base 200 ms, cap 5 s, 5 attempts). " + prose(1200, 6),
           s.usage(9560, 350, 7200, 0))
    s.write()


def two_compactions():
    s = Session("v3-two-compactions.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.settings_thinking("off")
    s.user("Audit the config loader in src/config/load.ts and list every env override.")
    s.tool_turn("read", {"path": "src/config/load.ts"}, code(9000, 10), s.usage(4200, 90))
    s.tool_turn("read", {"path": "src/config/defaults.ts"}, code(5000, 40), s.usage(6600, 90, 4100, 0))
    s.text(prose(1800, 1), s.usage(7900, 450, 6500, 0))
    k1 = s.user("Good. Now add a CLAWTOP_EXPORT_BUCKET override and document it.")
    s.tool_turn("edit", {"path": "src/config/load.ts", "oldText": "const env = {", "newText": "const env = {\n  bucket: process.env.EXPORT_BUCKET,"},
                "Successfully replaced text in src/config/load.ts.", s.usage(8200, 160, 7800, 0))
    s.text("Added the override.", s.usage(8420, 30, 8100, 0))
    c1 = s.compaction(summary_text("Audit the config loader and add an export-bucket override.",
                                   ["Listed env overrides in src/config/load.ts"], ["Document the override in README.md"],
                                   read=["src/config/defaults.ts"], modified=["src/config/load.ts"]),
                      k1, 8450, details={"readFiles": ["src/config/defaults.ts"], "modifiedFiles": ["src/config/load.ts"]},
                      from_hook=False)
    k2 = s.user("Document the override in README.md and add a changelog line.")
    s.tool_turn("read", {"path": "README.md"}, prose(8000, 2), s.usage(6100, 80))
    s.tool_turn("edit", {"path": "README.md", "oldText": "## Configuration", "newText": "## Configuration\n\n`EXPORT_BUCKET` overrides the bucket."},
                "Successfully replaced text in README.md.", s.usage(8300, 120, 6000, 0))
    s.tool_turn("write", {"path": "CHANGELOG.md", "content": "## Unreleased\n- EXPORT_BUCKET override\n"},
                "Wrote 42 bytes to CHANGELOG.md", s.usage(8500, 90, 8200, 0))
    s.text(prose(1200, 5), s.usage(8700, 320, 8400, 0))
    s.compaction(summary_text("Audit the config loader; add and document an export-bucket override.",
                              ["Listed env overrides", "Added EXPORT_BUCKET override", "Documented it in README.md"],
                              ["Add a changelog line", "Open the PR"],
                              read=["src/config/defaults.ts"], modified=["CHANGELOG.md", "README.md", "src/config/load.ts"]),
                 k2, 9050, details={"readFiles": ["src/config/defaults.ts"],
                                    "modifiedFiles": ["CHANGELOG.md", "README.md", "src/config/load.ts"]},
                 from_hook=False)
    s.user("Open the PR with a short description.")
    s.tool_turn("bash", {"command": "gh pr create --title 'config: EXPORT_BUCKET override' --body-file -"},
                "https://github.com/acme/billing-export/pull/412\n" + prose(5000, 6), s.usage(3900, 70))
    s.tool_turn("read", {"path": "docs/release.md"}, prose(9000, 7), s.usage(5300, 60, 3800, 0))
    s.text("Opened PR #412. " + prose(1600, 4), s.usage(7700, 420, 5200, 0))
    s.user("Thanks. Also check that docs/release.md mentions the override.")
    s.text("It does not yet; " + prose(2400, 2), s.usage(8200, 610, 7600, 0))
    s.write()


def compaction_kept_off_path():
    s = Session("v3-compaction-kept-off-path.jsonl", provider="openrouter", model="anthropic/claude-sonnet-4.5",
                api="openai-completions")
    s.settings_model("openrouter", "anthropic/claude-sonnet-4.5")
    s.user("Find why the nightly export was slow yesterday.")
    s.tool_turn("bash", {"command": "journalctl -u billing-export --since yesterday | tail -200"},
                prose(6000, 1), s.usage(3100, 60))
    fork = s.text("The export spent 41 minutes waiting on page 118. " + prose(800, 2), s.usage(4800, 210, 3000, 0))
    s.user("Check the ledger query plan for page 118.")
    s.tool_turn("bash", {"command": "psql -c 'EXPLAIN ANALYZE SELECT ...'"}, prose(5000, 3), s.usage(6200, 90, 4700, 0))
    off_path_kept = s.user("Add an index on ledger(created_at, id).")
    s.tool_turn("write", {"path": "migrations/0042_ledger_idx.sql", "content": "CREATE INDEX CONCURRENTLY ledger_created_id ON ledger(created_at, id);\n"},
                "Wrote 73 bytes", s.usage(7400, 120, 6100, 0))
    s.text("Migration added.", s.usage(7600, 20, 7300, 0))
    # the operator went back to `fork` and asked something else; OpenClaw later compacted this branch
    s.user("Before touching the DB: was the slowness only on page 118?", parent=fork)
    s.tool_turn("bash", {"command": "grep -c 'page=118' /var/log/billing-export.log"}, "1\n", s.usage(5100, 40, 4700, 0))
    s.text("Only page 118 was slow; " + prose(900, 5), s.usage(5300, 260, 5000, 0))
    s.compaction(summary_text("Explain the slow nightly export.", ["Found the 41 min wait on page 118"],
                              ["Decide whether to add an index"], read=[], modified=[]) +
                 "\n\n## Tool Failures\n- (none)",
                 off_path_kept, 5600, details={"readFiles": [], "modifiedFiles": []}, from_hook=True)
    s.user("OK, summarise what we know for the incident ticket.")
    s.text("Incident summary: " + prose(1500, 6), s.usage(2100, 400))
    s.write()


def branch_summary_custom_message():
    s = Session("v3-branch-summary-custom-message.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.user("Profile the CSV writer; it allocates too much.")
    s.tool_turn("read", {"path": "src/export/csv.ts"}, code(4000, 70), s.usage(3600, 70))
    base = s.text("The writer builds one big string per page. " + prose(600, 1), s.usage(4800, 160, 3500, 0))
    # a side exploration that the user abandoned
    s.user("Try rewriting it with a streaming encoder.")
    s.tool_turn("edit", {"path": "src/export/csv.ts", "oldText": "rows.map(", "newText": "stream(rows).map("},
                "Successfully replaced text in src/export/csv.ts.", s.usage(5000, 200, 4700, 0))
    old_leaf = s.text("Streaming version done, but it is 2x slower on small pages.", s.usage(5300, 40, 5000, 0))
    # back to `base`, with a summary of the abandoned branch (pi /tree + summarize)
    s.tick()
    bs_id = s.new_id()
    bs = {"type": "branch_summary", "id": bs_id, "parentId": base, "timestamp": s.iso(), "fromId": old_leaf,
          "summary": "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
                     "## Goal\nStream the CSV writer.\n\n## Progress\n### Done\n- [x] Streaming encoder in src/export/csv.ts\n\n"
                     "## Key Decisions\n- **Abandoned**: 2x slower on small pages\n\n<modified-files>\nsrc/export/csv.ts\n</modified-files>",
          "details": {"readFiles": [], "modifiedFiles": ["src/export/csv.ts"]}, "fromHook": False}
    s.lines.append(json.dumps(bs, ensure_ascii=False, separators=(",", ":")))
    s.leaf = bs_id
    s.user("Instead, reuse one buffer per page. Here is the allocation profile:\n" + code(20000, 500))
    s.tool_turn("bash", {"command": "node --cpu-prof bench/csv.js"}, prose(8000, 2), s.usage(6900, 60, 5200, 0))
    s.custom_message("openclaw.cron-notice", "Cron job `nightly-report` finished in 12m 03s (exit 0).", display=True,
                     details={"jobId": "nightly-report", "exitCode": 0})
    s.user("Continue with the buffer reuse.")
    s.tool_turn("edit", {"path": "src/export/csv.ts", "oldText": "let out = '';", "newText": "const buf = pageBuffer(page);"},
                "Successfully replaced text in src/export/csv.ts.", s.usage(9100, 150, 6800, 0))
    s.tool_turn("bash", {"command": "node bench/csv.js"}, prose(7600, 4), s.usage(9300, 60, 9000, 0))
    s.custom_message("pi.reminder", [{"type": "text", "text": "Reminder: benchmark numbers must include the 10k-row page."}],
                     display=False)
    s.user("Report the new numbers.")
    s.text("Allocations dropped by 63 % and the 10k-row page is 1.4x faster. " + prose(700, 6), s.usage(11600, 230, 9200, 0))
    s.write()


def bash_execution():
    s = Session("v3-bash-execution.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.user("Why does the integration test hang on CI?")
    s.tool_turn("read", {"path": ".github/workflows/ci.yml"}, prose(3000, 1), s.usage(3300, 60))
    s.text("The job starts Postgres without a health check. " + prose(500, 3), s.usage(4200, 150, 3200, 0))

    def bash(command, output, exit_code=0, cancelled=False, truncated=False, full=None, exclude=None):
        m = {"role": "bashExecution", "command": command, "output": output}
        if exit_code is not None:
            m["exitCode"] = exit_code
        m["cancelled"] = cancelled
        m["truncated"] = truncated
        if full:
            m["fullOutputPath"] = full
        if exclude is not None:
            m["excludeFromContext"] = exclude
        m["timestamp"] = s.t + 1500
        return s.add("message", {"message": m})

    bash("docker ps --format '{{.Names}} {{.Status}}'", "billing-pg Up 3 minutes (health: starting)\n")
    bash("cat ~/.config/ci-token", "ghp_THIS_IS_NOT_A_REAL_TOKEN_0000000000\n", exit_code=0, exclude=True)
    bash("npm run test:integration", prose(9000, 2), exit_code=1, truncated=True,
         full="/tmp/pi-bash-3f2a91c0.log")
    bash("sleep 600 && npm run test:integration", "", exit_code=None, cancelled=True)
    s.user("So what is the fix?")
    s.text("Add a `pg_isready` health check and make the test job wait for it. " + prose(1400, 5), s.usage(7100, 380, 4100, 0))
    bash("git diff --stat", " .github/workflows/ci.yml | 6 ++++++\n 1 file changed, 6 insertions(+)\n")
    s.user("Commit it.")
    s.tool_turn("bash", {"command": "git commit -am 'ci: wait for postgres health'"},
                "[main 4c1d2e9] ci: wait for postgres health\n 1 file changed, 6 insertions(+)", s.usage(7600, 70, 7000, 0))
    s.text("Committed as 4c1d2e9.", s.usage(7700, 15, 7500, 0))
    s.write()


def images_thinking():
    s = Session("v3-images-thinking.jsonl", model="claude-opus-4-5")
    s.settings_model("anthropic", "claude-opus-4-5")
    s.settings_thinking("high")
    s.user([{"type": "text", "text": "The dashboard chart is cut off on the right. Screenshot attached:"},
            {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
            {"type": "text", "text": " (Chrome 131, 1280x720)"}])
    c = s.call("read", {"path": "ui/screenshots/before.png"})
    s.assistant([{"type": "thinking", "thinking": "The user attached a screenshot. I should also look at the stored before.png to compare widths.",
                  "thinkingSignature": "EqQBCkgIBxABGAIiQLimg1"},
                 {"type": "text", "text": "Let me look at the saved screenshot too."}, c], s.usage(2950, 110))
    s.result(c, [{"type": "text", "text": "Read image file [image/png]"},
                 {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}])
    c2 = s.call("read", {"path": "ui/src/Chart.tsx"})
    s.assistant([{"type": "thinking", "thinking": "", "thinkingSignature": "EuYBCkQIBxgCKkDredacted0000", "redacted": True},
                 c2], s.usage(4300, 40, 2900, 0))
    s.result(c2, code(5000, 120))
    s.assistant([{"type": "thinking", "thinking": prose(2400, 3), "thinkingSignature": "EqQBCkgIBxABGAIiQLimg3"},
                 {"type": "text", "text": "The SVG has a fixed width of 1400px; it should use the container width."}],
                s.usage(5700, 780, 4200, 0))
    s.custom_message("browser.snapshot", [{"type": "text", "text": "After the fix:"},
                                          {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}],
                     display=True, details={"url": "http://localhost:5173/dashboard"})
    s.user("Looks right now. Thanks!")
    s.assistant([{"type": "thinking", "thinking": "Nothing else to do.", "thinkingSignature": "EqQBCkgIBxABGAIiQLimg4"},
                 {"type": "text", "text": "Glad it works."}], s.usage(7300, 25, 5600, 0))
    s.write()


def v2_hook_message():
    s = Session("v2-hook-message.jsonl", version=2)
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.user("Summarise today's failed exports.")
    s.add("message", {"message": {"role": "hookMessage", "customType": "export-monitor",
                                  "content": "3 exports failed today: 2026-01-01 page 12, page 98, page 118 (HTTP 503).",
                                  "display": True, "details": {"failed": [12, 98, 118]}, "timestamp": s.t + 1500}})
    s.text("Three exports failed today, all with HTTP 503 from storage: pages 12, 98 and 118.", s.usage(2200, 45))
    s.add("message", {"message": {"role": "hookMessage", "customType": "export-monitor",
                                  "content": [{"type": "text", "text": "Retry of page 118 succeeded."}],
                                  "display": False, "timestamp": s.t + 1500}})
    s.user("Good, anything else?")
    s.text("No, the retry covered the last failure.", s.usage(2350, 15, 2100, 0))
    s.write()


def settings_before_user():
    s = Session("v3-settings-before-user.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.settings_thinking("low")
    s.user("Read the retry module and explain it.")
    s.tool_turn("read", {"path": "src/util/retry.ts"}, code(30000, 200), s.usage(9800, 70))
    s.text("It retries with a fixed delay. " + prose(3000, 1), s.usage(11200, 800, 9700, 0))
    # the user switches model before the next prompt (a model_change right before a user message)
    s.settings_model("anthropic", "claude-opus-4-5")
    s.model = "claude-opus-4-5"
    s.user("Here is the production log of the last failure, find the root cause:\n" + prose(24000, 2))
    s.text("Root cause: " + prose(6400, 4), s.usage(20100, 1700, 11000, 0))
    # and raises thinking before the next prompt
    s.settings_thinking("high")
    s.user("Now the staging log for comparison:\n" + prose(5600, 5))
    s.assistant([{"type": "thinking", "thinking": "Compare the two logs line by line.", "thinkingSignature": "EqQBCkgIBxABGAIiQLset1"},
                 {"type": "text", "text": "Staging shows the same pattern. " + prose(2300, 6)}], s.usage(23700, 900, 20000, 0))
    s.write()


def v1_legacy(name, forward=False):
    s = Session(name, version=None, ids=False,
                header_extra={"provider": "anthropic", "modelId": "claude-sonnet-4-5", "thinkingLevel": "off"})
    s.user("Set up the nightly export cron job.")
    s.tool_turn("read", {"path": "deploy/cron.yaml"}, prose(4000, 1), s.usage(3000, 60, total=None))
    s.text("The cron file has no export job yet. " + prose(600, 2), s.usage(4100, 170, total=None))
    s.user("Add it at 02:15 UTC.")  # entry index 4 -> file index 5
    s.tool_turn("edit", {"path": "deploy/cron.yaml", "oldText": "jobs:", "newText": "jobs:\n  - name: export\n    schedule: '15 2 * * *'"},
                "Successfully replaced text in deploy/cron.yaml.", s.usage(4400, 120, total=None))
    s.text("Added the job.", s.usage(4560, 10, total=None))
    # file index: header 0, entries 1.. ; firstKeptEntryIndex counts the header
    s.compaction("The user asked to set up the nightly export cron job; it was added to deploy/cron.yaml at 02:15 UTC.",
                 None, 4570, legacy_index=(99 if forward else 5))
    s.user("Also page me if it fails.")
    s.tool_turn("edit", {"path": "deploy/cron.yaml", "oldText": "schedule: '15 2 * * *'", "newText": "schedule: '15 2 * * *'\n    onFailure: page-oncall"},
                "Successfully replaced text in deploy/cron.yaml.", s.usage(2600, 90, total=None))
    s.text("Added `onFailure: page-oncall`. " + prose(400, 3), s.usage(2800, 110, total=None))
    s.write()


def labels_session_info():
    s = Session("v3-labels-session-info.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.add("session_info", {"name": "export retries"})
    s.custom("openclaw.model-snapshot", {"timestamp": s.t, "provider": "anthropic", "modelApi": "anthropic-messages",
                                         "modelId": "claude-sonnet-4-5"})
    first = s.user("Plan the retry work for the exporter.")
    s.text("Plan: " + prose(5200, 1), s.usage(3200, 1300))
    s.add("label", {"targetId": first, "label": "plan"})
    s.add("session_info", {"name": "Exporter: retries + backoff"})
    s.user("Go ahead with step 1 of the plan. The spec for it:\n" + prose(14000, 6))
    s.tool_turn("read", {"path": "src/export/invoice.ts"}, code(12000, 300), s.usage(7900, 60, 3100, 0))
    target = s.text("Step 1 done. " + prose(2000, 3), s.usage(11000, 500, 7800, 0))
    s.add("label", {"targetId": first, "label": "plan v1"})
    s.add("label", {"targetId": target, "label": "step-1"})
    s.user("And step 2.")
    s.text("Step 2 done. " + prose(4400, 5), s.usage(11700, 1100, 10900, 0))
    s.add("label", {"targetId": target})  # label cleared (undefined label is omitted)
    s.write()


def unicode_json():
    s = Session("v3-unicode-json.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.user("Add the 🇯🇵 locale and make the “exports” page handle emoji in file names — e.g. 𝔸𝔹ℂ-report-😀.csv.")
    # toolCall arguments spliced as raw JSON text so number spellings survive exactly
    raw_args = ('{"path":"config/locales/ja-JP.json","content":"{\\n  \\"exports\\": \\"エクスポート 📦\\"\\n}\\n",'
                '"options":{"indent":2,"scale":1.5,"limit":1e21,"epsilon":1e-7,"ratio":100.0,"neg":-0.0,'
                '"big":9007199254740993,"tiny":5e-324,"nested":{"z":[1,2.50,{"ключ":"значение","k\\u00e9y":"\\u2028sep\\/slash"}],"a":null,"m":true}},'
                '"note":"tab\\tquote\\" backslash\\\\ bell\\u0007 nul\\u0000 del\u007f é 😀"}')
    json.loads(raw_args)  # must be valid JSON
    c_id = "toolu_unicode_write_0001"
    blocks = ('[{"type":"text","text":"Adding the locale file 🗂️ now."},'
              '{"type":"toolCall","id":"' + c_id + '","name":"write","arguments":' + raw_args + '}]')
    s.tick()
    eid = s.new_id()
    usage = json.dumps(s.usage(2400, 190), separators=(",", ":"))
    line = ('{"type":"message","id":"' + eid + '","parentId":"' + s.leaf + '","timestamp":"' + s.iso() +
            '","message":{"role":"assistant","content":' + blocks + ',"api":"anthropic-messages","provider":"anthropic",'
            '"model":"claude-sonnet-4-5","usage":' + usage + ',"stopReason":"toolUse","timestamp":' + str(s.t + 1500) + '}}')
    json.loads(line)
    s.lines.append(line)
    s.leaf = eid
    s.result({"id": c_id, "name": "write"}, "Wrote 52 bytes to config/locales/ja-JP.json")
    # file ops whose JS (UTF-16) sort order differs from UTF-8 byte order
    s.tool_turn("read", {"path": "docs/Ｒeadme-ｆullwidth.md"}, "全角のファイル名 " + prose(800, 1), s.usage(2800, 60, 2300, 0))
    s.tool_turn("read", {"path": "docs/😀-emoji.md"}, "emoji file name 🎉 " + prose(800, 2), s.usage(3200, 60, 2700, 0))
    s.tool_turn("edit", {"path": "src/pages/exports/𝔸𝔹ℂ.tsx", "oldText": "name.slice(0, 20)",
                         "newText": "Array.from(name).slice(0, 20).join(\"\")"},
                "Successfully replaced text in src/pages/exports/𝔸𝔹ℂ.tsx.", s.usage(3600, 90, 3100, 0))
    s.tool_turn("edit", {"path": "src/pages/exports/ｌist.tsx", "oldText": "truncate(name)", "newText": "truncateGraphemes(name, 20)"},
                "Successfully replaced text in src/pages/exports/ｌist.tsx.", s.usage(3900, 90, 3500, 0))
    s.text("Done ✅. File names like “𝔸𝔹ℂ-report-😀.csv” are now cut on grapheme boundaries, not UTF-16 units. "
           "👩‍👩‍👧‍👦 stays one grapheme. " + prose(9000, 4), s.usage(4300, 280, 3800, 0))
    s.user("Great — 谢谢! 🙏")
    s.text("不客气 😊", s.usage(4650, 12, 4200, 0))
    s.write()


def lone_surrogate():
    s = Session("v3-lone-surrogate.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.user("Print the first bytes of the corrupted export file.")
    c = s.call("bash", {"command": "head -c 64 exports/2026-01-01.csv"})
    s.assistant([c], s.usage(2100, 40))
    # a lone surrogate (\ud83d without its low half), as JS writes it; valid JSON, invalid UTF-16
    s.tick()
    eid = s.new_id()
    line = ('{"type":"message","id":"' + eid + '","parentId":"' + s.leaf + '","timestamp":"' + s.iso() +
            '","message":{"role":"toolResult","toolCallId":"' + c["id"] + '","toolName":"bash","content":'
            '[{"type":"text","text":"invoice_id,amount,memo\\n1001,12.50,caf\\u00e9 \\ud83d truncated emoji\\n"}],'
            '"isError":false,"timestamp":' + str(s.t + 1500) + '}}')
    s.lines.append(line)
    s.leaf = eid
    s.text("The memo column has a truncated emoji (a lone high surrogate). The writer cut a UTF-16 string in half.",
           s.usage(2300, 45, 2000, 0))
    s.write()


def usage_edges():
    s = Session("v3-usage-edge.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.user("Summarise the export logs of the last week.")
    s.tool_turn("bash", {"command": "zcat /var/log/billing-export.log.*.gz | tail -2000"}, prose(16000, 1),
                s.usage(4100, 80, total=None))  # old-style usage without totalTokens
    s.text("Summary: " + prose(1200, 2), s.usage(8200, 330, 4000, 0, total=0))  # totalTokens 0 -> sum
    s.user("Now the week before, in full detail.")
    s.tool_turn("bash", {"command": "zcat /var/log/billing-export.log.*.gz | head -40000"}, prose(60000, 3),
                s.usage(8700, 70, 8100, 0))
    s.assistant([{"type": "text", "text": ""}], s.usage(0, 0, 0, 0), stop="error",
                error="prompt is too long: 213004 tokens > 200000 maximum")
    s.user("Try again with less output.")
    s.assistant([{"type": "text", "text": "Reading the first 200 lines only, the"}], s.usage(25100, 12, 8100, 0),
                stop="aborted")
    s.user("Stop, just tell me the totals.")
    s.write()


def malformed_lines():
    s = Session("v3-malformed-lines.jsonl")
    s.settings_model("anthropic", "claude-sonnet-4-5")
    s.user("Check disk usage on the export host.")
    s.tool_turn("bash", {"command": "df -h /srv/exports"},
                "Filesystem Size Used Avail Use% Mounted on\n/dev/sdb1 500G 431G 69G 87% /srv/exports", s.usage(2000, 30))
    s.lines.append('{"type":"message","id":"deadbeef","parentId":')  # cut-off line in the middle
    s.lines.append("")  # blank line
    s.lines.append("not json at all")
    s.text("87 % used; 69 GB free.", s.usage(2200, 20, 1900, 0))
    # a half-written last line without a trailing newline, as after a crash mid-append
    s.write(extra_tail='{"type":"message","id":"0badf00d","parentId":"' + s.leaf + '","timestamp":"2026-01-01T10:01:00.000Z","message":{"role":"user","content":[{"type":"text","text":"And the inode us')


def main():
    branched()
    two_compactions()
    compaction_kept_off_path()
    branch_summary_custom_message()
    bash_execution()
    images_thinking()
    v2_hook_message()
    settings_before_user()
    v1_legacy("v1-legacy-compaction.jsonl")
    v1_legacy("v1-compaction-index-forward.jsonl", forward=True)
    labels_session_info()
    unicode_json()
    lone_surrogate()
    usage_edges()
    malformed_lines()


if __name__ == "__main__":
    main()
