// The playground's page at scale (issue 42): the bytes of its one local script, and how long the
// graph of a 500-resource project (bench/playground-config.mjs) takes to lay out and draw in
// Debian's headless Chromium: as it opens (large kinds grouped), with one 300-agent group opened by
// a search, and with every group open. Median of --runs page loads each; goal ≤ 1 s for the page as
// it opens and ≤ 300 KB of script. Records to bench/results/playground.md.
// Run: npm run build && node bench/playground.mjs [--runs N] [--count N] [--no-record]
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { startPlayground } from "../packages/agents/dist/cli/playground/server.js";
import { CHROMIUM_ARGS } from "../scripts/chromium.mjs";
import { headline } from "./lib.mjs";
import { playgroundConfig } from "./playground-config.mjs";

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1]) || 5;
const count = Number(args[args.indexOf("--count") + 1]) || 500;
const record = !args.includes("--no-record");

const script = readFileSync(fileURLToPath(new URL("../packages/agents/dist/playground.js", import.meta.url)));
const dir = mkdtempSync(join(tmpdir(), "bench-playground-"));
const file = join(dir, "agents.yaml");
writeFileSync(file, playgroundConfig("providers:\n  provider_c:\n    api_key: bench-key", count));
const playground = await startPlayground({
  file,
  env: { AGENTS_STATE_KEY: "bench" },
  script: script.toString(),
});
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: CHROMIUM_ARGS,
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rendered = async (page, previous) => {
  await page.waitForFunction(
    (p) =>
      document.body.getAttribute("data-render-ms") !== null &&
      document.body.getAttribute("data-rendered") !== p,
    previous,
  );
  return Number(await page.getAttribute("body", "data-render-ms"));
};
const figures = { open: [], oneGroup: [], all: [], openNodes: 0, oneGroupNodes: 0, allNodes: 0 };
try {
  for (let i = 0; i < runs; i++) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(playground.url);
    await page.waitForSelector("body[data-loaded]");
    figures.open.push(Number(await page.getAttribute("body", "data-render-ms")));
    figures.openNodes = await page.locator("g.node").count();
    let mark = await page.getAttribute("body", "data-rendered");
    await page.fill("#search", "agent-123");
    await page.press("#search", "Enter");
    await page.waitForSelector("g.node.selected[data-address='provider_c.agents[\"agent-123\"]']");
    figures.oneGroup.push(await rendered(page, mark));
    figures.oneGroupNodes = await page.locator("g.node").count();
    mark = await page.getAttribute("body", "data-rendered");
    await page.click("#expand-all");
    figures.all.push(await rendered(page, mark));
    figures.allNodes = await page.locator("g.node").count();
    await page.close();
  }
} finally {
  await browser.close();
  await playground.close();
  rmSync(dir, { recursive: true, force: true });
}
const bytes = script.length;
const gzipped = gzipSync(script).length;
const lines = [
  `script: ${bytes} bytes (${gzipped} gzipped); goal ≤ 300 KB`,
  `graph as the page opens (${figures.openNodes} nodes drawn for ${count} resources): median ${median(figures.open)} ms (${figures.open.join(", ")}); goal ≤ 1000 ms`,
  `one group opened by a search (${figures.oneGroupNodes} nodes): median ${median(figures.oneGroup)} ms (${figures.oneGroup.join(", ")})`,
  `every group open (${figures.allNodes} nodes): median ${median(figures.all)} ms (${figures.all.join(", ")})`,
];
for (const line of lines) console.log(line);
headline("playground", "script bytes", bytes, "≤ 300 KB", bytes <= 300 * 1024);
headline(
  "playground",
  `graph of ${count} resources as it opens, ms`,
  median(figures.open),
  "≤ 1000 ms",
  median(figures.open) <= 1000,
);
if (record)
  appendFileSync(
    fileURLToPath(new URL("./results/playground.md", import.meta.url)),
    `\n## ${new Date().toISOString()} (${availableParallelism()} cores, load ${loadavg()[0].toFixed(2)}; Chromium headless; ${runs} runs)\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`,
  );
