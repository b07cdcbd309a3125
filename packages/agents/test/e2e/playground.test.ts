// `agents playground` in Debian's headless Chromium: the graph of examples/provider-c against the
// provider_c simulator, a plan from the page and its statuses, a node's masked fields, live reload
// when agents.yaml changes, and the requests the server refuses (token, Host, Origin).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { agentScript, type RunningSim, startSim } from "@agents/sims";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CHROMIUM_ARGS } from "../../../../scripts/chromium.mjs";
import { describeWith, servicePath } from "../../../../scripts/test-services.js";
import { projectGraph } from "../../src/cli/graph/model.js";
import { type Playground, startPlayground } from "../../src/cli/playground/server.js";
import {
  formatDiagnostic,
  loadConfig,
  loadProject,
  openSession,
  type SessionEvent,
  sessionEvents,
} from "../../src/index.js";
import { copyExample } from "../convergence/examples.js";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const DOCS = fileURLToPath(new URL("../../../../docs/", import.meta.url));

/** A raw request, so that Host and Origin are exactly what a rebinding page would send. */
function raw(port: number, path: string, headers: Record<string, string>, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: body === undefined ? "GET" : "POST",
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
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
  let original: string;

  beforeAll(async () => {
    sim = await startSim("provider_c", { quiet: true });
    ({ dir, secrets } = await copyExample("provider-c", new Map([["provider_c", sim]])));
    env = { AGENTS_BASE_URL_PROVIDER_C: sim.url, AGENTS_STATE_KEY: "playground-test" };
    original = readFileSync(join(dir, "agents.yaml"), "utf8");
    playground = await startPlayground({
      file: join(dir, "agents.yaml"),
      env,
      script: readFileSync(join(DIST, "playground.js"), "utf8"),
    });
    browser = await chromium.launch({
      executablePath: servicePath("chromium")!,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    page = await browser.newPage({ viewport: { width: 1800, height: 1000 } });
    // A step that does not happen fails in seconds and names its selector, not at the test's timeout.
    page.setDefaultTimeout(15_000);
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
    // The new endpoints sit behind the same checks; without --allow-apply nothing applies.
    expect(await raw(port, "/api/agents", { host })).toBe(403);
    expect(await raw(port, "/api/sessions", { host: `evil.test:${port}`, cookie }, { agent: "x" })).toBe(421);
    expect(
      await raw(port, "/api/sessions", { host, cookie, origin: "http://evil.test" }, { agent: "x" }),
    ).toBe(403);
    expect(await raw(port, "/api/sessions/sesn_1/messages", { host, cookie }, { text: "hi" })).toBe(404);
    expect(await raw(port, "/api/apply", { host, cookie }, { plan: "any" })).toBe(403);
  });

  it("sends a page (HTML, script and stylesheet) under 300 KB gzipped", async () => {
    const headers = { cookie: `agents_playground=${playground.token}` };
    let bytes = 0;
    for (const path of ["/", "/app.js", "/app.css"]) {
      const response = await fetch(new URL(path, playground.url), { headers });
      expect(response.status).toBe(200);
      bytes += gzipSync(Buffer.from(await response.arrayBuffer())).length;
    }
    expect(bytes).toBeGreaterThan(1000);
    expect(bytes).toBeLessThan(300 * 1024);
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

  it("--allow-apply applies the plan shown (refused once agents.yaml changed); then a chat: streamed reply, an ask tool allowed from the page, JSONL", async () => {
    const file = join(dir, "agents.yaml");
    writeFileSync(file, original);
    const applying = await startPlayground({
      file,
      env,
      script: readFileSync(join(DIST, "playground.js"), "utf8"),
      allowApply: true,
    });
    // Replies come in pieces, 10 ms apart, as from a model.
    agentScript(sim).chunkMs = 10;
    try {
      await page.goto(applying.url);
      await page.waitForSelector("body[data-loaded]");
      expect(await page.textContent("#chat-status")).toBe("no applied agent yet: plan and apply first");
      await page.click("#plan");
      await page.locator("#status", { hasText: /^planned$/ }).waitFor();
      await page.locator("#apply-run").waitFor();

      // The file changed after the plan was shown: that plan is refused, nothing is applied.
      writeFileSync(file, original.replace("Check naming, structure and tests.", "Check naming and tests."));
      await page.click("#apply-run");
      await page.locator("#status", { hasText: /^apply failed$/ }).waitFor();
      expect(await page.textContent("#apply-log")).toBe(
        "Refused: agents.yaml (or a secret it uses) changed since the plan was shown; plan again\n",
      );
      expect(await page.locator("#apply-run").isHidden()).toBe(true);

      // Planned again: applied, progress streamed line by line, then planned again: nothing left.
      writeFileSync(file, original);
      await page.click("#plan");
      await page.locator("#apply-run").waitFor();
      const creates = await page.$$eval(
        "g.node",
        (gs) => gs.filter((g) => g.getAttribute("data-status") === "create").length,
      );
      await page.click("#apply-run");
      await page.locator("#apply", { hasText: "Nothing to apply." }).waitFor();
      const log = (await page.textContent("#apply-log")) ?? "";
      expect(log).toContain('provider_c.agents["security-reviewer"]: creating...\n');
      expect(log).toMatch(/provider_c\.agents\["security-reviewer"\]: created \[agent_\w+\] in [\d.]+s\n/);
      expect(log).toMatch(new RegExp(`\\nApply complete in [\\d.]+s: ${creates} created, 0 updated`));
      expect(
        new Set(await page.$$eval("g.node", (gs) => gs.map((g) => g.getAttribute("data-status")))),
      ).toEqual(new Set(["noop"]));

      // Chat with the agent whose bash tool asks first; a secret typed in comes back masked.
      const reviewer = 'provider_c.agents["security-reviewer"]';
      await page.locator(`#agent option[value='${reviewer}']`).waitFor({ state: "attached" });
      await page.selectOption("#agent", reviewer);
      await page.click("#start");
      await page.waitForSelector("body[data-session]");
      const id = (await page.getAttribute("body", "data-session"))!;
      const secret = secrets[0]!;
      await page.fill("#message", `think, then use the tool with ${secret}`);
      await page.press("#message", "Enter");
      await page.locator(".confirm button[data-answer=allow]").waitFor();
      const echoed = "(simulated) received: think, then use the tool with [redacted]";
      expect(await page.$$eval(".msg", (ms) => ms.map((m) => `${m.className}: ${m.textContent}`))).toEqual([
        `msg status: session ${id} of ${reviewer}`,
        "msg user: you: think, then use the tool with [redacted]",
        // provider_c's simulated thinking event carries no text.
        "msg thinking: thinking…",
        `msg reply: ${echoed}`,
        'msg tool-call: tool bash {"command":"echo hello"}',
        'msg confirm: Allow bash {"command":"echo hello"}? AllowDeny',
      ]);
      // The reply arrived in pieces (one per word), before the whole text replaced them.
      expect(Number(await page.getAttribute(".msg.reply", "data-deltas"))).toBe(echoed.split(" ").length);
      await page.click(".confirm button[data-answer=allow]");
      await page.locator(".msg.reply[data-final]", { hasText: "The tool said: hello." }).waitFor();
      await page.locator("#chat-status", { hasText: /^idle$/ }).waitFor();
      expect((await page.$$eval(".msg", (ms) => ms.map((m) => m.textContent))).slice(5)).toEqual([
        'Allowed: bash {"command":"echo hello"}',
        "tool result: hello",
        "The tool said: hello.",
        expect.stringMatching(/^usage: \d+ in, \d+ out$/),
      ]);

      // docs/playground.md shows the chat; AGENTS_WRITE_SCREENSHOT=1 renews it.
      if (process.env.AGENTS_WRITE_SCREENSHOT === "1")
        await page.locator("#chat").screenshot({ path: join(DOCS, "playground-chat.png") });
      // The JSONL download is the session's history as `agents session events --json` prints it.
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
      expect(download.suggestedFilename()).toBe(`session-${id}.jsonl`);
      const lines = readFileSync((await download.path())!, "utf8")
        .trimEnd()
        .split("\n");
      const history: SessionEvent[] = [];
      const project = await loadProject({ file, env });
      await sessionEvents(await openSession({ project, env }, id), { onEvent: (e) => history.push(e) });
      expect(lines.map((l) => JSON.parse(l).id)).toEqual(history.map((e) => e.id));
      expect(lines.map((l) => JSON.parse(l).type)).toEqual(history.map((e) => e.type));
      expect(lines.map((l) => JSON.parse(l).type)).toEqual(
        expect.arrayContaining(["user_message", "thinking", "text", "tool_call", "tool_result"]),
      );
      const everything = `${await page.content()}${lines.join("\n")}`;
      for (const s of secrets) expect(everything).not.toContain(s);
      expect(lines.join("\n")).toContain("[redacted]");
    } finally {
      agentScript(sim).chunkMs = 0;
      await applying.close();
    }
  });
});
