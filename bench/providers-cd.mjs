#!/usr/bin/env node
// Adoption cost on provider_c and provider_d: how long findOwned takes to find a project's
// environment among N others (it walks `limit=100` pages until the owner keys match), and the
// HTTP calls a refresh of each kind costs. Against the simulators on loopback.
// Usage: npm run build && node bench/providers-cd.mjs [--sizes 100,1000,3000]
import { appendFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startSim } from "@agents/sims";
import { createHttpClientFactory, newHttpStats } from "../packages/agents/dist/providers/http.js";
import { providerC } from "../packages/agents/dist/providers/provider-c/definition.js";
import { providerD } from "../packages/agents/dist/providers/provider-d/definition.js";

const { values } = parseArgs({ options: { sizes: { type: "string", default: "100,1000,3000" } } });
const sizes = values.sizes.split(",").map(Number);
const results = fileURLToPath(new URL("./results/providers-cd.md", import.meta.url));
const adapters = {
  provider_c: { adapter: providerC, key: "sim-provider-c-key" },
  provider_d: { adapter: providerD, key: "sim-provider-d-key" },
};

function context(http, resource) {
  return {
    http,
    owner: { project: "bench", resource },
    resolve: () => {
      throw new Error("no references in this bench");
    },
    resolveExtra: () => undefined,
    configDir: process.cwd(),
    signal: new AbortController().signal,
    warn: () => {},
  };
}

const rows = [];
for (const [name, { adapter, key }] of Object.entries(adapters)) {
  for (const size of sizes) {
    const sim = await startSim(name, { port: 0, quiet: true });
    const stats = newHttpStats();
    const http = adapter.connect({ api_key: key }, createHttpClientFactory({ stats }), sim.url).http;
    const handler = adapter.kinds.environments;
    const ctx = context(http, `${name}.environments["target"]`);
    const target = await handler.create(ctx, { config: { type: "cloud" } });
    for (let i = 1; i < size; i++)
      await http.request({
        method: "POST",
        path: "/environments",
        json: { name: `other-${i}`, config: { type: "cloud" } },
      });
    const before = stats.calls;
    const started = performance.now();
    const found = await handler.findOwned(ctx, ctx.owner);
    const ms = performance.now() - started;
    if (found?.id !== target.id) throw new Error(`${name}: findOwned did not find the target`);
    const readBefore = stats.calls;
    await handler.read(ctx, target.id);
    rows.push({
      provider: name,
      objects: size,
      pages: readBefore - before,
      ms,
      readCalls: stats.calls - readBefore,
    });
    await sim.close();
  }
}

const table = [
  "| provider | objects | pages walked | findOwned ms | calls per read |",
  "|---|---|---|---|---|",
  ...rows.map((r) => `| ${r.provider} | ${r.objects} | ${r.pages} | ${r.ms.toFixed(1)} | ${r.readCalls} |`),
].join("\n");
console.log(table);
mkdirSync(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
appendFileSync(
  results,
  `\n## ${new Date().toISOString()} — nproc ${os.cpus().length}, node ${process.version}\n\n${table}\n`,
);
