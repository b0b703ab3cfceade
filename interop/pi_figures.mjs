#!/usr/bin/env node
// pi_figures.mjs — pi's own figures for pi transcripts (the oracle clawtop's tests compare to).
//
// Usage:
//   node interop/pi_figures.mjs [--keep K1,K2,...] [--reserve N] FILE...
//   printf '%s\n' FILE... | node interop/pi_figures.mjs --stdin-list [--keep ...]
//
// Prints ONE JSON document on stdout (shape documented in interop/README.md).
// Every input is copied into a fresh temp dir first, because pi's SessionManager
// rewrites v1/v2 files (migration) when it opens them; the inputs are never touched.
//
// All indices are positions in pi's entry array WITHOUT the header
// (`SessionManager.getEntries()`, file order). v1 files get random ids on migration,
// so compare by index, never by id. `*PathIndex` fields are positions in getBranch().
//
// Exit codes: 0 ok; 1 at least one file could not be processed (its record carries
// "error"); 2 usage error; 3 pi-coding-agent is not installed.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PI_VERSION = "0.55.1";
const here = path.dirname(fileURLToPath(import.meta.url));

function usage(msg) {
  if (msg) process.stderr.write(`pi_figures: ${msg}\n`);
  process.stderr.write(
    "usage: node interop/pi_figures.mjs [--keep K1,K2,...] [--reserve N] [--stdin-list] FILE...\n",
  );
  process.exit(2);
}

// ---------------------------------------------------------------- arguments
let keeps = [20000];
let reserveTokens = 16384;
let stdinList = false;
const files = [];
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (a.includes("=")) return a.slice(a.indexOf("=") + 1);
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--help" || a === "-h") usage();
    else if (a === "--keep" || a.startsWith("--keep=")) {
      keeps = value()
        .split(",")
        .filter((s) => s.trim() !== "")
        .map((s) => {
          const n = Number(s);
          if (!Number.isInteger(n) || n < 0) usage(`bad --keep value: ${s}`);
          return n;
        });
      if (keeps.length === 0) usage("--keep needs at least one number");
    } else if (a === "--reserve" || a.startsWith("--reserve=")) {
      reserveTokens = Number(value());
      if (!Number.isInteger(reserveTokens) || reserveTokens < 0) usage("bad --reserve value");
    } else if (a === "--stdin-list") stdinList = true;
    else if (a === "--") files.push(...argv.slice(i + 1)), (i = argv.length);
    else if (a.startsWith("--")) usage(`unknown option ${a}`);
    else files.push(a);
  }
  if (stdinList) {
    const text = fs.readFileSync(0, "utf8");
    for (const line of text.split("\n")) if (line.trim() !== "") files.push(line.replace(/\r$/, ""));
  }
  if (files.length === 0) usage("no input files");
}

// ---------------------------------------------------------------- locate pi
// The package's "exports" map only exposes its index, which does not re-export
// prepareCompaction / estimateContextTokens / computeFileLists, so the dist modules
// are imported by file path.
const candidates = [
  process.env.PI_CODING_AGENT_DIR,
  path.join(here, "node_modules", "@mariozechner", "pi-coding-agent"),
  path.join(here, "node", "node_modules", "@mariozechner", "pi-coding-agent"),
].filter(Boolean);
const piDir = candidates.find((d) => fs.existsSync(path.join(d, "dist", "core", "compaction", "compaction.js")));
if (!piDir) {
  process.stderr.write(
    `pi_figures: @mariozechner/pi-coding-agent@${PI_VERSION} is not installed (looked in ${candidates.join(", ")}).\n` +
      "pi_figures: run npm ci --prefix interop\n",
  );
  process.exit(3);
}
const piVersion = JSON.parse(fs.readFileSync(path.join(piDir, "package.json"), "utf8")).version;
if (piVersion !== PI_VERSION) {
  process.stderr.write(`pi_figures: warning: found pi-coding-agent ${piVersion}, expected ${PI_VERSION} (run npm ci --prefix interop)\n`);
}
const imp = (rel) => import(pathToFileURL(path.join(piDir, "dist", ...rel.split("/"))).href);
const [{ SessionManager }, C, U, M] = await Promise.all([
  imp("core/session-manager.js"),
  imp("core/compaction/compaction.js"),
  imp("core/compaction/utils.js"),
  imp("core/messages.js"),
]);
const {
  estimateTokens,
  estimateContextTokens,
  calculateContextTokens,
  getLastAssistantUsage,
  findCutPoint,
  prepareCompaction,
} = C;
const { computeFileLists } = U;

