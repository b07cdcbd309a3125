import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSim, type RunningSim } from "../../src/index.js";
import { agentScript } from "../../src/kit/agent-turn.js";
import { definition } from "../../src/provider-c/index.js";

/**
 * The scripted agent of the provider_c simulator read through the official SDK's own event stream
 * reader (`client.beta.sessions.events.stream`): reply previews (event_start / event_delta) on a
 * connection that asks for them, a tool call held for confirmation, and the turn that follows.
 */
let sim: RunningSim;
let client: Anthropic;

beforeAll(async () => {
  sim = await createSim(definition, { quiet: true });
  client = new Anthropic({ apiKey: "sim-provider-c-key", baseURL: sim.url.replace(/\/v1$/, "") });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.reset();
  agentScript(sim).chunkMs = 0;
});

async function askingSession() {
  const env = await client.beta.environments.create({
    name: "turns",
    config: { type: "cloud", networking: { type: "unrestricted" } },
  });
  const agent = await client.beta.agents.create({
    name: "turns",
    model: "claude-sonnet-4-5",
    tools: [
      {
        type: "agent_toolset_20260401",
        default_config: { enabled: false },
        configs: [{ name: "bash", enabled: true, permission_policy: { type: "always_ask" } }],
      },
    ],
  });
  return client.beta.sessions.create({ agent: agent.id, environment_id: env.id });
}

describe("provider_c session turns through the SDK's stream reader", () => {
  it("previews the reply chunk by chunk, holds the tool for confirmation, then finishes", async () => {
    agentScript(sim).chunkMs = 2;
    const session = await askingSession();
    const stream = await client.beta.sessions.events.stream(session.id, { event_deltas: ["agent.message"] });
    await client.beta.sessions.events.send(session.id, {
      events: [{ type: "user.message", content: [{ type: "text", text: "please use a tool" }] }],
    });
    const seen: string[] = [];
    let deltas = "";
    let previewId: string | undefined;
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === "event_start") previewId = event.event.id;
      if (event.type === "event_delta") deltas += event.delta.content.text;
      if (event.type === "agent.message" && previewId) {
        // The buffered message carries the preview's id and its complete text.
        expect(event.id).toBe(previewId);
        expect(event.content).toEqual([{ type: "text", text: deltas }]);
        previewId = undefined;
        deltas = "";
      }
      if (event.type === "session.status_idle" && event.stop_reason.type === "requires_action") {
        const [toolUseId] = event.stop_reason.event_ids;
        await client.beta.sessions.events.send(session.id, {
          events: [{ type: "user.tool_confirmation", tool_use_id: toolUseId!, result: "allow" }],
        });
      }
      if (event.type === "session.status_idle" && event.stop_reason.type === "end_turn") break;
    }
    const buffered = seen.filter((t) => t !== "event_start" && t !== "event_delta");
    expect(buffered).toEqual([
      "user.message",
      "session.status_running",
      "agent.message",
      "agent.tool_use",
      "session.status_idle",
      "user.tool_confirmation",
      "session.status_running",
      "agent.tool_result",
      "agent.message",
      "session.usage",
      "session.status_idle",
    ]);
    // One event_start per reply, one delta per word: "(simulated) received: please use a tool".
    expect(seen.filter((t) => t === "event_start")).toHaveLength(2);
    expect(seen.filter((t) => t === "event_delta")).toHaveLength(6 + 4);
    // Previews never enter the history.
    const history = [];
    for await (const e of client.beta.sessions.events.list(session.id)) history.push(e.type);
    expect(history).toEqual(buffered);
  });

  it("a denied tool call never runs (no tool result; the agent says so); without event_deltas no previews arrive", async () => {
    const session = await askingSession();
    const stream = await client.beta.sessions.events.stream(session.id);
    await client.beta.sessions.events.send(session.id, {
      events: [{ type: "user.message", content: [{ type: "text", text: "tool" }] }],
    });
    const seen: Anthropic.Beta.Sessions.BetaManagedAgentsStreamSessionEvents[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (event.type === "session.status_idle" && event.stop_reason.type === "requires_action")
        await client.beta.sessions.events.send(session.id, {
          events: [
            { type: "user.tool_confirmation", tool_use_id: event.stop_reason.event_ids[0]!, result: "deny" },
          ],
        });
      if (event.type === "session.status_idle" && event.stop_reason.type === "end_turn") break;
    }
    expect(seen.some((e) => e.type === "event_delta" || e.type === "event_start")).toBe(false);
    expect(seen.some((e) => e.type === "agent.tool_use")).toBe(true);
    expect(seen.filter((e) => e.type === "agent.tool_result")).toEqual([]);
    expect(JSON.stringify(seen.filter((e) => e.type === "agent.message"))).toMatch(/did not run .*denied/);
  });

  it("an interrupt ends the held turn; a confirmation nothing waits for is a 400", async () => {
    const session = await askingSession();
    await client.beta.sessions.events.send(session.id, {
      events: [{ type: "user.message", content: [{ type: "text", text: "tool" }] }],
    });
    await expect(
      client.beta.sessions.events.send(session.id, {
        events: [{ type: "user.tool_confirmation", tool_use_id: "sevt_nothing", result: "allow" }],
      }),
    ).rejects.toThrow(/not waiting/);
    await client.beta.sessions.events.send(session.id, { events: [{ type: "user.interrupt" }] });
    const types = [];
    for await (const e of client.beta.sessions.events.list(session.id)) types.push(e.type);
    expect(types.slice(-3)).toEqual(["session.status_idle", "user.interrupt", "session.status_idle"]);
    expect((await client.beta.sessions.retrieve(session.id)).status).toBe("idle");
  });
});
