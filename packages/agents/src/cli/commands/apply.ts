import type { Command } from "commander";
import {
  apply,
  applyRefreshOnly,
  destroy,
  type LockInfo,
  loadProject,
  readPlanFile,
  redactor,
  renderRefreshOnly,
} from "../../index.js";
import {
  askYes,
  changeReporter,
  engineOptions,
  isInteractive,
  lineBuffer,
  noticeToStderr,
  redactingErrors,
} from "../engine-output.js";
import { CliError } from "../errors.js";
import { collect, REPLACE_HELP, type ScopeOptions, scopeOf } from "./scope-options.js";

export interface RunOptions extends ScopeOptions {
  file: string;
  autoApprove?: boolean;
  parallelism: string;
  cascade?: boolean;
  refreshOnly?: boolean;
}

export function register(program: Command): void {
  program
    .command("apply [PLAN_FILE]")
    .description(
      "create, update and delete remote resources to match agents.yaml (or apply a saved plan exactly)",
    )
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--provider <NAME>", "apply only this provider's resources (repeatable)", collect, [])
    .option("--target <ADDRESS>", "apply only this resource and what it depends on (repeatable)", collect, [])
    .option("--replace <ADDRESS>", REPLACE_HELP, collect, [])
    .option("-y, --auto-approve", "do not ask for confirmation (required without a terminal)")
    .option("--parallelism <N>", "resources changed at once", "10")
    .option(
      "--refresh-only",
      "record what changed remotely outside agents in the state; nothing remote is written",
    )
    .action(async (planFile: string | undefined, options: RunOptions) => {
      if (options.refreshOnly) {
        if (planFile) throw new CliError("--refresh-only does not apply a saved plan; drop PLAN_FILE");
        if (options.replace?.length)
          throw new CliError("--refresh-only changes nothing remote; drop --replace");
        await runRefreshOnly(options);
        return;
      }
      await runChange("apply", options, planFile);
    });
}

export async function runChange(
  operation: "apply" | "destroy",
  options: RunOptions,
  planFile?: string,
): Promise<void> {
  const parallelism = Number(options.parallelism);
  if (!Number.isInteger(parallelism) || parallelism < 1) {
    throw new CliError(`--parallelism ${options.parallelism}: expected a whole number of at least 1`);
  }
  const project = await loadProject({ file: options.file });
  const redact = redactor(project.secrets);
  const out = lineBuffer((text) => process.stdout.write(text));
  const print = (line: string) => out.push(`${redact(line)}\n`);
  // Whatever way the run ends (done, cancelled, failed), what was printed is written out.
  try {
    const savedPlan = planFile ? await readPlanFile(planFile) : undefined;
    if (savedPlan && (options.provider.length || options.target.length || options.replace?.length)) {
      throw new CliError(
        "a saved plan carries its own scope and replacements; drop --provider/--target/--replace",
      );
    }
    // First Ctrl-C: start nothing new, let steps in flight finish and be recorded, release the lock.
    const interrupt = new AbortController();
    let held: LockInfo | undefined;
    const onSigint = () => {
      if (interrupt.signal.aborted) {
        // Second Ctrl-C: quit at once, and say what is left behind and how to release it.
        out.flush();
        process.stderr.write(`\n${quitAtOnce(held)}\n`);
        process.exit(130);
      }
      print("\nInterrupted: finishing the steps in flight and saving state (Ctrl-C again to quit at once).");
      interrupt.abort();
    };
    process.on("SIGINT", onSigint);
    const report = changeReporter(print, project.warnings);
    // `agents plan --destroy --out f` then `agents apply f` applies that destroy, as reviewed.
    const run = (savedPlan?.operation ?? operation) === "apply" ? apply : destroy;
    const outcome = await redactingErrors(project.secrets, () =>
      run({
        project,
        signal: interrupt.signal,
        ...(savedPlan ? { savedPlan } : scopeOf(options, project)),
        parallelism,
        cascade: options.cascade === true,
        onNotice: noticeToStderr,
        onLocked: (lock) => {
          held = lock;
        },
        onPlan: report.onPlan,
        confirm: async () => {
          // A saved plan was reviewed when it was made; -y skips the question.
          if (savedPlan || options.autoApprove) return true;
          if (!isInteractive()) {
            throw new CliError(
              `refusing to ${operation} without confirmation: no terminal to ask on. Review the plan above and pass -y (--auto-approve)`,
            );
          }
          out.flush();
          return askYes(`\nDo you want to ${operation} these changes?`);
        },
        onEvent: report.onEvent,
        onRetry: report.onRetry,
      }),
    ).finally(() => process.off("SIGINT", onSigint));
    if (!outcome.confirmed) {
      print(`\n${operation === "apply" ? "Apply" : "Destroy"} cancelled; nothing was changed.`);
      process.exitCode = 1;
      return;
    }
    if (!outcome.result) return;
    print("");
    for (const line of report.summary(outcome.plan, outcome.result)) print(line);
    if (!outcome.result.ok) process.exitCode = 1;
  } finally {
    out.close();
  }
}

async function runRefreshOnly(options: RunOptions): Promise<void> {
  const project = await loadProject({ file: options.file });
  const redact = redactor(project.secrets);
  const print = (text: string) => process.stdout.write(redact(text));
  const outcome = await redactingErrors(project.secrets, () =>
    applyRefreshOnly({
      ...engineOptions(project, "agents apply"),
      ...scopeOf(options, project),
      onNotice: noticeToStderr,
      onPlan: (drift) => print(renderRefreshOnly(drift)),
      confirm: async () => {
        if (options.autoApprove) return true;
        if (!isInteractive()) {
          throw new CliError(
            "refusing to record the drift without confirmation: no terminal to ask on. Review it above and pass -y (--auto-approve)",
          );
        }
        return askYes("\nDo you want to record these changes in the state?");
      },
    }),
  );
  if (!outcome.confirmed) {
    print("\nCancelled; the state was not changed.\n");
    process.exitCode = 1;
    return;
  }
  if (outcome.accepted > 0)
    print(
      `\nRecorded ${outcome.accepted} ${outcome.accepted === 1 ? "resource" : "resources"} in the state; nothing remote was changed.\n`,
    );
}

/** What a second Ctrl-C leaves behind: the steps in flight unrecorded, and the state lock held. */
function quitAtOnce(lock: LockInfo | undefined): string {
  if (!lock) return "Quit at once; the state was not locked yet.";
  return (
    `Quit at once: the steps in flight are not recorded, and the state lock (id ${lock.id}) is left held. ` +
    "A PostgreSQL state frees it when this process ends; a file state keeps it: check the state " +
    `(agents state list, agents plan), then release it with: agents force-unlock ${lock.id}`
  );
}