// pi's prepareCompaction with the range OpenClaw 2026.9 summarizes (reference
// openclaw-2026.9.md §12): it starts at the previous compaction's firstKeptEntryId when that
// is on the path (else right after the compaction, pi's start), findCutPoint runs over that
// whole range, and the previous compaction entry itself yields no message
// (getMessageFromEntryForCompaction). pi's own code, loaded from its dist file with those two
// lines patched: nothing else is re-implemented.
const rangePrepareCompaction = await (async () => {
  const src = path.join(piDir, "dist", "core", "compaction", "compaction.js");
  let code = fs.readFileSync(src, "utf8");
  const patch = (from, to) => {
    if (!code.includes(from)) {
      process.stderr.write(`pi_figures: cannot patch pi's compaction.js (no ${JSON.stringify(from)})\n`);
      process.exit(3);
    }
    code = code.replace(from, to);
  };
  patch(
    "const boundaryStart = prevCompactionIndex + 1;",
    "let boundaryStart = prevCompactionIndex + 1;\n" +
      "    if (prevCompactionIndex >= 0) {\n" +
      "        const fk = pathEntries.findIndex((e) => e.id === pathEntries[prevCompactionIndex].firstKeptEntryId);\n" +
      "        if (fk >= 0) boundaryStart = fk;\n" +
      "    }",
  );
  const start = code.indexOf("const messagesToSummarize = [];");
  const end = code.indexOf("// Get previous summary for iterative update");
  if (start < 0 || end < start) {
    process.stderr.write("pi_figures: cannot patch pi's compaction.js (message loops not found)\n");
    process.exit(3);
  }
  const loops = code
    .slice(start, end)
    .replaceAll(
      "getMessageFromEntry(pathEntries[i])",
      '(pathEntries[i].type === "compaction" ? undefined : getMessageFromEntry(pathEntries[i]))',
    );
  code = code.slice(0, start) + loops + code.slice(end);
  // Relative and bare imports resolved from pi's own location, so the copy can live elsewhere.
  const dir = path.dirname(src);
  code = code.replace(/from "(\.{1,2}\/[^"]+)"/g, (_, rel) => `from "${pathToFileURL(path.resolve(dir, rel)).href}"`);
  code = code.replace(/from "(@mariozechner\/[^"]+)"/g, (_, bare) => `from "${import.meta.resolve(bare)}"`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-range-"));
  try {
    const file = path.join(tmp, "compaction-range.mjs");
    fs.writeFileSync(file, code);
    return (await import(pathToFileURL(file).href)).prepareCompaction;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
})();

// pi's getMessageFromEntry (compaction.js) is not exported; this is the same code
// built from the exported message constructors in core/messages.js. It is the
// message an entry contributes when compacting (branch_summary even when empty,
// compaction -> compactionSummary); settings/label/custom/session_info give none.
function getMessageFromEntry(entry) {
  if (entry.type === "message") return entry.message;
  if (entry.type === "custom_message")
    return M.createCustomMessage(entry.customType, entry.content, entry.display, entry.details, entry.timestamp);
  if (entry.type === "branch_summary") return M.createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp);
  if (entry.type === "compaction")
    return M.createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp);
  return undefined;
}

// AgentSession.getContextUsage() (core/agent-session.js) needs a live session; this is
// its token logic on the branch: null after a compaction until an assistant newer than
// it reports a non-zero usage, else estimateContextTokens(context messages).tokens.
function sessionContextUsageTokens(branch, contextMessages) {
  let ci = -1;
  for (let i = branch.length - 1; i >= 0; i--)
    if (branch[i].type === "compaction") {
      ci = i;
      break;
    }
  if (ci >= 0) {
    let ok = false;
    for (let i = branch.length - 1; i > ci; i--) {
      const e = branch[i];
      if (e.type === "message" && e.message.role === "assistant") {
        const a = e.message;
        if (a.stopReason !== "aborted" && a.stopReason !== "error") {
          if (calculateContextTokens(a.usage) > 0) ok = true;
          break;
        }
      }
    }
    if (!ok) return null;
  }
  return estimateContextTokens(contextMessages).tokens;
}

function firstLineVersion(file) {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(4096);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const line = buf.toString("utf8", 0, n).split("\n")[0];
    const h = JSON.parse(line);
    return h && h.type === "session" ? (h.version ?? 1) : null;
  } catch {
    return null;
  }
}

const safe = (f) => {
  try {
    return f();
  } catch (e) {
    return { error: String(e && e.message ? e.message : e) };
  }
};

