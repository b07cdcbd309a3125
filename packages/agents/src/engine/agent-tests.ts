// `agents test`: runs conversation tests (config/agent-tests.ts) against applied agents, each in a
// fresh session, several at once (every request still goes through its provider's pacing lane),
// and judges what the agent did (docs/testing.md). `ephemeral` applies the tested agents under a
// throw-away project and state first and destroys them afterwards, whatever happened. Nothing here
// writes to the terminal; every text in a result is redacted.
import type { AgentTest, Expectation, TestFile } from "../config/agent-tests.js";
import { compilePattern } from "../config/agent-tests.js";
import { normalizeToolName } from "../config/rules/agents.js";
import { redactor } from "../model/redact.js";
import type { SessionEvent } from "../providers/sessions/events.js";
import type { EngineOptions } from "./api.js";
import { type EphemeralOutcome, withEphemeral } from "./ephemeral.js";
import { Conversation, createOpenSession, type OpenSession, removeSession } from "./sessions.js";

export interface ExpectationFailure {
  /** The expectation as written, e.g. `contains: "Hello"`. */
  expectation: string;
  /** What was seen instead (redacted). */
  seen: string;
}

export interface TestResult {
  file: string;
  name: string;
  agent: string;
  /** passed: every expectation held; failed: one did not (or the test timed out); error: it could not run. */
  status: "passed" | "failed" | "error";
  durationMs: number;
  /** The test's session; kept (not deleted) when the test did not pass, to look at with `agents session events`. */
  session_id?: string;
  failures: ExpectationFailure[];
  /** Why the test could not run (status error). */
  error?: string;
  /** The agent's final text: its replies to the last message. */
  final_text?: string;
  /** The graders' answers, one per rubric. */
  grades?: { rubric: string; verdict: "pass" | "fail"; reasons: string }[];
}

export interface TestRunResult {
  results: TestResult[];
  passed: number;
  failed: number;
  errors: number;
  durationMs: number;
  /** Grading sessions run, and the tokens they reported where the provider reports usage. */
  grading: { sessions: number; input_tokens: number; output_tokens: number };
  /** With `ephemeral`: the throw-away project, what it created, and whether all of it is gone again. */
  ephemeral?: EphemeralOutcome;
}

export interface TestRunOptions extends EngineOptions {
  files: readonly TestFile[];
  /** Run only the tests whose name contains this text. */
  filter?: string;
  /** Tests in flight at once (default 4). */
  parallelism?: number;
  ephemeral?: boolean;
  /** Each result as soon as its test ends. */
  onResult?(result: TestResult): void;
  /** Lines about the ephemeral project's apply and destroy. */
  onProgress?(line: string): void;
}

/** The tests `filter` selects, with the file's grader. */
export function selectTests(
  files: readonly TestFile[],
  filter?: string,
): { test: AgentTest; grader?: string }[] {
  return files.flatMap((f) =>
    f.tests
      .filter((t) => filter === undefined || t.name.includes(filter))
      .map((test) => (f.grader ? { test, grader: f.grader.agent } : { test })),
  );
}

export async function runAgentTests(given: TestRunOptions): Promise<TestRunResult> {
  const started = Date.now();
  // One pacing lane per provider and key for the whole run: every session and grading of every
  // test in flight shares it (each runtime would otherwise pace its own requests alone).
  const options: TestRunOptions = {
    ...given,
    http: { ...given.http, lanes: given.http?.lanes ?? new Map() },
  };
  const selected = selectTests(options.files, options.filter);
  const grading = { sessions: 0, input_tokens: 0, output_tokens: 0 };
  const hide = redactor(options.project.secrets);
  const run = async (engine: EngineOptions) => {
    const results: TestResult[] = [];
    await pool(selected, options.parallelism ?? 4, async ({ test, grader }) => {
      const result = await runOne(engine, test, grader, grading, hide);
      results.push(result);
      options.onResult?.(result);
    });
    // Report order is file order, whatever order the tests finished in.
    return selected.map(({ test }) => results.find((r) => r.name === test.name && r.file === test.file)!);
  };
  let ephemeral: TestRunResult["ephemeral"];
  let results: TestResult[];
  if (options.ephemeral) {
    const agents = [
      ...new Set(selected.flatMap(({ test, grader }) => [test.agent, ...(grader ? [grader] : [])])),
    ];
    const outcome = await withEphemeral(options, agents, run);
    ephemeral = outcome.ephemeral;
    results = outcome.results;
  } else results = await run(options);
  const count = (status: TestResult["status"]) => results.filter((r) => r.status === status).length;
  return {
    results,
    passed: count("passed"),
    failed: count("failed"),
    errors: count("error"),
    durationMs: Date.now() - started,
    grading,
    ...(ephemeral ? { ephemeral } : {}),
  };
}

