import type { Command } from "commander";
import { listModels, loadProject, redact } from "../../index.js";
import { engineOptions, redactingErrors } from "../engine-output.js";

export function register(program: Command): void {
  const models = program.command("models").description("the models the configured providers offer");
  models
    .command("list")
    .description("list the models of every configured provider that has a model endpoint")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--provider <NAME>", "only this provider")
    .option("--json", "one JSON object per model per line")
    .action(async (o: { file: string; provider?: string; json?: boolean }) => {
      const project = await loadProject({ file: o.file });
      const found = await redactingErrors(project.secrets, () =>
        listModels(engineOptions(project, "agents models list"), o.provider ? { provider: o.provider } : {}),
      );
      const lines = o.json
        ? found.map((m) => JSON.stringify(m))
        : found.map((m) => `${m.provider}  ${m.id}${m.display_name ? `  ${m.display_name}` : ""}`);
      process.stdout.write(redact(lines.map((l) => `${l}\n`).join(""), project.secrets));
    });
}
