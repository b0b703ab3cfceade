#!/usr/bin/env node
// OpenClaw 2026.9.6's own identifier extractor (`extractOpaqueIdentifiers`, the compaction
// quality guard's) run on texts, for clawtop's oracle test of src/audit/extract.rs.
//
//   node interop/openclaw_identifiers.mjs < texts.json     (a JSON array of strings)
//
// Prints one JSON document: {openclawVersion, all: [[id...]...], guard: [[id...]...]}; `all` is
// every identifier of each text (OpenClaw keeps the first 12: `guard`).
//
// The function is not exported by the package, so its source (and the three helpers it calls)
// is cut out of the installed dist file and evaluated unchanged; only the cap constant is
// supplied, once as OpenClaw's 12 and once unlimited. Exit 3 when OpenClaw is not installed
// (interop/openclaw/install.sh).
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "openclaw/node_modules/openclaw");
let dist;
try {
  dist = join(pkg, "dist");
  readdirSync(dist);
} catch {
  console.error("OpenClaw is not installed: run interop/openclaw/install.sh");
  process.exit(3);
}
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
const file = readdirSync(dist)
  .filter((f) => /^builtin-openclaw-.*\.mjs$/.test(f))
  .map((f) => join(dist, f))
  .find((f) => readFileSync(f, "utf8").includes("function extractOpaqueIdentifiers(text)"));
if (!file) {
  console.error(`no extractOpaqueIdentifiers in ${dist}`);
  process.exit(1);
}
const src = readFileSync(file, "utf8");
const from = src.indexOf("function sanitizeExtractedIdentifier(value)");
const fnStart = src.indexOf("function extractOpaqueIdentifiers(text)");
const end = src.indexOf("\n}\n", fnStart);
if (from < 0 || end < 0 || from > fnStart) {
  console.error(`cannot cut the extractor out of ${file}`);
  process.exit(1);
}
const body = src.slice(from, end + 2);
const make = (cap) =>
  new Function(
    "MAX_EXTRACTED_IDENTIFIERS",
    "uniqueStrings",
    `${body}\nreturn extractOpaqueIdentifiers;`,
  )(cap, (values) => [...new Set(values)]);
const all = make(Infinity);
const guard = make(12);

const texts = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(
  JSON.stringify({
    openclawVersion: version,
    all: texts.map((t) => all(t)),
    guard: texts.map((t) => guard(t)),
  }),
);
