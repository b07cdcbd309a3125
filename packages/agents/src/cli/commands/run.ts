import type { Command } from "commander";
import { loadProject, runDeployment } from "../../index.js";
import { engineOptions, noticeToStderr, redactingErrors } from "../engine-output.js";

export function register(program: Command): void {
  program
    .command("run <DEPLOYMENT>")
    .description(
      'start one run of an applied deployment now (DEPLOYMENT: its name, or an address like provider_c.deployments["nightly"])',
    )
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--json", "print the run as one JSON document")
    .action(async (target: string, options: { file: string; json?: boolean }) => {
      const project = await loadProject({ file: options.file });
      const run = await redactingErrors(project.secrets, () =>
        runDeployment({ ...engineOptions(project, "agents run"), onNotice: noticeToStderr }, target),
      );
      if (options.json) {
        process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
        return;
      }
      const lines = [`Started ${run.address}.`];
      lines.push(`  run:     ${run.run_id ?? "(none: this provider has no deployment runs)"}`);
      lines.push(`  session: ${run.session_id ?? "(not reported by the provider)"}`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
