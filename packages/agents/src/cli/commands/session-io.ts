// Terminal plumbing the session commands share: stdin, Ctrl-C during a turn, tool confirmations.
import { createInterface, type Interface } from "node:readline/promises";
import { type OpenSession, type SessionEvent, sessionEvents } from "../../index.js";

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

/**
 * While stdout holds more than its buffer (a pipe whose reader is slower than the stream), the
 * next read of the event stream waits for it to drain: without this, a 10,000-event stream piped
 * into a slow reader queued its whole output in memory (bench/sessions.mjs).
 */
export function stdoutPace(): Promise<void> | undefined {
  if (!process.stdout.writableNeedDrain) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      process.stdout.off("drain", done);
      process.stdout.off("close", done);
      process.stdout.off("error", done);
      resolve();
    };
    process.stdout.on("drain", done);
    process.stdout.on("close", done);
    process.stdout.on("error", done);
  });
}

/** Said on stderr, so a dropped stream is never silent and --json output stays clean. */
export function reconnectNotice(attempt: number, cause: string): void {
  process.stderr.write(`the event stream dropped (${cause}); reconnecting (attempt ${attempt})\n`);
}

/**
 * Runs `body` with a signal that Ctrl-C aborts; the first Ctrl-C also calls `onInterrupt` (stop the
 * remote turn) and ends the command quietly, a second one exits at once.
 */
export async function withInterrupt<T>(
  body: (signal: AbortSignal) => Promise<T>,
  onInterrupt: () => Promise<boolean>,
): Promise<T | undefined> {
  const controller = new AbortController();
  let hits = 0;
  const onSigint = () => {
    hits++;
    if (hits > 1) process.exit(130);
    controller.abort();
    onInterrupt().catch(() => {});
  };
  process.on("SIGINT", onSigint);
  try {
    return await body(controller.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

/**
 * Prints a session's events (`print`) with the CLI's stream handling: reconnects said on stderr,
 * reads paced by stdout, Ctrl-C ends the command quietly. `agents session events` and
 * `agents deployment run --follow` both print this way.
 */
export function printSessionEvents(
  open: OpenSession,
  print: (event: SessionEvent) => void,
  options: { follow?: boolean; untilIdle?: boolean },
): Promise<void> {
  return withInterrupt(
    (signal) =>
      sessionEvents(open, {
        onEvent: print,
        onReconnect: reconnectNotice,
        pace: stdoutPace,
        signal,
        ...options,
      }),
    async () => false,
  );
}

/**
 * Answers tool calls held for confirmation: `allow` answers yes to all; on a terminal (`rl`) the
 * user is asked; otherwise they are denied and the reason is said on stderr.
 */
export function confirmer(o: { allow: boolean; interactive: boolean; rl?: Interface }) {
  return async (call: SessionEvent): Promise<"allow" | "deny"> => {
    if (o.allow) return "allow";
    const what = `${call.tool?.name ?? "a tool"} ${JSON.stringify(call.tool?.input ?? {})}`;
    if (o.interactive && o.rl) {
      const answer = (await o.rl.question(`allow ${what}? [y/N] `)).trim().toLowerCase();
      return answer === "y" || answer === "yes" ? "allow" : "deny";
    }
    process.stderr.write(`denied ${what} (pass --allow-tools to allow tool calls)\n`);
    return "deny";
  };
}

export { createInterface };
