/**
 * The scripted agent every session simulator plays (docs/sims.md §Session turns). A turn is a list
 * of provider-neutral steps that each simulator turns into its own wire events; the script depends
 * only on the user's message and the agent's tools, so the same message always yields the same
 * events in the same order.
 */
export type TurnStep = (
  | { kind: "running" }
  | { kind: "thinking"; text: string }
  /** A reply begins: providers with deltas open a preview (voices without deltas ignore it). */
  | { kind: "text_start" }
  /** One chunk of the reply, `chunkMs` after the previous one (ignored without deltas). */
  | { kind: "text_delta"; text: string }
  /** The whole reply, as it stays in the event history. */
  | { kind: "text"; text: string }
  | { kind: "tool_use"; name: string; input: Record<string, unknown>; ask: boolean }
  | { kind: "tool_result"; output: string; isError: boolean }
  | { kind: "usage"; inputTokens: number; outputTokens: number }
  | { kind: "error"; message: string }
  | { kind: "idle"; stopReason: "end_turn" | "interrupted" }
) & {
  /**
   * Played only when the turn's tool call was allowed (or needed no confirmation), or only when
   * the user denied it; absent: always.
   */
  when?: "allowed" | "denied";
};

/** How a simulator speaks a turn: each method appends wire events (history and live streams). */
export interface TurnVoice {
  step(step: TurnStep, turn: TurnContext): void;
  /** The session waits for the user to allow or deny `toolUseId` (idle, requires_action). */
  awaitConfirmation(toolUseId: string): void;
  /** Ends every live stream of the session abruptly; `forGood` also refuses new ones. */
  dropStreams(forGood: boolean): void;
}

export interface TurnContext {
  /** The id of the last tool_use event, set by the voice when it emits one. */
  toolUseId?: string;
  /** The id the voice gave the reply being previewed (text_start), reused by its final event. */
  messageId?: string;
  /** Set once the user answered a confirmation. */
  confirmed?: "allow" | "deny";
  /** Delay between two steps of this turn, and between two chunks of a reply. */
  chunkMs: number;
}

/** Per-simulator settings, keyed by the simulator's clock (every simulator has exactly one). */
export interface AgentScriptSettings {
  /**
   * Milliseconds between two steps (and two reply chunks). 0 (the default) plays a turn within the
   * request that sent the message, so a test can list the events right after sending.
   */
  chunkMs: number;
}

const settings = new WeakMap<object, AgentScriptSettings>();

/** The scripted agent's settings of the simulator that owns `sim.clock`. */
export function agentScript(sim: { clock: object }): AgentScriptSettings {
  let s = settings.get(sim.clock);
  if (!s) {
    const fromEnv = Number(process.env.SIMS_CHUNK_MS ?? "0");
    s = { chunkMs: Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 0 };
    settings.set(sim.clock, s);
  }
  return s;
}

export interface ScriptInput {
  /** The user's message. */
  text: string;
  /** How the reply starts ("Received: " on provider_a/b, "(simulated) received: " on c/d). */
  replyPrefix: string;
  /** The agent's first enabled built-in tool and whether its permission is `ask`. */
  tool?: { name: string; ask: boolean };
  /** Whether the provider has a thinking event. */
  thinking: boolean;
  /** Whether the provider reports usage as an event. */
  usage: boolean;
}

