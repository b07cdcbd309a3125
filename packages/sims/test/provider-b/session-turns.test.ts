import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSim, type RunningSim } from "../../src/index.js";
import { agentScript } from "../../src/kit/agent-turn.js";
import { definition } from "../../src/provider-b/index.js";
import { type Call, client, readSse } from "../wire-client.js";

/** The scripted agent on provider_b managed sessions: ask → confirmation, dropped and cut streams. */
const KEY = "sim-provider-b-key";
let sim: RunningSim;
let api: Call;
const auth = { authorization: `Bearer ${KEY}` };

beforeAll(async () => {
  sim = await createSim(definition, { quiet: true });
  api = client(sim.url, auth);
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.reset();
  agentScript(sim).chunkMs = 0;
});

async function session(policy: "always_ask" | "always_allow") {
  const env = await api("POST", "/environments", { name: "e", config: { type: "cloud" } });
  const agent = await api("POST", "/agents", {
    name: "a",
    model: "auto",
    system: "be brief",
    tools: [
      {
        type: "agent_toolset_20260401",
        configs: [{ name: "Bash", enabled: true, permission_policy: { type: policy } }],
      },
    ],
  });
  expect(agent.status).toBe(200);
  const s = await api("POST", "/sessions", { agent: agent.body.id, environment_id: env.body.id });
  expect(s.status).toBe(200);
  return s.body.id as string;
}
const say = (id: string, text: string) =>
  api("POST", `/sessions/${id}/events`, {
    events: [{ type: "user.message", content: [{ type: "text", text }] }],
  });
/** Every frame of a stream until the server cuts it (readSse drops what it read when cut). */
async function readUntilCut(url: string): Promise<any[]> {
  const res = await fetch(url, { headers: auth });
  const reader = res.body!.getReader();
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } catch {
    // the cut
  }
  return text
    .split("\n\n")
    .map((f) => f.split("\n").find((l) => l.startsWith("data: ")))
    .filter((d): d is string => d !== undefined && d !== "data: {}")
    .map((d) => JSON.parse(d.slice(6)));
}
const types = async (id: string) =>
  ((await api("GET", `/sessions/${id}/events?limit=100`)).body.data as Array<{ type: string }>).map(
    (e) => e.type,
  );

describe("provider_b scripted session turns", () => {
  it.each([
    ["always_allow", ["agent.tool_use", "agent.tool_result", "agent.message", "session.status_idle"]],
    ["always_ask", ["agent.tool_use", "session.status_idle"]],
  ] as const)("a tool turn with permission %s", async (policy, tail) => {
    const id = await session(policy);
    await say(id, "use the tool");
    const all = await types(id);
    expect(all.slice(0, 3)).toEqual(["user.message", "session.status_running", "agent.message"]);
    expect(all.slice(3)).toEqual(tail);
  });

  it("a confirmation resumes the held tool call; one nothing waits for is a 400", async () => {
    const id = await session("always_ask");
    await say(id, "tool");
    const events = (await api("GET", `/sessions/${id}/events?limit=100`)).body.data as any[];
    const idle = events.at(-1);
    expect(idle.stop_reason).toEqual({ type: "requires_action", event_ids: [events.at(-2).id] });
    const confirm = (tool_use_id: string) =>
      api("POST", `/sessions/${id}/events`, {
        events: [{ type: "user.tool_confirmation", tool_use_id, result: "allow" }],
      });
    expect((await confirm("sevt_other")).status).toBe(400);
    expect((await confirm(events.at(-2).id)).status).toBe(200);
    expect((await types(id)).slice(5)).toEqual([
      "user.tool_confirmation",
      "session.status_running",
      "agent.tool_result",
      "agent.message",
      "session.status_idle",
    ]);
  });

  it("[drop] cuts the live stream after the first reply; Last-Event-ID resumes without a gap", async () => {
    agentScript(sim).chunkMs = 1;
    const id = await session("always_allow");
    const first = readUntilCut(`${sim.url}/sessions/${id}/events/stream`);
    await new Promise((r) => setTimeout(r, 30));
    await say(id, "tool [drop]");
    const before = await first;
    expect(before.map((e) => e.type)).toEqual(["user.message", "session.status_running", "agent.message"]);
    await new Promise((r) => setTimeout(r, 40));
    const rest = await readSse(
      `${sim.url}/sessions/${id}/events/stream`,
      { ...auth, "last-event-id": before.at(-1).id },
      4,
    );
    expect([...before, ...rest].map((e) => e.type)).toEqual(await types(id));
  });

  it("[cut] cuts the stream for good: reconnecting is a 503, the history stays readable", async () => {
    const id = await session("always_allow");
    await say(id, "hello [cut]");
    const res = await fetch(`${sim.url}/sessions/${id}/events/stream`, { headers: auth });
    expect(res.status).toBe(503);
    expect(await types(id)).toEqual([
      "user.message",
      "session.status_running",
      "agent.message",
      "session.status_idle",
    ]);
  });
});
