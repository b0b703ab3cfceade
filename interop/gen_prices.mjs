#!/usr/bin/env node
// gen_prices.mjs — writes clawtop's built-in price table (src/cost/builtin_prices.tsv) from
// pi-ai's generated model list, the prices pi itself charges with (`calculateCost`).
//
// Usage: node interop/gen_prices.mjs > src/cost/builtin_prices.tsv
//
// One line per provider/model: provider, id, then $ per million tokens for input, output,
// cacheRead, cacheWrite. The header comment names the pi-ai version and the date, which
// clawtop shows as the table's age; the binary reads the file compiled in, never the network.

import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fs from "node:fs";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.join(here, "node_modules", "@mariozechner", "pi-ai");
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
const { MODELS } = await import(pathToFileURL(path.join(pkgDir, "dist", "models.generated.js")).href);

const date = process.env.PRICES_DATE ?? new Date().toISOString().slice(0, 10);
const out = [
  `# clawtop built-in prices: $ per million tokens, from @mariozechner/pi-ai ${pkg.version} (dist/models.generated.js)`,
  `# date: ${date}`,
  `# provider\tmodel\tinput\toutput\tcacheRead\tcacheWrite`,
];
const num = (v) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? String(v) : "0");
for (const provider of Object.keys(MODELS).sort()) {
  for (const id of Object.keys(MODELS[provider]).sort()) {
    const c = MODELS[provider][id].cost ?? {};
    if (/[\t\n]/.test(provider + id)) continue;
    out.push([provider, id, num(c.input), num(c.output), num(c.cacheRead), num(c.cacheWrite)].join("\t"));
  }
}
process.stdout.write(out.join("\n") + "\n");
