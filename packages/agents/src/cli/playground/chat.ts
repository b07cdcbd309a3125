// The playground's chat (docs/playground.md §Chat): sessions of applied agents started from the page,
// turns streamed back as JSON lines, `ask` tool calls held until the page allows or denies them,
// and the session's history as JSONL. Only sessions started from this playground are reachable,
// and every event is redacted with the project's secrets before it leaves the server.
import {
  Conversation,
  createSession,
  type EngineOptions,
  listSessions,
  loadProject,
  openSession,
  PROVIDERS_WITH_SESSIONS,
  type RetryNotice,
  readProjectState,
  redactor,
  type SessionEvent,
  sessionEvents,
} from "../../index.js";
import { retryLine } from "../engine-output.js";

/** Providers whose agents have sessions (docs/cli.md §Sessions). */
const WITH_SESSIONS = new Set(PROVIDERS_WITH_SESSIONS);

export interface AppliedAgent {
  name: string;
  address: string;
  provider: string;
}

interface Held {
  call: SessionEvent;
  answer(result: "allow" | "deny"): void;
}

interface ChatSession {
  id: string;
  agent: string;
  provider: string;
  options: EngineOptions;
  redact(text: string): string;
  conversation: Conversation;
  /** A turn in progress (one at a time per session). */
  turn?: AbortController;
  /** Where the session's retry notices go: the page's stream of the turn in progress, if any. */
  notices: { write?: (line: unknown) => void };
  held: Map<string, Held>;
}

/** A refusal the server turns into an HTTP status with a one-line message. */
export class ChatError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class PlaygroundChat {
  private readonly sessions = new Map<string, ChatSession>();

