import type { Command } from "commander";
import { formatDiagnostic, loadConfig } from "../../index.js";
import { CliError } from "../errors.js";
import { projectGraph } from "../graph/model.js";
import { GRAPH_FORMATS, type GraphFormat, renderGraph } from "../graph/render.js";

interface GraphOptions {
  file: string;
  format: string;
}

export function register(program: Command): void {
  program
    .command("graph")
    .description("print the declared resources and their references, grouped by provider")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--format <FORMAT>", `output format: ${GRAPH_FORMATS.join(", ")}`, "mermaid")
    .action(async (options: GraphOptions) => {
      if (!(GRAPH_FORMATS as readonly string[]).includes(options.format))
        throw new CliError(`unknown --format "${options.format}"; use one of: ${GRAPH_FORMATS.join(", ")}`);
      // A graph of a file with errors would draw references that do not hold: errors stop it, as
      // they stop plan (the variables the file uses must be set, in the environment or .env).
      const result = await loadConfig(options.file);
      const errors = result.diagnostics.filter((d) => d.severity === "error");
      const graph = projectGraph(result);
      if (errors.length > 0 || !graph) {
        for (const d of errors)
          process.stderr.write(`${formatDiagnostic(d, result.source?.lineText(d.line))}\n\n`);
        throw new CliError(
          `${errors.length} configuration error(s); fix them and run again (agents validate)`,
        );
      }
      process.stdout.write(renderGraph(graph, options.format as GraphFormat));
    });
}
