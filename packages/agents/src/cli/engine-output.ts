// Terminal output for plan/apply/destroy: progress lines, summaries, confirmation.
import { createInterface } from "node:readline/promises";
import {
  type ApplyEvent,
  type ExecuteResult,
  type LoadedProject,
  type Plan,
  type RetryNotice,
  redactor,
  renderPlan,
} from "../index.js";
import { CliError } from "./errors.js";

const PAST: Record<string, string> = {
  create: "created",
  update: "updated",
  replace: "replaced",
  delete: "deleted",
  adopt: "adopted",
  read: "verified",
  noop: "unchanged",
  import: "imported",
  forget: "forgotten (the remote object stays)",
};
const PRESENT: Record<string, string> = {
  create: "creating",
  update: "updating",
  replace: "replacing",
  delete: "deleting",
  adopt: "adopting",
  read: "verifying",
  noop: "checking",
  import: "importing",
  forget: "forgetting",
};

type Printer = (line: string) => void;

/** Prints an engine notice (onNotice) on stderr: stdout may be a JSON plan or a diff. */
export function noticeToStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * Prints each retry's wait (`onRetry`) on stderr, redacted: stdout may be a JSON document or a
 * reply being streamed. Every command that calls the providers prints this way (`engineOptions`),
 * except apply and destroy, whose progress lines carry the waits (`changeReporter`).
 */
export function retriesToStderr(secrets: string[]): (notice: RetryNotice) => void {
  const redact = redactor(secrets);
  return (notice) => process.stderr.write(`${redact(retryLine(notice))}\n`);
}

/**
 * The engine options of a CLI command that reads or writes at the providers: the label its state
 * lock carries, and every wait of the provider's retry loop said on stderr (`retriesToStderr`),
 * redacted with the project's secrets and the command's own (`secrets`). Every such command builds
 * its options here, so none waits out a refusal in silence, whether it streams or not.
 */
export function engineOptions(
  project: LoadedProject,
  command: string,
  secrets: string[] = project.secrets,
): { project: LoadedProject; command: string; onRetry: (notice: RetryNotice) => void } {
  return { project, command, onRetry: retriesToStderr(secrets) };
}

/** Runs a command body and re-raises any error with every resolved secret value redacted. */
export async function redactingErrors<T>(secrets: string[], body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const redact = redactor(secrets);
    const message = error instanceof Error ? error.message : String(error);
    const exitCode = error instanceof CliError ? error.exitCode : 1;
    const clean = new CliError(redact(message), exitCode);
    if (error instanceof Error && error.stack) clean.stack = redact(error.stack);
    throw clean;
  }
}

/**
 * What apply and destroy print while they run, as engine callbacks: the warnings and the plan once
 * it is made, a line per step, each retry's wait, and the closing summary. `agents apply`/`destroy`
 * print through it, and so does the tests' in-process driver, so both show the same text.
 */
export function changeReporter(print: Printer, warnings: readonly string[]) {
  let printer: ((event: ApplyEvent) => void) | undefined;
  const started = performance.now();
  return {
    onPlan(plan: Plan): void {
      for (const w of warnings) print(`${w}\n`);
      print(`${renderPlan(plan).trimEnd()}\n`);
      printer = progressPrinter(print, plan);
    },
    onEvent(event: ApplyEvent): void {
      printer?.(event);
    },
    onRetry(notice: RetryNotice): void {
      print(retryLine(notice));
    },
    summary(plan: Plan, result: ExecuteResult): string[] {
      return resultSummary(plan, result, (performance.now() - started) / 1000);
    },
  };
}
/**
 * `provider_c: 503 on GET /agents/agent_1, retrying in 4.0s (attempt 3/5)`, or, when the provider
 * refused and every request to it waits: `provider_c: rate limited, resuming in 12 s`.
 */
export function retryLine(n: RetryNotice): string {
  if (n.pause) return `${n.provider}: ${n.cause}, resuming in ${Math.max(1, Math.ceil(n.waitMs / 1000))} s`;
  return `${n.provider}: ${n.cause} on ${n.method} ${n.path}, retrying in ${(n.waitMs / 1000).toFixed(1)}s (attempt ${n.attempt}/${n.maxAttempts})`;
}

