import type { Command } from "commander";
import { jsonSchema } from "../../index.js";

export function register(program: Command): void {
  program
    .command("schema")
    .description("print the JSON Schema of agents.yaml (for editors: yaml-language-server)")
    .action(() => {
      process.stdout.write(`${JSON.stringify(jsonSchema(), null, 2)}\n`);
    });
}
