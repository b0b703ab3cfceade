#!/usr/bin/env node
// pi_plan.mjs — time pi's own load + compaction plan on one transcript (benchmark baseline).
//
//   node interop/pi_plan.mjs FILE [--keep N] [--reserve N]
//
// Copies FILE to a temp dir (pi rewrites v1/v2 files on open; the copy is not timed),
// then times SessionManager.open + getBranch + buildSessionContext + prepareCompaction and
// prints one JSON object: {file, bytes, entries, loadMs, contextMs, planMs, totalMs,
// contextMessages, firstKeptEntryId, tokensBefore, messagesToSummarize, isSplitTurn}.
// Exit 3 when pi is not installed (run npm ci --prefix interop).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
let keep = 20000;
let reserve = 16384;
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--keep") keep = Number(argv[++i]);
  else if (argv[i] === "--reserve") reserve = Number(argv[++i]);
  else if (argv[i].startsWith("--")) {
    process.stderr.write(`pi_plan: unknown option ${argv[i]}\n`);
    process.exit(2);
  } else files.push(argv[i]);
}
if (files.length !== 1 || !Number.isInteger(keep) || !Number.isInteger(reserve)) {
  process.stderr.write("usage: node interop/pi_plan.mjs FILE [--keep N] [--reserve N]\n");
  process.exit(2);
}
const file = files[0];

const candidates = [
  process.env.PI_CODING_AGENT_DIR,
  path.join(here, "node_modules", "@mariozechner", "pi-coding-agent"),
  path.join(here, "node", "node_modules", "@mariozechner", "pi-coding-agent"),
].filter(Boolean);
const piDir = candidates.find((d) => fs.existsSync(path.join(d, "dist", "core", "compaction", "compaction.js")));
if (!piDir) {
  process.stderr.write("pi_plan: @mariozechner/pi-coding-agent is not installed; run npm ci --prefix interop\n");
  process.exit(3);
}
const imp = (rel) => import(pathToFileURL(path.join(piDir, "dist", ...rel.split("/"))).href);
const [{ SessionManager }, { prepareCompaction }] = await Promise.all([
  imp("core/session-manager.js"),
  imp("core/compaction/compaction.js"),
]);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-plan-"));
try {
  const copy = path.join(tmp, path.basename(file));
  fs.copyFileSync(file, copy);
  const t0 = performance.now();
  const sm = SessionManager.open(copy, tmp);
  const t1 = performance.now();
  const ctx = sm.buildSessionContext();
  const t2 = performance.now();
  const prep = prepareCompaction(sm.getBranch(), { enabled: true, reserveTokens: reserve, keepRecentTokens: keep });
  const t3 = performance.now();
  const r = (x) => Math.round(x * 10) / 10;
  process.stdout.write(
    `${JSON.stringify({
      file,
      bytes: fs.statSync(file).size,
      entries: sm.getEntries().length,
      loadMs: r(t1 - t0),
      contextMs: r(t2 - t1),
      planMs: r(t3 - t2),
      totalMs: r(t3 - t0),
      contextMessages: ctx.messages.length,
      firstKeptEntryId: prep?.firstKeptEntryId ?? null,
      tokensBefore: prep?.tokensBefore ?? null,
      messagesToSummarize: prep ? prep.messagesToSummarize.length : null,
      isSplitTurn: prep ? prep.isSplitTurn : null,
    })}\n`,
  );
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
