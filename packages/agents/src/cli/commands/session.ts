import type { Command } from "commander";
import { loadProject, startSession } from "../../index.js";
import { noticeToStderr, redactingErrors } from "../engine-output.js";

interface StartOptions {
  file: string;
  message?: string;
  title?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const session = program.command("session").description("start sessions of applied agents");
  session
    .command("start <AGENT>")
    .description(
      'start one session of an applied provider_b Managed agent (AGENT: its name, or an address like provider_b.agents["writer"])',
    )
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("-m, --message <TEXT>", "first user message, sent once the session exists")
    .option("--title <TEXT>", "session title")
    .option("--json", "print the session as one JSON document")
    .action(async (target: string, options: StartOptions) => {
      const project = await loadProject({ file: options.file });
      const started = await redactingErrors(project.secrets, () =>
        startSession({ project, command: "agents session start", onNotice: noticeToStderr }, target, {
          ...(options.message !== undefined ? { message: options.message } : {}),
          ...(options.title !== undefined ? { title: options.title } : {}),
        }),
      );
      if (options.json) {
        process.stdout.write(`${JSON.stringify(started, null, 2)}\n`);
        return;
      }
      const lines = [`Started a session of ${started.address}.`, `  session: ${started.session_id}`];
      if (started.event_id) lines.push(`  message: ${started.event_id}`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
