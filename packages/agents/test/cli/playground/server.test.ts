// The playground's API in-process over loopback, against the provider_c simulator (the page's own
// wiring is driven in Chromium by e2e/playground.test.ts): a plan applied on an existing state is
// a saved plan (also before the first apply) the engine refuses once the state moved on; `ask` tool calls denied from the page,
// or by a page that went away; the refusals of the chat and apply endpoints.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Playground, startPlayground } from "../../../src/cli/playground/server.js";
import { copyExample } from "../../convergence/examples.js";

let sim: RunningSim;
let dir: string;
let secrets: string[];
let playground: Playground;
let file: string;
let original: string;

beforeAll(async () => {
  sim = await startSim("provider_c", { quiet: true });
  ({ dir, secrets } = await copyExample("provider-c", new Map([["provider_c", sim]])));
  file = join(dir, "agents.yaml");
  original = readFileSync(file, "utf8");
  playground = await startPlayground({
    file,
    env: { AGENTS_BASE_URL_PROVIDER_C: sim.url, AGENTS_STATE_KEY: "playground-api-test" },
    script: "",
    allowApply: true,
  });
});

afterAll(async () => {
  await playground?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const headers = () => ({
  cookie: `agents_playground=${playground.token}`,
  "content-type": "application/json",
});

function post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(new URL(path, playground.url), {
    method: "POST",
    headers: headers(),
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

type Line = any;

/** A streamed answer read line by line; `read(until)` stops after the line `until` accepts. */
function lineReader(response: Response) {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return async (until?: (line: Line) => boolean): Promise<Line[]> => {
    const lines: Line[] = [];
    for (;;) {
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        lines.push(JSON.parse(buffer.slice(0, end)));
        buffer = buffer.slice(end + 1);
        if (until?.(lines.at(-1))) return lines;
      }
      const { value, done } = await reader.read();
      if (done) return lines;
      buffer += value;
    }
  };
}

const readLines = (response: Response) => lineReader(response)();

async function planId(): Promise<string> {
  const response = await post("/api/plan", {});
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

const texts = (lines: Line[]) => lines.filter((l) => l.type !== "line" || !/: (creat|updat)/.test(l.text));

describe("the page's data", () => {
  it("/api/graph gives each finding as a code frame's data: line, column, the source line, the hint, the resource", async () => {
    writeFileSync(
      file,
      original.replace(
        "Be brief.\n    environment: review-sandbox",
        "Be brief.\n    environment: missing-sandbox",
      ),
    );
    try {
      const response = await fetch(new URL("/api/graph", playground.url), { headers: headers() });
      const body = (await response.json()) as { findings: Line[] };
      const lines = readFileSync(file, "utf8").split("\n");
      const at = lines.indexOf("    environment: missing-sandbox") + 1;
      expect(body.findings).toContainEqual(
        expect.objectContaining({
          severity: "error",
          line: at,
          col: 18,
          lineText: "    environment: missing-sandbox",
          node: 'provider_c.agents["style-reviewer"]',
          hint: expect.any(String),
        }),
      );
    } finally {
      writeFileSync(file, original);
    }
  });

  it("without --allow-apply, the page cannot apply (403)", async () => {
    const readOnly = await startPlayground({
      file,
      env: { AGENTS_STATE_KEY: "playground-api-test" },
      script: "",
    });
    try {
      const response = await fetch(new URL("/api/apply", readOnly.url), {
        method: "POST",
        headers: { cookie: `agents_playground=${readOnly.token}`, "content-type": "application/json" },
        body: JSON.stringify({ plan: "any" }),
      });
      expect(response.status).toBe(403);
    } finally {
      await readOnly.close();
    }
  });
});

describe("apply from the playground", () => {
  it("applies a plan as a saved plan, once, also before the first apply; a plan older than the state is refused", async () => {
    // Two plans made before anything was applied: the first one applied makes the state, and the
    // other is then refused as made for a state that no longer is the one stored.
    const fresh = await planId();
    const other = await planId();
    const first = await readLines(await post("/api/apply", { plan: fresh }));
    expect(first.at(-1)).toEqual({ type: "done", ok: true });
    expect(await readLines(await post("/api/apply", { plan: other }))).toEqual([
      {
        type: "error",
        error: expect.stringMatching(
          /^the saved plan was made for a different state \(lineage [0-9a-f-]+, this state is [0-9a-f-]+\); run agents plan again$/,
        ),
      },
    ]);

    writeFileSync(file, original.replace("Check naming, structure and tests.", "Check naming and tests."));
    const a = await planId();
    const b = await planId();
    const applied = await readLines(await post("/api/apply", { plan: a }));
    expect(texts(applied)).toEqual([
      { type: "line", text: expect.stringMatching(/^Apply complete in [\d.]+s: 0 created, 1 updated, /) },
      { type: "done", ok: true },
    ]);
    // b was made against the state a replaced.
    const stale = await readLines(await post("/api/apply", { plan: b }));
    expect(stale).toEqual([
      {
        type: "error",
        error: expect.stringMatching(
          /^the state changed since the plan was saved \(serial \d+ → \d+\); run agents plan again$/,
        ),
      },
    ]);
    // A kept plan is applied once.
    const again = await post("/api/apply", { plan: a });
    expect([again.status, await again.json()]).toEqual([
      409,
      { error: "this plan is no longer known to the playground; plan again" },
    ]);
  });
});

describe("chat from the playground", () => {
  let id: string;

  it("lists the applied agents and starts a session of one", async () => {
    const agents = await fetch(new URL("/api/agents", playground.url), { headers: headers() });
    expect(((await agents.json()) as { agents: Array<{ name: string }> }).agents.map((a) => a.name)).toEqual([
      "code.reviewer",
      "security-reviewer",
      "style-reviewer",
    ]);
    const started = await post("/api/sessions", { agent: 'provider_c.agents["security-reviewer"]' });
    expect(started.status).toBe(201);
    ({ id } = (await started.json()) as { id: string });
    expect(id).toMatch(/^sesn_/);
  });

  it("a tool call denied from the page reaches the agent as a denial; a wrong answer is refused", async () => {
    const read = lineReader(await post(`/api/sessions/${id}/messages`, { text: "use the tool" }));
    const held = await read((l) => l.event?.status === "requires_action");
    const toolId = held.at(-1).event.awaiting[0] as string;
    expect(held.find((l) => l.event?.type === "tool_call").event.tool).toMatchObject({
      id: toolId,
      name: "bash",
    });

    const busy = await post(`/api/sessions/${id}/messages`, { text: "hello" });
    expect([busy.status, await busy.json()]).toEqual([
      409,
      { error: "a reply is still streaming in this session" },
    ]);
    const wrong = await post(`/api/sessions/${id}/confirm`, { tool_id: "sevt_other", result: "allow" });
    expect(wrong.status).toBe(409);
    const word = await post(`/api/sessions/${id}/confirm`, { tool_id: toolId, result: "maybe" });
    expect([word.status, await word.json()]).toEqual([400, { error: 'result must be "allow" or "deny"' }]);

    const denied = await post(`/api/sessions/${id}/confirm`, { tool_id: toolId, result: "deny" });
    expect(denied.status).toBe(200);
    const rest = await read();
    // A denied tool never runs: no result, and the agent says so.
    expect(rest.filter((l) => l.event?.type === "tool_result")).toEqual([]);
    expect(rest.filter((l) => l.event?.type === "text").map((l) => l.event.text)).toEqual([
      "I did not run bash: the user denied it.",
    ]);
    expect(rest.at(-1)).toEqual({ type: "end", finished: true });
  });

  it("/api/resource: a resource's remote id, its applied values with secrets masked, an agent's sessions", async () => {
    const get = async (address: string) =>
      (await (
        await fetch(new URL(`/api/resource?address=${encodeURIComponent(address)}`, playground.url), {
          headers: headers(),
        })
      ).json()) as Line;
    const agent = await get('provider_c.agents["security-reviewer"]');
    expect(agent.state.id).toMatch(/^agent_/);
    expect(agent.sessions.map((s: Line) => s.id)).toContain(id);
    const vault = await get('provider_c.vaults["review"]');
    expect(vault.state.id).toMatch(/^vlt_|^vault_/);
    expect(JSON.stringify(vault.state)).toContain("[redacted]");
    for (const s of secrets) expect(JSON.stringify(vault)).not.toContain(s);
    expect(await get('provider_c.agents["nobody"]')).toEqual({
      address: 'provider_c.agents["nobody"]',
      state: null,
      sessions: [],
      error: null,
    });
  });

  it("a page that goes away while a tool call is held denies it", async () => {
    const DENIED = "I did not run bash: the user denied it.";
    const gone = new AbortController();
    const read = lineReader(
      await post(`/api/sessions/${id}/messages`, { text: "use the tool again" }, gone.signal),
    );
    await read((l) => l.event?.status === "requires_action");
    gone.abort();
    // The denial is sent to the provider; the session's history then ends with the agent saying so.
    let history: Line[] = [];
    for (let i = 0; i < 100; i++) {
      const jsonl = await fetch(new URL(`/api/sessions/${id}/events.jsonl`, playground.url), {
        headers: headers(),
      });
      history = (await jsonl.text())
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      if (history.filter((e) => e.text === DENIED).length === 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(history.filter((e) => e.type === "tool_result")).toEqual([]);
    expect(history.filter((e) => e.text === DENIED)).toHaveLength(2);
    for (const s of secrets) expect(JSON.stringify(history)).not.toContain(s);
  });

  it("a stream open the provider refuses (529, Retry-After) is said on the page once, and the turn goes on", async () => {
    sim.faults.set({
      rules: [
        {
          method: "GET",
          path: "/events/stream$",
          nth: 1,
          action: { type: "status", status: 529, headers: { "retry-after-ms": "20", "retry-after": "1" } },
        },
      ],
    });
    try {
      const lines = await readLines(await post(`/api/sessions/${id}/messages`, { text: "hello" }));
      expect(lines.filter((l) => l.type === "notice")).toEqual([
        { type: "notice", text: "provider_c: 529 (overloaded), resuming in 1 s" },
      ]);
      expect(lines.at(-1)).toEqual({ type: "end", finished: true });
    } finally {
      sim.faults.clear();
    }
  });

  it.each([
    ["an unknown session", `/api/sessions/sesn_nope/messages`, { text: "hi" }, 404],
    ["an empty message", "/api/sessions/SESSION/messages", { text: " " }, 400],
    ["a body that is not an object", "/api/sessions/SESSION/messages", ["hi"], 400],
  ])("refuses %s", async (_what, path, body, status) => {
    const response = await post(path.replace("SESSION", id), body);
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ error: expect.any(String) });
  });

  it("refuses a body that is not JSON (415)", async () => {
    const response = await fetch(new URL(`/api/sessions/${id}/messages`, playground.url), {
      method: "POST",
      headers: { cookie: `agents_playground=${playground.token}`, "content-type": "text/plain" },
      body: "hi",
    });
    expect(response.status).toBe(415);
  });
});