async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/** What one conversation showed, turn by turn. */
interface Transcript {
  turns: { message: string; events: SessionEvent[] }[];
  asked: string[];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function runOne(
  options: EngineOptions,
  test: AgentTest,
  grader: string | undefined,
  grading: TestRunResult["grading"],
  hide: (text: string) => string,
): Promise<TestResult> {
  const started = Date.now();
  const base = { file: test.file, name: test.name, agent: test.agent };
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), test.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timer.signal]) : timer.signal;
  let sessionId: string | undefined;
  try {
    const open = await createOpenSession({ ...options, signal, command: "agents test" }, test.agent, {
      title: `agents test: ${test.name}`.slice(0, 200),
      ...(test.identity !== undefined ? { identity: test.identity } : {}),
    });
    const created = open.info;
    sessionId = created.id;
    const conversation = new Conversation(open);
    const transcript: Transcript = { turns: [], asked: [] };
    for (const message of test.messages) {
      const events: SessionEvent[] = [];
      transcript.turns.push({ message, events });
      const finished = await conversation.turn(message, {
        onEvent: (e) => events.push(e),
        signal,
        confirm: async (call) => {
          transcript.asked.push(call.tool?.name ?? "");
          return test.answerAsks;
        },
      });
      if (!finished) {
        await conversation.interrupt().catch(() => false);
        const why = options.signal?.aborted ? "interrupted" : `timed out after ${test.timeoutMs / 1000}s`;
        return {
          ...base,
          status: options.signal?.aborted ? "error" : "failed",
          durationMs: Date.now() - started,
          session_id: created.id,
          failures: [
            {
              expectation: `timeout: ${test.timeoutMs / 1000}s`,
              seen: `${why}, waiting for the reply to message ${transcript.turns.length}`,
            },
          ],
          ...(options.signal?.aborted ? { error: "interrupted" } : {}),
        };
      }
    }
    const finalText = hide(textOf(transcript.turns.at(-1)?.events ?? []));
    const failures: ExpectationFailure[] = [];
    const grades: NonNullable<TestResult["grades"]> = [];
    for (const e of transcript.turns.flatMap((t) => t.events))
      if (e.type === "error")
        failures.push({
          expectation: "no session error",
          seen: hide(`the session reported: ${e.error?.message ?? "an error"}`),
        });
    for (const expectation of test.expect) {
      if (expectation.kind === "rubric") {
        const grade = await gradeRubric(
          options,
          grader!,
          expectation.value,
          test,
          transcript,
          signal,
          grading,
        );
        grades.push({ rubric: expectation.value, verdict: grade.verdict, reasons: hide(grade.reasons) });
        if (grade.verdict === "fail")
          failures.push({ expectation: describe(expectation), seen: hide(`FAIL: ${grade.reasons}`) });
        continue;
      }
      const seen = check(expectation, transcript, finalText);
      if (seen !== undefined) failures.push({ expectation: describe(expectation), seen: hide(seen) });
    }
    const passed = failures.length === 0;
    if (passed) await removeSession(open).catch(() => undefined);
    return {
      ...base,
      status: passed ? "passed" : "failed",
      durationMs: Date.now() - started,
      ...(passed ? {} : { session_id: created.id }),
      failures,
      final_text: finalText,
      ...(grades.length ? { grades } : {}),
    };
  } catch (error) {
    return {
      ...base,
      status: "error",
      durationMs: Date.now() - started,
      ...(sessionId ? { session_id: sessionId } : {}),
      failures: [],
      error: hide(
        options.signal?.aborted
          ? "interrupted"
          : timer.signal.aborted
            ? `timed out after ${test.timeoutMs / 1000}s`
            : messageOf(error),
      ),
    };
  } finally {
    clearTimeout(timeout);
  }
}

/** The text of a turn's replies, in order. */
function textOf(events: readonly SessionEvent[]): string {
  return events
    .filter((e) => e.type === "text")
    .map((e) => e.text ?? "")
    .join("\n");
}

export function describe(e: Expectation): string {
  return `${e.kind}: ${typeof e.value === "number" ? e.value : JSON.stringify(e.value)}`;
}

const sameTool = (a: string | undefined, b: string) =>
  a !== undefined && normalizeToolName(a) === normalizeToolName(b);
const quoted = (text: string, max = 200) =>
  JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

