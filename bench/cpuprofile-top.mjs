#!/usr/bin/env node
// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most self time, and the
// self time grouped by package (node_modules/<name>, node: internals, forge-mcp's own dist/).
// Usage: node bench/cpuprofile-top.mjs FILE.cpuprofile [--top N]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" } },
});
const profile = JSON.parse(readFileSync(positionals[0], "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// self time per node: the sampling intervals attributed to it
const self = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const where = (cf) => {
  const url = cf.url ?? "";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith("node:")) return "node: internals";
  if (url.includes("/forge-mcp/dist/")) return "forge-mcp (own code)";
  if (url === "") return cf.functionName.startsWith("(") ? cf.functionName : "native";
  return url.replace(/^file:\/\/.*\/packages\//, "");
};
const fns = new Map();
const pkgs = new Map();
for (const [id, us] of self) {
  const cf = byId.get(id).callFrame;
  const file = (cf.url ?? "")
    .replace(/^file:\/\/.*\/node_modules\//, "")
    .replace(/^file:\/\/.*\/packages\//, "");
  const key = `${cf.functionName || "(anonymous)"}  ${file}:${cf.lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  const p = where(cf);
  pkgs.set(p, (pkgs.get(p) ?? 0) + us);
}
const pct = (us) => ((100 * us) / total).toFixed(1).padStart(5);
const ms = (us) => (us / 1000).toFixed(0).padStart(6);
console.log(`total sampled ${(total / 1e6).toFixed(2)} s\n\nself time by package:`);
for (const [k, us] of [...pkgs].sort((a, b) => b[1] - a[1]).slice(0, 20))
  console.log(`${pct(us)}% ${ms(us)} ms  ${k}`);
console.log(`\ntop ${values.top} functions by self time:`);
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${pct(us)}% ${ms(us)} ms  ${k}`);
