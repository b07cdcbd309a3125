import type { Command } from "commander";
import { jsonSchema, testFileJsonSchema } from "../../index.js";

export function register(program: Command): void {
  program
    .command("schema")
    .description("print the JSON Schema of agents.yaml (for editors: yaml-language-server)")
    .option("--tests", "print the JSON Schema of the *.test.yaml files of agents test instead")
    .action((o: { tests?: boolean }) => {
      process.stdout.write(`${JSON.stringify(o.tests ? testFileJsonSchema() : jsonSchema(), null, 2)}\n`);
    });
}
