import type { Command } from "commander";
import {
  hasChanges,
  loadProject,
  plan,
  planRefreshOnly,
  redactor,
  refreshErrors,
  renderPlan,
  renderRefreshOnly,
  writePlanFile,
} from "../../index.js";
import { engineOptions, noticeToStderr, redactingErrors } from "../engine-output.js";
import { CliError } from "../errors.js";
import { collect, REPLACE_HELP, type ScopeOptions, scopeOf } from "./scope-options.js";

interface PlanOptions extends ScopeOptions {
  file: string;
  json?: boolean;
  out?: string;
  detailedExitcode?: boolean;
  destroy?: boolean;
  refreshOnly?: boolean;
}

export function register(program: Command): void {
  program
    .command("plan")
    .description("refresh the remote resources and show what apply would change (never changes anything)")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--provider <NAME>", "plan only this provider's resources (repeatable)", collect, [])
    .option("--target <ADDRESS>", "plan only this resource and what it depends on (repeatable)", collect, [])
    .option("--replace <ADDRESS>", REPLACE_HELP, collect, [])
    .option("--destroy", "plan a destroy instead")
    .option("--json", "print the plan as one JSON document (see docs/plan-json.md)")
    .option("--out <FILE>", "save the plan for `agents apply FILE`")
    .option("--detailed-exitcode", "exit 0 when there are no changes, 2 when there are, 1 on error")
    .option(
      "--refresh-only",
      "show only what changed remotely outside agents (accept it with apply --refresh-only)",
    )
    .action(async (options: PlanOptions) => {
      const project = await loadProject({ file: options.file });
      const redact = redactor(project.secrets);
      if (options.refreshOnly) {
        if (options.destroy || options.out || options.replace?.length)
          throw new CliError("--refresh-only cannot be combined with --destroy, --out or --replace");
        const drift = await redactingErrors(project.secrets, () =>
          planRefreshOnly({
            ...engineOptions(project, "agents plan"),
            ...scopeOf(options, project),
            onNotice: noticeToStderr,
          }),
        );
        process.stdout.write(
          redact(options.json ? `${JSON.stringify(drift, null, 2)}\n` : renderRefreshOnly(drift)),
        );
        if (drift.errors.length > 0) process.exitCode = 1;
        else if (options.detailedExitcode && drift.drift.length > 0) process.exitCode = 2;
        return;
      }
      const result = await redactingErrors(project.secrets, () =>
        plan({
          // Retries on stderr: stdout may be the JSON plan.
          ...engineOptions(project, "agents plan"),
          ...scopeOf(options, project),
          operation: options.destroy ? "destroy" : "apply",
          onNotice: noticeToStderr,
        }),
      );
      const incomplete = refreshErrors(result).length > 0;
      // An incomplete plan is never saved: applying it would act on what was not read.
      if (options.out && !incomplete) await writePlanFile(options.out, result);
      if (options.json) {
        process.stdout.write(redact(`${JSON.stringify(result, null, 2)}\n`));
      } else {
        for (const w of project.warnings) process.stdout.write(`${redact(w)}\n\n`);
        process.stdout.write(redact(renderPlan(result)));
        if (options.out && !incomplete)
          process.stdout.write(
            `\nSaved the plan to ${options.out}; apply it with: agents apply ${options.out}\n`,
          );
      }
      if (incomplete) process.exitCode = 1;
      else if (options.detailedExitcode && hasChanges(result)) process.exitCode = 2;
    });
}
