#!/usr/bin/env node
// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most self time, and the
// self time grouped by package (node_modules/<name>, node: internals, forge-mcp's own dist/).
// With --skip S, samples of the first S seconds (start-up: module loading, the pool's first
// McpServer objects) are left out, so that what remains is the per-call path under load; with
// --inclusive, the functions are also listed by inclusive time (self + callees, each function
// counted once per stack), which is how a flame graph's widest frames read.
// Usage: node bench/cpuprofile-top.mjs FILE.cpuprofile [--top N] [--skip S] [--inclusive]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: "string", default: "30" },
    skip: { type: "string", default: "0" },
    inclusive: { type: "boolean", default: false },
  },
});
const profile = JSON.parse(readFileSync(positionals[0], "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// self time per node: the sampling intervals attributed to it
const self = new Map();
const skipUs = Number(values.skip) * 1e6;
let at = 0;
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i] ?? 0;
  if (at < skipUs) continue;
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

if (values.inclusive) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (cf) =>
    `${cf.functionName || "(anonymous)"}@${(cf.url ?? "").replace(/^.*\/(node_modules|packages)\//, "")}:${cf.lineNumber + 1}`;
  const incl = new Map();
  const busy = [...self].filter(([id]) => byId.get(id).callFrame.functionName !== "(idle)");
  const busyTotal = busy.reduce((a, [, us]) => a + us, 0);
  for (const [id, us] of busy) {
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const l = label(byId.get(n).callFrame);
      if (seen.has(l)) continue;
      seen.add(l);
      incl.set(l, (incl.get(l) ?? 0) + us);
    }
  }
  console.log(
    `\ntop ${values.top} functions by inclusive time (share of the ${(busyTotal / 1e6).toFixed(2)} s busy):`,
  );
  const bp = (us) => ((100 * us) / busyTotal).toFixed(1).padStart(5);
  for (const [k, us] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
    console.log(`${bp(us)}% ${ms(us)} ms  ${k}`);
}
