import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { configurationReference } from "../../index.js";

export function register(program: Command): void {
  program
    .command("docs")
    .description("print (or write) the configuration reference generated from the schema")
    .option("--out <FILE>", "write to this file instead of stdout")
    .action((options: { out?: string }) => {
      const text = configurationReference();
      if (options.out) writeFileSync(options.out, text);
      else process.stdout.write(text);
    });
}
