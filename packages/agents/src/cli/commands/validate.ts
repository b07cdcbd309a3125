import type { Command } from "commander";
import { displayPath, formatDiagnostic, loadConfig, summary } from "../../config-api.js";

interface ValidateOptions {
  file: string;
  provider?: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command("validate")
    .description("check agents.yaml against the schema and every local rule")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--provider <NAME>", "check only what targets this provider")
    .option("--json", "print one JSON document instead of text")
    .action(async (options: ValidateOptions) => {
      const result = await loadConfig(options.file, { provider: options.provider, graph: false });
      const errors = result.diagnostics.filter((d) => d.severity === "error").length;
      const warnings = result.diagnostics.length - errors;
      if (options.json) {
        const document = {
          file: result.file,
          valid: errors === 0,
          errors,
          warnings,
          diagnostics: result.diagnostics,
        };
        process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      } else {
        for (const d of result.diagnostics) {
          const line = d.file === result.file ? result.source?.lineText(d.line) : undefined;
          process.stdout.write(`${formatDiagnostic(d, line)}\n\n`);
        }
        const counts = summary(errors, warnings);
        const shown = displayPath(result.file);
        process.stdout.write(errors === 0 ? `${shown}: valid (${counts})\n` : `${counts}\n`);
      }
      if (errors > 0) process.exitCode = 1;
    });
}
