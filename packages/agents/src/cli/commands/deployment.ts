import type { Command } from "commander";
import {
  getDeployment,
  listDeployments,
  loadProject,
  openSession,
  redact,
  runDeployment,
  setDeploymentPaused,
} from "../../index.js";
import { engineOptions, redactingErrors } from "../engine-output.js";
import { eventPrinter } from "../session-output.js";
import { printSessionEvents } from "./session-io.js";

const out = (text: string, secrets: string[]) => process.stdout.write(redact(text, secrets));

/** `agents deployment list|get|pause|unpause|run` (docs/cli.md §Deployments). */
export function register(program: Command): void {
  const deployment = program.command("deployment").description("applied deployments: list, read, pause, run");
  const file = (c: Command) => c.option("-f, --file <FILE>", "configuration file", "agents.yaml");

  file(deployment.command("list").description("the applied deployments (from the state)"))
    .option("--remote", "read each from its provider (status)")
    .option("--json", "one JSON object per deployment per line")
    .action(async (o: { file: string; remote?: boolean; json?: boolean }) => {
      const project = await loadProject({ file: o.file });
      const found = await redactingErrors(project.secrets, () =>
        listDeployments(engineOptions(project, "agents deployment list"), o.remote ? { remote: true } : {}),
      );
      const lines = found.map((d) =>
        o.json
          ? JSON.stringify(d)
          : `${d.address}  ${d.id}${o.remote ? `  ${d.status ?? "(emulated: nothing remote)"}` : ""}`,
      );
      out(
        lines.length ? `${lines.join("\n")}\n` : o.json ? "" : "No deployments applied.\n",
        project.secrets,
      );
    });

  for (const [verb, paused] of [
    ["get", undefined],
    ["pause", true],
    ["unpause", false],
  ] as const) {
    file(
      deployment
        .command(`${verb} <DEPLOYMENT>`)
        .description(verb === "get" ? "read one deployment from its provider" : `${verb} a deployment`),
    )
      .option("--json", "print the deployment as one JSON object")
      .action(async (target: string, o: { file: string; json?: boolean }) => {
        const project = await loadProject({ file: o.file });
        const options = engineOptions(project, `agents deployment ${verb}`);
        const d = await redactingErrors(project.secrets, () =>
          paused === undefined
            ? getDeployment(options, target)
            : setDeploymentPaused(options, target, paused),
        );
        out(
          o.json
            ? `${JSON.stringify(d)}\n`
            : `${d.address}  ${d.id}  ${d.status ?? "(emulated: nothing remote)"}\n`,
          project.secrets,
        );
      });
  }

  file(
    deployment
      .command("run <DEPLOYMENT>")
      .description("start one run now; --follow prints its session's events"),
  )
    .option("--follow", "stream the run's session until the agent is idle")
    .option("--json", "JSON: the run, then (with --follow) one event per line")
    .action(async (target: string, o: { file: string; follow?: boolean; json?: boolean }) => {
      const project = await loadProject({ file: o.file });
      await redactingErrors(project.secrets, async () => {
        const options = engineOptions(project, "agents deployment run");
        const run = await runDeployment(options, target);
        out(
          o.json
            ? `${JSON.stringify(run)}\n`
            : `Started ${run.address}: run ${run.run_id ?? "(none)"}, session ${run.session_id ?? "(not reported)"}\n`,
          project.secrets,
        );
        if (!o.follow || !run.session_id) return;
        const open = await openSession(options, run.session_id);
        const printer = eventPrinter({
          json: Boolean(o.json),
          secrets: project.secrets,
          write: (t) => process.stdout.write(t),
          echoUser: true,
        });
        await printSessionEvents(open, printer.print, { follow: true, untilIdle: true });
        printer.end();
      });
    });
}
