import { agentScript, scriptTurn, type TurnContext, TurnPlayer, type TurnStep } from "../kit/agent-turn.js";
import { ApiError, invalid } from "./errors.js";
import { appendEvent } from "./events.js";
import type { Kit, Obj, State } from "./state.js";
import { isObject, type Json, type JsonObject } from "./validate.js";

// The scripted agent of provider_c and provider_d sessions (docs/sims.md §Session turns), spoken in
// their shared wire: `session.status_*`, `agent.thinking`, `agent.message`, `agent.tool_use` /
// `agent.tool_result`, `session.error`, and on provider_c `session.usage` plus the opt-in previews
// (`event_start` / `event_delta`) of a reply being written.

const players = new WeakMap<Obj, TurnPlayer>();
/** Sessions whose stream was cut for good (`[cut]`): new stream requests are refused. */
const cutFor = new WeakMap<State, Set<string>>();

export function streamCut(kit: Kit, sessionId: string): boolean {
  return cutFor.get(kit.state())?.has(sessionId) ?? false;
}

/** The agent's first enabled built-in tool (bash preferred) and whether it asks first. */
function firstTool(kit: Kit, session: Obj): { name: string; ask: boolean } | undefined {
  const agent = kit.state().agents.get(session.agent.id);
  for (const t of (agent?.tools as JsonObject[] | undefined) ?? []) {
    if (!isObject(t) || t.type === "mcp_toolset") continue;
    const defaults = (t.default_config ?? {}) as JsonObject;
    const configs = ((t.configs as JsonObject[] | undefined) ?? []).filter((c) => c.enabled !== false);
    const policyOf = (c: JsonObject | undefined) =>
      ((c?.permission_policy ?? defaults.permission_policy) as JsonObject | undefined)?.type;
    const pick = configs.find((c) => c.name === "bash") ?? configs[0];
    if (pick) return { name: String(pick.name), ask: policyOf(pick) === "always_ask" };
    if (defaults.enabled !== false) return { name: "bash", ask: policyOf(undefined) === "always_ask" };
  }
  return undefined;
}

function voiceFor(kit: Kit, session: Obj) {
  const isC = kit.dialect.name === "provider_c";
  const emit = (type: string, fields: Record<string, Json>) =>
    appendEvent(kit, kit.state().sessionEvents, session.id, type, fields);
  const preview = (frame: JsonObject) => {
    for (const stream of kit.state().streams.get(session.id) ?? []) stream.preview?.(frame);
  };
  const setStatus = (status: string) => {
    session.status = status;
    session.updated_at = kit.now();
  };
  return {
    step(step: TurnStep, turn: TurnContext) {
      switch (step.kind) {
        case "running":
          setStatus("running");
          emit("session.status_running", {});
          return;
        case "thinking":
          emit("agent.thinking", {});
          return;
        case "text_start":
          turn.messageId = kit.newId("event");
          if (isC) preview({ type: "event_start", event: { type: "agent.message", id: turn.messageId } });
          return;
        case "text_delta":
          if (isC && turn.messageId)
            preview({
              type: "event_delta",
              event_id: turn.messageId,
              delta: { type: "content_delta", index: 0, content: { type: "text", text: step.text } },
            });
          return;
        case "text": {
          const id = turn.messageId ?? kit.newId("event");
          turn.messageId = undefined;
          emit("agent.message", { id, content: [{ type: "text", text: step.text }] });
          return;
        }
        case "tool_use": {
          const e = emit("agent.tool_use", {
            name: step.name,
            input: step.input as Json,
            ...(isC ? { evaluated_permission: step.ask ? "ask" : "allow" } : {}),
          });
          turn.toolUseId = e.id;
          return;
        }
        case "tool_result":
          emit("agent.tool_result", {
            tool_use_id: turn.toolUseId ?? null,
            content: [{ type: "text", text: step.output }],
            is_error: step.isError,
          });
          return;
        case "usage":
          if (isC)
            emit("session.usage", {
              usage: { input_tokens: step.inputTokens, output_tokens: step.outputTokens },
            });
          return;
        case "error":
          emit("session.error", {
            error: {
              type: "model_overloaded_error",
              message: step.message,
              retry_status: { type: "terminal" },
            },
          });
          return;
        case "idle":
          setStatus("idle");
          emit("session.status_idle", { stop_reason: { type: "end_turn" } });
          return;
      }
    },
    awaitConfirmation(toolUseId: string) {
      setStatus("idle");
      emit("session.status_idle", { stop_reason: { type: "requires_action", event_ids: [toolUseId] } });
    },
    dropStreams(forGood: boolean) {
      const st = kit.state();
      if (forGood) {
        const set = cutFor.get(st) ?? new Set<string>();
        set.add(session.id);
        cutFor.set(st, set);
      }
      // Cut now: nothing the turn emits after this reaches these connections.
      for (const stream of st.streams.get(session.id) ?? []) stream.destroy?.();
      st.streams.delete(session.id);
    },
  };
}

function playerOf(kit: Kit, session: Obj): TurnPlayer {
  let p = players.get(session);
  if (!p) {
    p = new TurnPlayer(voiceFor(kit, session));
    players.set(session, p);
  }
  return p;
}

/** Plays the scripted agent's turn for one user message. */
export function playTurn(kit: Kit, session: Obj, text: string): void {
  const isC = kit.dialect.name === "provider_c";
  const tool = firstTool(kit, session);
  const script = scriptTurn({
    text,
    replyPrefix: "(simulated) received: ",
    ...(tool ? { tool } : {}),
    thinking: true,
    usage: isC,
  });
  playerOf(kit, session).play(script, agentScript(kit).chunkMs);
}

/**
 * `user.tool_confirmation`: checks that the session waits for that tool call (400 otherwise) and
 * returns what resumes the turn, to run once the confirmation itself is in the history.
 */
export function confirmTool(kit: Kit, session: Obj, e: JsonObject): () => void {
  const id = e.tool_use_id;
  const result = e.result;
  if (typeof id !== "string") throw invalid("tool_use_id: expected a string");
  if (result !== "allow" && result !== "deny") throw invalid('result: must be "allow" or "deny"');
  const player = playerOf(kit, session);
  if (player.awaiting !== id)
    throw invalid(`tool_use_id: the session is not waiting for a confirmation of ${id}`);
  return () => player.confirm(id, result);
}

/** `user.interrupt`: stops the turn in progress (nothing happens on an idle session). */
export function interruptTurn(kit: Kit, session: Obj): void {
  playerOf(kit, session).interrupt();
}

/** The session is gone: its pending steps never play. */
export function stopTurns(session: Obj): void {
  players.get(session)?.stop();
}

/** A stream request on a session whose stream was cut for good: 503, as during an outage. */
export function refuseCutStream(kit: Kit, sessionId: string): void {
  if (streamCut(kit, sessionId))
    throw new ApiError(
      503,
      "api_error",
      `the event stream of session ${sessionId} is unavailable (simulated)`,
    );
}