/** Splits a reply into the pieces a streaming provider sends: words with their trailing space. */
export function chunksOf(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

type Action = () => "wait" | "skip" | undefined;

function reply_(text: string): TurnStep[] {
  return [
    { kind: "text_start" },
    ...chunksOf(text).map((c): TurnStep => ({ kind: "text_delta", text: c })),
    { kind: "text", text },
  ];
}

/**
 * The script: `think` → a thinking step; `tool` → the agent calls its tool (waiting for the
 * user where the permission says ask) and reports what it said, or that it did not run it when
 * the user denied it; a grading request (gradeVerdict) → the verdict; `[error]` → a session error
 * mid-turn; `[drop]` → live streams are cut after the first reply; `[cut]` → cut for good.
 */
export function scriptTurn(input: ScriptInput): { steps: TurnStep[]; drop?: "drop" | "cut" } {
  const m = input.text;
  const steps: TurnStep[] = [{ kind: "running" }];
  const verdict = gradeVerdict(m);
  // A grader's answer: the verdict alone (no echo, no thinking, no tool call).
  if (verdict !== undefined)
    return { steps: [...steps, ...reply_(verdict), { kind: "idle", stopReason: "end_turn" }] };
  if (input.thinking && /\bthink/i.test(m))
    steps.push({ kind: "thinking", text: "The user asked me to think; I will answer briefly." });
  const reply = `${input.replyPrefix}${m}`;
  steps.push(...reply_(reply));
  if (/\btool\b/i.test(m) && input.tool) {
    steps.push({
      kind: "tool_use",
      name: input.tool.name,
      input: { command: "echo hello" },
      ask: input.tool.ask,
    });
    // A denied call never runs: no result, and the agent says it did not run it.
    steps.push({ kind: "tool_result", output: "hello", isError: false, when: "allowed" });
    steps.push(...reply_("The tool said: hello.").map((s): TurnStep => ({ ...s, when: "allowed" })));
    const refused = `I did not run ${input.tool.name}: the user denied it.`;
    steps.push(...reply_(refused).map((s): TurnStep => ({ ...s, when: "denied" })));
  }
  if (m.includes("[error]")) steps.push({ kind: "error", message: "the model is overloaded (simulated)" });
  // A plain message gets the shortest turn (running, reply, idle); richer turns report usage.
  if (input.usage && steps.some((s) => s.kind === "thinking" || s.kind === "tool_use"))
    steps.push({ kind: "usage", inputTokens: chunksOf(m).length, outputTokens: chunksOf(reply).length });
  steps.push({ kind: "idle", stopReason: "end_turn" });
  const drop = m.includes("[cut]") ? "cut" : m.includes("[drop]") ? "drop" : undefined;
  return drop ? { steps, drop } : { steps };
}

/**
 * One session's turns, played in order: a message sent while a turn runs is queued behind it.
 * Timers are unref'd, so an open session never keeps a test process alive.
 */
export class TurnPlayer {
  private queue: Action[] = [];
  private timer: NodeJS.Timeout | undefined;
  private waiting: TurnContext | undefined;
  private current: TurnContext | undefined;

  constructor(private readonly voice: TurnVoice) {}

  get awaiting(): string | undefined {
    return this.waiting?.toolUseId;
  }

  get busy(): boolean {
    return this.queue.length > 0 || this.waiting !== undefined;
  }

  /** Queues one scripted turn and starts playing if idle (synchronously when chunkMs is 0). */
  play(script: { steps: TurnStep[]; drop?: "drop" | "cut" }, chunkMs: number): void {
    const turn: TurnContext = { chunkMs };
    let repliedOnce = false;
    for (const step of script.steps) {
      this.queue.push(() => {
        this.current = turn;
        if (step.when !== undefined && step.when !== (turn.confirmed === "deny" ? "denied" : "allowed"))
          return "skip";
        this.voice.step(step, turn);
        if (step.kind === "text" && !repliedOnce) {
          repliedOnce = true;
          if (script.drop) this.voice.dropStreams(script.drop === "cut");
        }
        if (step.kind === "tool_use" && step.ask && turn.toolUseId) {
          this.waiting = turn;
          this.voice.awaitConfirmation(turn.toolUseId);
          return "wait";
        }
        return undefined;
      });
    }
    if (!this.timer && !this.waiting && this.queue.length === script.steps.length) this.advance();
  }

  /** The user's answer to a pending confirmation; false when nothing waits for `toolUseId`. */
  confirm(toolUseId: string, result: "allow" | "deny"): boolean {
    const turn = this.waiting;
    if (!turn || turn.toolUseId !== toolUseId) return false;
    turn.confirmed = result;
    this.waiting = undefined;
    this.voice.step({ kind: "running" }, turn);
    this.advance();
    return true;
  }

  /** Stops the turn in progress: what remains of it is dropped and the session goes idle. */
  interrupt(): boolean {
    if (!this.busy) return false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
    const turn = this.waiting ?? this.current ?? { chunkMs: 0 };
    this.waiting = undefined;
    this.voice.step({ kind: "idle", stopReason: "interrupted" }, turn);
    return true;
  }

  /** Forgets everything pending (the session was deleted). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
    this.waiting = undefined;
  }

  private advance(): void {
    this.timer = undefined;
    while (this.queue.length > 0) {
      const action = this.queue.shift()!;
      const done = action();
      if (done === "wait") return;
      // A step of the other branch (allowed / denied) takes no time.
      if (done === "skip") continue;
      const delayMs = this.current?.chunkMs ?? 0;
      if (delayMs > 0 && this.queue.length > 0) {
        this.timer = setTimeout(() => this.advance(), delayMs);
        this.timer.unref();
        return;
      }
    }
  }
}

/**
 * The grader's verdict, when `message` asks for one (docs/sims.md §Session turns: a message with a
 * `RUBRIC:` line and, after it, a `CONVERSATION:` line): PASS when every double-quoted phrase of
 * the rubric appears, case-insensitively, in the conversation's agent lines (those not starting
 * with `[user]`), else FAIL naming the missing ones; the reasons are on the second line.
 */
export function gradeVerdict(message: string): string | undefined {
  const lines = message.split(/\r?\n/);
  const rubricAt = lines.findIndex((l) => l.trim() === "RUBRIC:");
  const conversationAt = lines.findIndex((l, i) => i > rubricAt && l.trim() === "CONVERSATION:");
  if (rubricAt < 0 || conversationAt < 0) return undefined;
  const rubric = lines.slice(rubricAt + 1, conversationAt).join("\n");
  const said = lines
    .slice(conversationAt + 1)
    .filter((l) => !l.startsWith("[user]"))
    .join("\n")
    .toLowerCase();
  const phrases = [...rubric.matchAll(/"([^"]+)"/g)].map((hit) => hit[1]!);
  if (phrases.length === 0) return "PASS\nthe rubric quotes nothing to look for (simulated grader)";
  const missing = phrases.filter((p) => !said.includes(p.toLowerCase()));
  const list = (ps: string[]) => ps.map((p) => `"${p}"`).join(", ");
  return missing.length === 0
    ? `PASS\nthe reply says ${list(phrases)} (simulated grader)`
    : `FAIL\nthe reply does not say ${list(missing)} (simulated grader)`;
}
