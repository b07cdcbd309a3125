// Times loadConfig (parse + interpolate + schema + rules + graph) on a generated 2,000-resource
// agents.yaml, and records the figures in bench/results/validate.md.
// Run: npm run build && node bench/validate.mjs [--runs N] [--no-record]
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { loadConfig } from "../packages/agents/dist/index.js";
import { headline } from "./lib.mjs";

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1]) || 15;
const record = !args.includes("--no-record");

/** 2,000 resources: 300 environments, 300 vaults, 300 memory stores, 800 agents, 300 deployments. */
function generate(providers) {
  const env = (i) => `env-${i}`;
  const config = {
    version: "1",
    providers: Object.fromEntries(providers.map((p) => [p, { api_key: "${BENCH_KEY}" }])),
    defaults: { provider: providers.length > 1 ? "all" : providers[0] },
    environments: {},
    vaults: {},
    memory_stores: {},
    agents: {},
    deployments: {},
  };
  for (let i = 0; i < 300; i++) {
    config.environments[env(i)] = { config: { type: "cloud", packages: { pip: ["httpx"], npm: ["zx"] } } };
    config.vaults[`vault-${i}`] = {
      credentials: [
        { name: "c", type: "environment_variable", secret_name: "TOKEN", secret_value: "${BENCH_KEY}" },
      ],
    };
    config.memory_stores[`store-${i}`] = { entries: [{ key: "/notes.md", content: "seed" }] };
  }
  for (let i = 0; i < 800; i++) {
    const agent = {
      model: "m",
      instructions: `Agent ${i}: do the work carefully.`,
      environment: env(i % 300),
      vault: `vault-${i % 300}`,
      memory_stores: [`store-${i % 300}`],
      tools: { builtin: ["bash", "read", "grep"], permissions: { Bash: "ask", READ: "allow" } },
    };
    // Every 40th agent coordinates the 10 plain agents after it.
    if (i % 40 === 0)
      agent.multiagent = {
        type: "coordinator",
        agents: Array.from({ length: 10 }, (_, k) => `agent-${i + 1 + k}`),
      };
    config.agents[`agent-${i}`] = agent;
  }
  for (let i = 0; i < 300; i++) {
    config.deployments[`deploy-${i}`] = {
      agent: `agent-${(i * 7) % 800}`,
      environment: env(i % 300),
      vaults: [`vault-${i % 300}`],
      initial_events: [{ type: "user.message", content: "go" }],
      schedule: { expression: "0 9 * * 1-5", timezone: "Europe/Berlin" },
    };
  }
  return stringify(config);
}

const dir = mkdtempSync(join(tmpdir(), "agents-bench-"));
const results = [];
try {
  for (const providers of [["provider_c"], ["provider_c", "provider_d"]]) {
    const file = join(dir, `agents-${providers.length}.yaml`);
    const text = generate(providers);
    writeFileSync(file, text);
    const env = { BENCH_KEY: "bench-key" };
    const first = await loadConfig(file, { env });
    const errors = first.diagnostics.filter((d) => d.severity === "error");
    if (errors.length > 0)
      throw new Error(`generated config is invalid: ${JSON.stringify(errors.slice(0, 3))}`);
    // Wall time suffers when the shared machine is busy; CPU time of this process much less so.
    const times = [];
    const cpuTimes = [];
    for (let r = 0; r < runs; r++) {
      const start = performance.now();
      const cpuStart = process.cpuUsage();
      await loadConfig(file, { env });
      const cpu = process.cpuUsage(cpuStart);
      times.push(performance.now() - start);
      cpuTimes.push((cpu.user + cpu.system) / 1000);
    }
    times.sort((a, b) => a - b);
    cpuTimes.sort((a, b) => a - b);
    const row = {
      label: `${providers.length} provider${providers.length > 1 ? "s" : ""}`,
      bytes: Buffer.byteLength(text),
      nodes: first.graph.nodes.length,
      min: times[0],
      median: times[Math.floor(times.length / 2)],
      max: times[times.length - 1],
      cpuMedian: cpuTimes[Math.floor(cpuTimes.length / 2)],
    };
    results.push(row);
    headline(
      "validate",
      `validate 2,000 resources (${row.label}): median wall ms`,
      row.median.toFixed(0),
      "< 300 ms",
      row.median < 300,
    );
    console.log(
      `${row.label}: 2000 resources, ${row.nodes} graph nodes, ${(row.bytes / 1024).toFixed(0)} KiB — ` +
        `loadConfig wall min ${row.min.toFixed(1)} ms, median ${row.median.toFixed(1)} ms, max ${row.max.toFixed(1)} ms; ` +
        `CPU median ${row.cpuMedian.toFixed(1)} ms (${runs} runs)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (record) {
  const out = fileURLToPath(new URL("./results/validate.md", import.meta.url));
  const lines = [
    "",
    `## ${new Date().toISOString()}`,
    "",
    `Machine: nproc ${availableParallelism()}, node ${process.version}, ${process.platform}/${process.arch}, ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" / ")} (the machine is shared). ${runs} timed runs after one warm-up.`,
    "",
    "| Config | Resources | Graph nodes | Size | wall min ms | wall median ms | wall max ms | CPU median ms |",
    "|---|---|---|---|---|---|---|---|",
    ...results.map(
      (r) =>
        `| ${r.label} | 2000 | ${r.nodes} | ${(r.bytes / 1024).toFixed(0)} KiB | ${r.min.toFixed(1)} | ${r.median.toFixed(1)} | ${r.max.toFixed(1)} | ${r.cpuMedian.toFixed(1)} |`,
    ),
    "",
  ];
  appendFileSync(out, lines.join("\n"));
  console.log(`recorded in ${out}`);
}