export function progressPrinter(print: Printer, plan: Plan): (event: ApplyEvent) => void {
  const release = new Set(plan.actions.filter(releasedOnly).map((a) => a.address));
  return (event) => {
    const seconds = "ms" in event ? ` in ${(event.ms / 1000).toFixed(1)}s` : "";
    switch (event.type) {
      case "start":
        print(
          `${event.address}: ${release.has(event.address) ? "releasing from state" : PRESENT[event.action]}...`,
        );
        break;
      case "done": {
        const verb = release.has(event.address) ? "released from state" : PAST[event.action];
        const id = event.remoteId && event.action !== "delete" ? ` [${event.remoteId}]` : "";
        print(`${event.address}: ${verb}${id}${seconds}`);
        break;
      }
      case "failed":
        print(`${event.address}: ${event.action} FAILED${seconds}: ${event.message}`);
        break;
      case "skipped":
        print(`${event.address}: skipped (${event.because})`);
        break;
      case "warning":
        print(`${event.address}: warning: ${event.message}`);
        break;
    }
  };
}

/** A delete that only releases the resource from state: an external one, or one the provider cannot delete. */
function releasedOnly(a: Plan["actions"][number]): boolean {
  return a.action === "delete" && (!!a.external || !!a.remains);
}

export function resultSummary(plan: Plan, result: ExecuteResult, seconds: number): string[] {
  const done = new Set(result.done);
  // Externals (and what the provider cannot delete) are only released from state: counted apart.
  const count = (action: string, released = false) =>
    plan.actions.filter(
      (a) =>
        a.action === action && done.has(a.address) && (a.action !== "delete" || releasedOnly(a) === released),
    ).length;
  const released = count("delete", true) ? `, ${count("delete", true)} released from state` : "";
  // Moves are made before any step: all of them, once the run got that far.
  const moved = plan.actions.filter((a) => a.previousAddress !== undefined).length;
  const word = plan.operation === "destroy" ? "Destroy" : "Apply";
  const counts =
    plan.operation === "destroy"
      ? `${count("delete")} destroyed${released}`
      : `${count("create")} created, ${count("update")} updated, ${count("replace")} replaced, ${count("delete")} deleted${released}` +
        (count("adopt") ? `, ${count("adopt")} adopted` : "") +
        (count("read") ? `, ${count("read")} external verified` : "") +
        (count("import") ? `, ${count("import")} imported` : "") +
        (moved ? `, ${moved} moved` : "") +
        (count("forget") ? `, ${count("forget")} forgotten` : "");
  if (result.ok) return [`${word} complete in ${seconds.toFixed(1)}s: ${counts}.`];
  const lines = [
    `${word} incomplete in ${seconds.toFixed(1)}s: ${counts}; ${result.failed.length} failed, ${result.skipped.length} skipped.`,
  ];
  for (const f of result.failed) lines.push(`  failed:  ${f.address}: ${f.message}`);
  for (const s of result.skipped) lines.push(`  skipped: ${s.address} (${s.because})`);
  lines.push("State records every finished step; run the same command again to continue.");
  return lines;
}

export function isInteractive(): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY);
}

/**
 * Text for a stream, written together once per turn of the event loop: a 500-resource apply prints
 * a thousand progress lines, and one write per line was a system call per line. `flush` writes
 * what waits at once (before a question, at the end); `close` also stops flushing at exit, which
 * catches what an early exit would otherwise lose.
 */
export function lineBuffer(write: (text: string) => void): {
  push(text: string): void;
  flush(): void;
  close(): void;
} {
  let waiting: string[] = [];
  let scheduled = false;
  const flush = () => {
    if (waiting.length === 0) return;
    const text = waiting.join("");
    waiting = [];
    write(text);
  };
  process.on("exit", flush);
  return {
    push(text) {
      waiting.push(text);
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        flush();
      });
    },
    flush,
    close() {
      flush();
      process.off("exit", flush);
    },
  };
}

/** Asks on the terminal; only "yes" confirms. */
export async function askYes(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(`${question} Only 'yes' is accepted: `)).trim() === "yes";
  } finally {
    rl.close();
  }
}