function figures(file) {
  const originalVersion = firstLineVersion(file);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-figures-"));
  try {
    const copy = path.join(tmp, path.basename(file));
    fs.copyFileSync(file, copy);
    const sm = SessionManager.open(copy, tmp);
    const header = sm.getHeader();
    const entries = sm.getEntries();
    const indexOf = new Map(entries.map((e, i) => [e, i]));
    const leafId = sm.getLeafId();
    const leafEntry = leafId ? sm.getEntry(leafId) : undefined;
    const branch = sm.getBranch();
    const branchIdx = branch.map((e) => indexOf.get(e));
    const onPath = new Set(branch);

    const perEntry = entries.map((e, i) => {
      const msg = getMessageFromEntry(e);
      const rec = { index: i, id: e.id ?? null, type: e.type };
      if (e.type === "message") rec.role = e.message?.role ?? null;
      if (e.type === "custom_message") rec.role = "custom";
      if (e.type === "branch_summary") rec.role = "branchSummary";
      if (e.type === "compaction") rec.role = "compactionSummary";
      rec.onPath = onPath.has(e);
      const est = msg === undefined ? null : safe(() => estimateTokens(msg));
      rec.estimate = est;
      return rec;
    });

    const ctx = sm.buildSessionContext();
    let estimateSum = 0;
    for (const m of ctx.messages) estimateSum += estimateTokens(m);
    const ect = estimateContextTokens(ctx.messages);
    const lastUsage = getLastAssistantUsage(entries);
    const lastUsageBranch = getLastAssistantUsage(branch);

    // Boundaries exactly as prepareCompaction computes them (not returned by it).
    let prevCompactionIndex = -1;
    for (let i = branch.length - 1; i >= 0; i--)
      if (branch[i].type === "compaction") {
        prevCompactionIndex = i;
        break;
      }
    const boundaryStart = prevCompactionIndex + 1;
    // OpenClaw 2026.9's start of the range (see rangePrepareCompaction).
    let rangeStart = boundaryStart;
    if (prevCompactionIndex >= 0) {
      const fk = branch.findIndex((e) => e.id === branch[prevCompactionIndex].firstKeptEntryId);
      if (fk >= 0) rangeStart = fk;
    }

    const plan = (prepare, start) => (keep) => {
      const settings = { enabled: true, reserveTokens, keepRecentTokens: keep };
      const prep = prepare(branch, settings);
      if (prep === undefined) return null;
      const cut = findCutPoint(branch, start, branch.length, keep);
      const kept = branch[cut.firstKeptEntryIndex];
      if (!kept || kept.id !== prep.firstKeptEntryId)
        throw new Error(`internal: findCutPoint disagrees with prepareCompaction at keep=${keep}`);
      const { readFiles, modifiedFiles } = computeFileLists(prep.fileOps);
      return {
        keep,
        firstKeptIndex: entries.findIndex((e) => e.id === prep.firstKeptEntryId),
        firstKeptPathIndex: cut.firstKeptEntryIndex,
        turnStartIndex: cut.turnStartIndex >= 0 ? indexOf.get(branch[cut.turnStartIndex]) : -1,
        turnStartPathIndex: cut.turnStartIndex,
        isSplitTurn: prep.isSplitTurn,
        tokensBefore: prep.tokensBefore,
        messagesToSummarize: prep.messagesToSummarize.length,
        turnPrefixMessages: prep.turnPrefixMessages.length,
        hasPreviousSummary: prep.previousSummary !== undefined,
        readFiles,
        modifiedFiles,
        firstKeptEntryId: prep.firstKeptEntryId,
        firstKeptType: kept.type,
        firstKeptRole: kept.type === "message" ? kept.message.role : null,
      };
    };
    const plans = keeps.map(plan(prepareCompaction, boundaryStart));
    const rangePlans = keeps.map(plan(rangePrepareCompaction, rangeStart));

    return {
      file,
      originalVersion,
      version: header?.version ?? null,
      sessionId: header?.id ?? null,
      entries: entries.length,
      leafIndex: leafEntry ? indexOf.get(leafEntry) : null,
      leafId: leafId ?? null,
      branch: branchIdx,
      prevCompactionPathIndex: prevCompactionIndex,
      rangeStartPathIndex: rangeStart,
      perEntry,
      context: {
        messages: ctx.messages.length,
        roles: ctx.messages.map((m) => m.role),
        thinkingLevel: ctx.thinkingLevel,
        model: ctx.model,
        estimateSum,
        usageTokens: ect.usageTokens,
        trailingTokens: ect.trailingTokens,
        tokens: ect.tokens,
        lastUsageIndex: ect.lastUsageIndex,
      },
      contextTokensFromLastUsage: lastUsage ? calculateContextTokens(lastUsage) : null,
      contextTokensFromLastUsageOnBranch: lastUsageBranch ? calculateContextTokens(lastUsageBranch) : null,
      sessionContextUsageTokens: sessionContextUsageTokens(branch, ctx.messages),
      // one per --keep value, same order; null when prepareCompaction returns undefined
      plans,
      // the same, from pi's prepareCompaction with OpenClaw 2026.9's range (rangePrepareCompaction)
      rangePlans,
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- main
let failed = 0;
const out = {
  tool: "pi-coding-agent",
  piVersion,
  settings: { enabled: true, reserveTokens, keepRecentTokens: keeps },
  files: files.map((file) => {
    if (!fs.existsSync(file)) {
      failed++;
      return { file, error: "no such file" };
    }
    try {
      return figures(file);
    } catch (e) {
      failed++;
      return { file, error: String(e && e.stack ? e.stack : e) };
    }
  }),
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
if (failed) process.stderr.write(`pi_figures: ${failed} file(s) failed, see "error" in the output\n`);
process.exitCode = failed ? 1 : 0;