  constructor(
    private readonly file: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  private async options(): Promise<{ options: EngineOptions; redact: (text: string) => string }> {
    const project = await loadProject({ file: this.file, env: this.env });
    return {
      options: { project, env: this.env, command: "agents playground" },
      redact: redactor(project.secrets),
    };
  }

  /** The agents this project applied, on providers that have sessions, by name. */
  async agents(): Promise<AppliedAgent[]> {
    const { options } = await this.options();
    const state = await readProjectState(options);
    return Object.values(state.state.resources)
      .filter((r) => r.kind === "agents" && WITH_SESSIONS.has(r.provider))
      .map((r) => ({ name: r.name, address: r.address, provider: r.provider }))
      .sort((a, b) => a.address.localeCompare(b.address));
  }

  /**
   * What the page's inspector shows of one resource beyond its declaration: its entry in the state
   * (remote id, last-applied values with secrets masked by `mask`) and, for an applied agent, its
   * sessions as the provider lists them. A state or provider that cannot be read is said, not thrown.
   */
  async resource(address: string, mask: (value: unknown, redact: (text: string) => string) => unknown) {
    const { options, redact } = await this.options();
    let entry: Record<string, unknown> | null = null;
    try {
      const r = (await readProjectState(options)).state.resources[address];
      if (r)
        entry = {
          id: r.id,
          external: r.external,
          version: r.version ?? null,
          updatedAt: r.updatedAt,
          spec: mask(r.spec, redact),
          extra: mask(r.extra ?? {}, redact),
        };
    } catch (error) {
      return { address, state: null, sessions: [], error: redact((error as Error).message) };
    }
    let sessions: { id: string; status: string | null; title: string | null; created_at: string | null }[] =
      [];
    let error: string | null = null;
    if (entry && /\.agents\[/.test(address))
      try {
        sessions = (await listSessions({ ...options, command: "agents playground" }, { agent: address })).map(
          (s) => ({
            id: s.id,
            status: s.status ?? null,
            title: s.title ?? null,
            created_at: s.created_at ?? null,
          }),
        );
      } catch (e) {
        error = redact((e as Error).message);
      }
    return { address, state: entry, sessions, error };
  }

  /** Starts a session of the applied agent at `address`. */
  async start(address: string): Promise<{ id: string; agent: string; provider: string }> {
    const loaded = await this.options();
    const { redact } = loaded;
    // The session's clients are made once, the page's stream once per turn: each retry's wait (a
    // refused stream open or call) is said on the stream of the turn in progress, as a notice.
    const notices: ChatSession["notices"] = {};
    const options: EngineOptions = {
      ...loaded.options,
      onRetry: (n: RetryNotice) => notices.write?.({ type: "notice", text: redact(retryLine(n)) }),
    };
    const created = await createSession(options, address, { title: "agents playground" });
    const open = await openSession(options, created.id);
    this.sessions.set(created.id, {
      id: created.id,
      agent: created.agent,
      provider: created.provider,
      options,
      redact,
      conversation: new Conversation(open),
      held: new Map(),
      notices,
    });
    return { id: created.id, agent: created.agent, provider: created.provider };
  }

  private session(id: string): ChatSession {
    const s = this.sessions.get(id);
    if (!s) throw new ChatError(404, `no session ${id} was started from this playground`);
    return s;
  }

  /**
   * Sends `text` and hands every event of the turn to `write`, redacted, until the agent is idle
   * again. A tool call the agent's `ask` permission holds waits for `confirm` (from the page);
   * `signal` (the page went away) denies what is still held and stops following.
   */
  async turn(id: string, text: string, write: (line: unknown) => void, signal: AbortSignal): Promise<void> {
    const s = this.session(id);
    if (s.turn) throw new ChatError(409, "a reply is still streaming in this session");
    const controller = new AbortController();
    s.turn = controller;
    s.notices.write = write;
    const stop = () => controller.abort();
    signal.addEventListener("abort", stop);
    controller.signal.addEventListener("abort", () => {
      for (const held of s.held.values()) held.answer("deny");
    });
    try {
      const finished = await s.conversation.turn(text, {
        signal: controller.signal,
        onEvent: (event) => write({ type: "event", event: JSON.parse(s.redact(JSON.stringify(event))) }),
        onReconnect: (attempt, cause) =>
          write({
            type: "notice",
            text: s.redact(`the event stream dropped (${cause}); reconnecting (attempt ${attempt})`),
          }),
        confirm: (call) =>
          new Promise((answer) => {
            const toolId = call.tool?.id ?? call.id;
            s.held.set(toolId, {
              call,
              answer: (result) => {
                s.held.delete(toolId);
                answer(result);
              },
            });
            // The page may answer before the status event that asks for it has been written.
            if (controller.signal.aborted) s.held.get(toolId)?.answer("deny");
          }),
      });
      write({ type: "end", finished });
    } finally {
      signal.removeEventListener("abort", stop);
      s.turn = undefined;
      s.notices.write = undefined;
    }
  }

  /** The page's answer to a held tool call. */
  confirm(id: string, toolId: string, result: string): void {
    const s = this.session(id);
    if (result !== "allow" && result !== "deny") throw new ChatError(400, 'result must be "allow" or "deny"');
    const held = s.held.get(toolId);
    if (!held) throw new ChatError(409, `no tool call ${toolId} is waiting for an answer in session ${id}`);
    held.answer(result);
  }

  /** Stops the turn in progress (where the provider can be told, it is). */
  async interrupt(id: string): Promise<void> {
    const s = this.session(id);
    s.turn?.abort();
    await s.conversation.interrupt().catch(() => false);
  }

  /** The session's history as `agents session events ID --json` prints it: one event per line. */
  async history(id: string): Promise<string> {
    const s = this.session(id);
    const open = await openSession(s.options, id);
    const lines: string[] = [];
    await sessionEvents(open, { onEvent: (e) => lines.push(s.redact(JSON.stringify(e))) });
    return lines.length ? `${lines.join("\n")}\n` : "";
  }

  /** Stops every turn (the server is closing). */
  close(): void {
    for (const s of this.sessions.values()) s.turn?.abort();
  }
}
