// The provider-neutral session event (docs/cli.md §Session events) and the readers that turn each
// provider's wire events into it. The provider's own event is always kept under `raw`.

export type SessionEventType =
  | "user_message"
  | "text_delta"
  | "text"
  | "thinking"
  | "tool_call"
  | "tool_result"
  | "status"
  | "usage"
  | "error"
  | "other";

export interface SessionEvent {
  /** The provider's event id; a reply preview (text_delta) carries the id of the reply it previews. */
  id: string;
  type: SessionEventType;
  session_id: string;
  provider: string;
  /** user_message, text, text_delta, thinking: the text (thinking may have none). */
  text?: string;
  /** text: the reply was already shown piece by piece (text_delta events with this id). */
  streamed?: boolean;
  /** tool_call / tool_result. */
  tool?: { id: string; name?: string; input?: unknown; output?: string; is_error?: boolean };
  /** status: running, idle, requires_action, terminated, rescheduling, or the provider's word. */
  status?: string;
  stop_reason?: string;
  /** status requires_action: the tool calls waiting for the user to allow or deny them. */
  awaiting?: string[];
  usage?: { input_tokens?: number; output_tokens?: number };
  error?: { message: string; type?: string };
  /** The provider's own event (or preview frame), as received. */
  raw: unknown;
}

type Raw = Record<string, unknown>;
export type EventReader = (raw: Raw, sessionId: string, provider: string) => SessionEvent | undefined;

const isObj = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter(isObj).map((c) => (typeof c.text === "string" ? c.text : ""));
  return parts.length ? parts.join("") : undefined;
}

function base(raw: Raw, sessionId: string, provider: string, type: SessionEventType, id = raw.id) {
  return { id: String(id ?? ""), type, session_id: sessionId, provider, raw };
}

/** The `user.* / agent.* / session.*` vocabulary of provider_b, provider_c and provider_d. */
export const readManagedEvent: EventReader = (raw, sid, provider) => {
  const t = String(raw.type ?? "");
  const b = (type: SessionEventType, id?: unknown) => base(raw, sid, provider, type, id);
  switch (t) {
    case "user.message":
      return { ...b("user_message"), text: textOf(raw.content) ?? "" };
    case "agent.message":
      return { ...b("text"), text: textOf(raw.content) ?? "" };
    case "event_start":
      return undefined;
    case "event_delta": {
      const delta = isObj(raw.delta) ? raw.delta : {};
      const content = isObj(delta.content) ? delta.content : {};
      return { ...b("text_delta", raw.event_id), text: typeof content.text === "string" ? content.text : "" };
    }
    case "agent.thinking": {
      const text = textOf(raw.content);
      return { ...b("thinking"), ...(text ? { text } : {}) };
    }
    case "agent.tool_use":
    case "agent.mcp_tool_use":
    case "agent.custom_tool_use":
      return {
        ...b("tool_call"),
        tool: { id: String(raw.id), name: String(raw.name ?? ""), input: raw.input },
      };
    case "agent.tool_result":
    case "agent.mcp_tool_result":
      return {
        ...b("tool_result"),
        tool: {
          id: String(raw.tool_use_id ?? raw.mcp_tool_use_id ?? ""),
          output: textOf(raw.content) ?? "",
          is_error: raw.is_error === true,
        },
      };
    case "session.usage": {
      const u = isObj(raw.usage) ? raw.usage : {};
      return { ...b("usage"), usage: pickUsage(u) };
    }
    case "span.model_request_end": {
      const u = isObj(raw.model_usage) ? raw.model_usage : {};
      return { ...b("usage"), usage: pickUsage(u) };
    }
    case "session.error": {
      const e = isObj(raw.error) ? raw.error : {};
      return {
        ...b("error"),
        error: {
          message: String(e.message ?? "session error"),
          ...(typeof e.type === "string" ? { type: e.type } : {}),
        },
      };
    }
    default:
      if (t.startsWith("session.status_")) {
        const stop = isObj(raw.stop_reason) ? raw.stop_reason : undefined;
        const stopType = typeof stop?.type === "string" ? stop.type : undefined;
        const status = t.slice("session.status_".length);
        if (status === "idle" && stopType === "requires_action") {
          const ids = Array.isArray(stop?.event_ids) ? stop.event_ids.map(String) : [];
          return { ...b("status"), status: "requires_action", stop_reason: stopType, awaiting: ids };
        }
        return { ...b("status"), status, ...(stopType ? { stop_reason: stopType } : {}) };
      }
      return b("other");
  }
};

function pickUsage(u: Raw): SessionEvent["usage"] {
  return {
    ...(typeof u.input_tokens === "number" ? { input_tokens: u.input_tokens } : {}),
    ...(typeof u.output_tokens === "number" ? { output_tokens: u.output_tokens } : {}),
  };
}

/** provider_a's vocabulary: `message` (by role), `session_status`, `reasoning`, `tool_call` and `*_output`. */
export const readProviderAEvent: EventReader = (raw, sid, provider) => {
  const t = String(raw.type ?? "");
  const b = (type: SessionEventType) => base(raw, sid, provider, type);
  const content = Array.isArray(raw.content) ? raw.content : [];
  const data = isObj(content[0]) && isObj(content[0].data) ? content[0].data : {};
  if (t === "message")
    return { ...b(raw.role === "user" ? "user_message" : "text"), text: textOf(raw.content) ?? "" };
  if (t === "session_status") return { ...b("status"), status: String(data.session_status ?? "") };
  if (t === "reasoning") {
    const text = textOf(raw.content);
    return { ...b("thinking"), ...(text ? { text } : {}) };
  }
  if (t === "error") return { ...b("error"), error: { message: textOf(raw.content) ?? "session error" } };
  if (t.endsWith("_output"))
    return {
      ...b("tool_result"),
      tool: {
        id: String(data.call_id ?? ""),
        output: typeof data.output === "string" ? data.output : JSON.stringify(data.output ?? ""),
      },
    };
  if (t === "tool_call" || t === "function_call" || t === "mcp_call") {
    let input: unknown = data.arguments;
    if (typeof input === "string") {
      try {
        input = JSON.parse(input);
      } catch {}
    }
    return { ...b("tool_call"), tool: { id: String(raw.id), name: String(data.name ?? ""), input } };
  }
  return b("other");
};

/** A turn is over: the agent is idle at the end of it, or the session has ended. */
export function endsTurn(e: SessionEvent): boolean {
  return e.type === "status" && (e.status === "idle" || e.status === "terminated");
}
