#!/usr/bin/env node
// Loads transcripts with pi's own SessionManager (on a copy) and prints the context pi would
// send to the model: `node interop/pi_context.mjs FILE...` →
// {files: [{file, messages: [{role, text}], firstEntryIds...}]}. Used by the Rust tests to
// check that a compaction clawtop committed reads back in pi as the summary followed by the
// kept entries.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const candidates = [
  process.env.PI_CODING_AGENT_DIR,
  path.join(here, "node_modules", "@mariozechner", "pi-coding-agent"),
  path.join(here, "node", "node_modules", "@mariozechner", "pi-coding-agent"),
].filter(Boolean);
const piDir = candidates.find((d) => fs.existsSync(path.join(d, "dist", "core", "session-manager.js")));
if (!piDir) {
  process.stderr.write("pi_context: pi-coding-agent is not installed; run npm ci --prefix interop\n");
  process.exit(3);
}
const { SessionManager } = await import(pathToFileURL(path.join(piDir, "dist", "core", "session-manager.js")).href);

function text(m) {
  if (m.role === "compactionSummary" || m.role === "branchSummary") return m.summary;
  if (m.role === "bashExecution") return m.command;
  const c = m.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.filter((b) => b.type === "text").map((b) => b.text).join("");
  return "";
}

const out = [];
for (const file of process.argv.slice(2)) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-context-"));
  const copy = path.join(tmp, path.basename(file));
  fs.copyFileSync(file, copy);
  const sm = SessionManager.open(copy, tmp);
  const ctx = sm.buildSessionContext();
  const entries = sm.getEntries();
  const last = entries[entries.length - 1];
  out.push({
    file,
    leafType: last ? last.type : null,
    messages: ctx.messages.map((m) => ({ role: m.role, text: text(m), timestamp: m.timestamp ?? null })),
  });
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify({ files: out }) + "\n");
