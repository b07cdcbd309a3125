import { agentScript, scriptTurn, type TurnContext, TurnPlayer, type TurnStep } from "./agent-turn.js";
import type { EventHub } from "./sse.js";
import type { Rec } from "./store.js";

// The scripted agent of provider_a and provider_b sessions (docs/sims.md §Session turns): the same
// turn as provider_c's, in each provider's own event vocabulary.

export interface HubSession {
  /** Appends one wire event to the session's history and pushes it to its live streams. */
  append(fields: Record<string, unknown>): Rec;
  setStatus(status: string): void;
  hub: EventHub;
  id: string;
}

type Vocabulary = "provider_a" | "provider_b";

const players = new WeakMap<Rec, TurnPlayer>();
/** Session ids whose streams were cut for good (`[cut]`), per simulator state. */
const cut = new WeakMap<object, Set<string>>();

export function streamCutFor(state: object, sessionId: string): boolean {
  return cut.get(state)?.has(sessionId) ?? false;
}

/** provider_a's status event: the status lives in `content[0].data.session_status`. */
const aStatus = (s: string) => ({
  type: "session_status",
  content: [{ type: "data", data: { session_status: s } }],
});

function voice(vocabulary: Vocabulary, s: HubSession, state: object) {
  const a = vocabulary === "provider_a";
  return {
    step(step: TurnStep, turn: TurnContext) {
      switch (step.kind) {
        case "running":
          s.setStatus("running");
          s.append(a ? aStatus("running") : { type: "session.status_running" });
          return;
        case "thinking":
          s.append(
            a
              ? { type: "reasoning", content: [{ type: "text", text: step.text }] }
              : { type: "agent.thinking", content: [{ type: "text", text: step.text }] },
          );
          return;
        case "text_start":
        case "text_delta":
          return;
        case "text":
          s.append(
            a
              ? { type: "message", role: "assistant", content: [{ type: "text", text: step.text }] }
              : { type: "agent.message", content: [{ type: "text", text: step.text }] },
          );
          return;
        case "tool_use": {
          const e = s.append(
            a
              ? {
                  type: "tool_call",
                  content: [
                    { type: "data", data: { name: step.name, arguments: JSON.stringify(step.input) } },
                  ],
                }
              : { type: "agent.tool_use", name: step.name, input: step.input },
          );
          turn.toolUseId = e.id;
          return;
        }
        case "tool_result":
          s.append(
            a
              ? {
                  type: "tool_call_output",
                  content: [{ type: "data", data: { call_id: turn.toolUseId, output: step.output } }],
                }
              : {
                  type: "agent.tool_result",
                  tool_use_id: turn.toolUseId,
                  content: [{ type: "text", text: step.output }],
                  is_error: step.isError,
                },
          );
          return;
        case "usage":
          return;
        case "error":
          s.append(
            a
              ? { type: "error", content: [{ type: "text", text: step.message }] }
              : { type: "session.error", error: { type: "model_overloaded_error", message: step.message } },
          );
          return;
        case "idle":
          s.setStatus("idle");
          s.append(a ? aStatus("idle") : { type: "session.status_idle", stop_reason: { type: "end_turn" } });
          return;
      }
    },
    awaitConfirmation(toolUseId: string) {
      s.setStatus("idle");
      s.append({
        type: "session.status_idle",
        stop_reason: { type: "requires_action", event_ids: [toolUseId] },
      });
    },
    dropStreams(forGood: boolean) {
      if (forGood) {
        const set = cut.get(state) ?? new Set<string>();
        set.add(s.id);
        cut.set(state, set);
      }
      s.hub.destroy(s.id);
    },
  };
}

function playerOf(vocabulary: Vocabulary, rec: Rec, s: HubSession, state: object): TurnPlayer {
  let p = players.get(rec);
  if (!p) {
    p = new TurnPlayer(voice(vocabulary, s, state));
    players.set(rec, p);
  }
  return p;
}

/** The agent's first enabled built-in tool (bash preferred, any case) and whether it asks first. */
export function firstTool(tools: unknown): { name: string; ask: boolean } | undefined {
  for (const t of Array.isArray(tools) ? tools : []) {
    if (typeof t !== "object" || t === null) continue;
    const toolset = t as { type?: string; default_config?: Record<string, unknown>; configs?: unknown[] };
    if (toolset.type === "mcp_toolset" || toolset.type === "mcp_toolkit") continue;
    const defaults = toolset.default_config ?? {};
    const policy = (c?: Record<string, unknown>) =>
      ((c?.permission_policy ?? defaults.permission_policy) as { type?: string } | undefined)?.type;
    const configs = (toolset.configs ?? []).filter(
      (c): c is Record<string, unknown> =>
        typeof c === "object" && c !== null && (c as { enabled?: unknown }).enabled !== false,
    );
    const pick = configs.find((c) => String(c.name).toLowerCase() === "bash") ?? configs[0];
    if (pick) return { name: String(pick.name), ask: policy(pick) === "always_ask" };
    if (defaults.enabled !== false) return { name: "bash", ask: policy() === "always_ask" };
  }
  return undefined;
}

export interface HubTurnInput {
  vocabulary: Vocabulary;
  /** The simulator's state object (keys the cut-for-good set) and clock (keys the settings). */
  state: object;
  sim: Parameters<typeof agentScript>[0];
  rec: Rec;
  session: HubSession;
  text: string;
  tools: unknown;
}

/** Plays the scripted agent's turn for one user message. */
export function playHubTurn(input: HubTurnInput): void {
  const a = input.vocabulary === "provider_a";
  const found = firstTool(input.tools);
  // provider_a has no `ask` permission: its tools always run.
  const tool = found && a ? { ...found, ask: false } : found;
  const script = scriptTurn({
    text: input.text,
    replyPrefix: "Received: ",
    ...(tool ? { tool } : {}),
    thinking: true,
    usage: false,
  });
  playerOf(input.vocabulary, input.rec, input.session, input.state).play(
    script,
    agentScript(input.sim).chunkMs,
  );
}

/** The tool call the session waits for the user to allow or deny, if any. */
export function awaitedTool(rec: Rec): string | undefined {
  return players.get(rec)?.awaiting;
}

export function confirmHubTool(rec: Rec, toolUseId: string, result: "allow" | "deny"): boolean {
  return players.get(rec)?.confirm(toolUseId, result) ?? false;
}

export function interruptHubTurn(rec: Rec): boolean {
  return players.get(rec)?.interrupt() ?? false;
}

export function stopHubTurns(rec: Rec): void {
  players.get(rec)?.stop();
}
