// `agents playground` in Debian's headless Chromium: the graph of examples/provider-c against the
// provider_c simulator, a plan from the page and its statuses, a node's masked fields, live reload
// when agents.yaml changes, and the requests the server refuses (token, Host, Origin).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith, servicePath } from "../../../../scripts/test-services.js";
import { projectGraph } from "../../src/cli/graph/model.js";
import { type Playground, startPlayground } from "../../src/cli/playground/server.js";
import { formatDiagnostic, loadConfig } from "../../src/index.js";
import { copyExample } from "../convergence/examples.js";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const DOCS = fileURLToPath(new URL("../../../../docs/", import.meta.url));

/** A raw request, so that Host and Origin are exactly what a rebinding page would send. */
function raw(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

describeWith("chromium")("agents playground in headless Chromium (examples/provider-c)", () => {
  let sim: RunningSim;
  let dir: string;
  let secrets: string[];
  let playground: Playground;
  let browser: Browser;
  let page: Page;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    sim = await startSim("provider_c", { quiet: true });
    ({ dir, secrets } = await copyExample("provider-c", new Map([["provider_c", sim]])));
    env = { AGENTS_BASE_URL_PROVIDER_C: sim.url, AGENTS_STATE_KEY: "playground-test" };
    playground = await startPlayground({
      file: join(dir, "agents.yaml"),
      env,
      script: readFileSync(join(DIST, "playground.js"), "utf8"),
    });
    browser = await chromium.launch({
      executablePath: servicePath("chromium")!,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-sync",
      ],
    });
    page = await browser.newPage({ viewport: { width: 1800, height: 1000 } });
  });

  afterAll(async () => {
    await browser?.close();
    await playground?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a wrong token, a missing cookie, a foreign Host and a foreign Origin", async () => {
    const port = playground.port;
    const host = `127.0.0.1:${port}`;
    const cookie = `agents_playground=${playground.token}`;
    expect(await raw(port, `/?token=${playground.token}`, { host })).toBe(303);
    expect(await raw(port, "/?token=wrong", { host })).toBe(403);
    expect(await raw(port, "/api/graph", { host })).toBe(403);
    expect(await raw(port, "/api/graph", { host, cookie: "agents_playground=wrong" })).toBe(403);
    expect(await raw(port, "/api/graph", { host, cookie })).toBe(200);
    expect(await raw(port, "/api/graph", { host: `localhost:${port}`, cookie })).toBe(200);
    // DNS rebinding: a name that resolves to 127.0.0.1 still names another site.
    expect(await raw(port, "/api/graph", { host: `evil.test:${port}`, cookie })).toBe(421);
    expect(await raw(port, `/?token=${playground.token}`, { host: `evil.test:${port}` })).toBe(421);
    expect(await raw(port, "/api/graph", { host, cookie, origin: "http://evil.test" })).toBe(403);
    expect(await raw(port, "/api/graph", { host, cookie, origin: `http://${host}` })).toBe(200);
  });

  it("draws the declared graph, plans from the page and follows edits of agents.yaml", async () => {
    const file = join(dir, "agents.yaml");
    const expected = projectGraph(await loadConfig(file, { env }));
    expect(expected).toBeDefined();
    if (!expected) return;
    await page.goto(playground.url);
    // The token left the address bar for an HttpOnly cookie.
    expect(page.url()).toBe(`http://127.0.0.1:${playground.port}/`);
    const cookies = await page.context().cookies();
    expect(cookies).toEqual([
      expect.objectContaining({ name: "agents_playground", httpOnly: true, sameSite: "Strict" }),
    ]);
    await page.waitForSelector("body[data-loaded]");
    const nodes = await page.$$eval("g.node", (gs) => gs.map((g) => g.getAttribute("data-address")));
    expect(nodes.sort()).toEqual(expected.nodes.map((n) => n.id).sort());
    const edges = await page.$$eval("g.edge", (gs) =>
      gs.map((g) => `${g.getAttribute("data-from")} -> ${g.getAttribute("data-to")}`),
    );
    expect(edges.sort()).toEqual(expected.edges.map((e) => `${e.from} -> ${e.to}`).sort());
    expect(await page.textContent("#findings")).toBe("no findings");

    // A node's fields: the vault's credentials hold secrets, shown masked; its source line.
    const vault = expected.nodes.find((n) => n.kind === "vaults");
    expect(vault).toBeDefined();
    await page.click(`g.node[data-address='${vault!.id}']`);
    const details = (await page.textContent("#details")) ?? "";
    expect(details).toContain(`agents.yaml:${vault!.line}:${vault!.col}`);
    expect(details).toContain("[redacted]");

    // A plan on an empty state: everything declared is created.
    await page.click("#plan");
    await page.locator("#status", { hasText: /^planned$/ }).waitFor();
    const statuses = await page.$$eval("g.node", (gs) => gs.map((g) => g.getAttribute("data-status")));
    expect(new Set(statuses)).toEqual(new Set(["create"]));
    // docs/playground.md shows this picture; AGENTS_WRITE_SCREENSHOT=1 renews it.
    if (process.env.AGENTS_WRITE_SCREENSHOT === "1")
      await page.locator("#graph svg").screenshot({ path: join(DOCS, "playground.png") });
    expect(await page.textContent("#apply")).toContain(`agents apply -f ${file}`);
    const everything = await page.content();
    for (const secret of secrets) expect(everything).not.toContain(secret);

    // Edit: a new memory store appears; a broken reference shows validate's own finding.
    const original = readFileSync(file, "utf8");
    const count = nodes.length;
    writeFileSync(
      file,
      original.replace(
        "memory_stores:\n  findings:",
        "memory_stores:\n  scratch:\n    description: Scratch\n  findings:",
      ),
    );
    await page.locator(`g.node >> nth=${count}`).waitFor();
    expect(await page.locator("g.node").count()).toBe(count + 1);
    expect(await page.$$eval("g.node", (gs) => gs.map((g) => g.getAttribute("data-address")))).toContain(
      'provider_c.memory_stores["scratch"]',
    );
    const broken = original.replace(
      "Be brief.\n    environment: review-sandbox",
      "Be brief.\n    environment: missing-sandbox",
    );
    expect(broken).not.toBe(original);
    writeFileSync(file, broken);
    await page.waitForSelector("#findings li.error");
    const result = await loadConfig(file, { env });
    const wanted = result.diagnostics.map((d) => formatDiagnostic(d, result.source?.lineText(d.line)));
    expect(wanted.length).toBeGreaterThan(0);
    expect(await page.$$eval("#findings li", (lis) => lis.map((li) => li.textContent))).toEqual(wanted);
  });
});