/** undefined when the expectation holds; otherwise what was seen instead. */
function check(e: Expectation, transcript: Transcript, finalText: string): string | undefined {
  const events = transcript.turns.flatMap((t) => t.events);
  const calls = events.filter((ev) => ev.type === "tool_call");
  const called = [...new Set(calls.map((c) => c.tool?.name ?? ""))];
  const toolsSeen = called.length ? `tool calls: ${called.join(", ")}` : "no tool call";
  switch (e.kind) {
    case "contains":
      return finalText.includes(e.value) ? undefined : `final text ${quoted(finalText)}`;
    case "not_contains":
      return finalText.includes(e.value) ? `final text ${quoted(finalText)}` : undefined;
    case "matches":
      return compilePattern(e.value).test(finalText) ? undefined : `final text ${quoted(finalText)}`;
    case "tool_called":
      return calls.some((c) => sameTool(c.tool?.name, e.value)) ? undefined : toolsSeen;
    case "no_tool_called":
      return calls.some((c) => sameTool(c.tool?.name, e.value)) ? toolsSeen : undefined;
    case "no_tool_result": {
      const ids = new Set(calls.filter((c) => sameTool(c.tool?.name, e.value)).map((c) => c.tool?.id));
      const results = events.filter((ev) => ev.type === "tool_result" && ids.has(ev.tool?.id ?? ""));
      return results.length === 0
        ? undefined
        : `${e.value} ran: result ${quoted(results[0]!.tool?.output ?? "")}`;
    }
    case "asked":
      return transcript.asked.some((name) => sameTool(name, e.value))
        ? undefined
        : transcript.asked.length
          ? `confirmations asked: ${transcript.asked.join(", ")}`
          : "no confirmation was asked";
    case "max_turns": {
      const steps = events.filter((ev) => ev.type === "text" || ev.type === "tool_call").length;
      return steps <= e.value ? undefined : `${steps} steps (replies and tool calls)`;
    }
    case "rubric":
      return undefined;
  }
}

/**
 * The prompt a grader agent gets: the rubric, then the conversation, one line per line of text,
 * each marked with who said it. docs/sims.md documents how the simulators answer it.
 */
export function graderPrompt(rubric: string, transcript: Transcript): string {
  const mark = (who: string, text: string) =>
    text
      .split(/\r?\n/)
      .map((line) => `[${who}] ${line}`)
      .join("\n");
  const lines = transcript.turns.flatMap((t) => [
    mark("user", t.message),
    mark("agent", textOf(t.events) || "(no reply)"),
  ]);
  return [
    "You are grading one conversation with an AI agent against a rubric.",
    "Answer with PASS or FAIL alone on the first line, and one line of reasons on the second.",
    "",
    "RUBRIC:",
    rubric,
    "",
    "CONVERSATION:",
    ...lines,
  ].join("\n");
}

/** PASS or FAIL on the first non-empty line (markdown emphasis allowed), the reasons after it. */
export function readVerdict(answer: string): { verdict: "pass" | "fail"; reasons: string } | undefined {
  const lines = answer
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const first = /^[*_#\s]*(PASS|FAIL)\b[*_:.\s-]*(.*)$/i.exec(lines[0] ?? "");
  if (!first) return undefined;
  const reasons = (first[2] || lines[1] || "").replace(/^[*_\s]+|[*_\s]+$/g, "");
  return { verdict: first[1]!.toLowerCase() as "pass" | "fail", reasons: reasons.slice(0, 300) };
}

async function gradeRubric(
  options: EngineOptions,
  grader: string,
  rubric: string,
  test: AgentTest,
  transcript: Transcript,
  signal: AbortSignal,
  grading: TestRunResult["grading"],
): Promise<{ verdict: "pass" | "fail"; reasons: string }> {
  const engine = { ...options, signal, command: "agents test" };
  const open: OpenSession = await createOpenSession(engine, grader, {
    title: `agents test grading: ${test.name}`.slice(0, 200),
  });
  grading.sessions++;
  const conversation = new Conversation(open);
  const events: SessionEvent[] = [];
  const finished = await conversation.turn(graderPrompt(rubric, transcript), {
    onEvent: (e) => events.push(e),
    signal,
    confirm: async () => "deny",
  });
  for (const e of events) {
    grading.input_tokens += e.usage?.input_tokens ?? 0;
    grading.output_tokens += e.usage?.output_tokens ?? 0;
  }
  await removeSession(open).catch(() => undefined);
  if (!finished) return { verdict: "fail", reasons: "the grader did not answer in time" };
  const answer = textOf(events);
  return (
    readVerdict(answer) ?? {
      verdict: "fail",
      reasons: `the grader answered neither PASS nor FAIL: ${quoted(answer.split("\n")[0] ?? "", 120)}`,
    }
  );
}
