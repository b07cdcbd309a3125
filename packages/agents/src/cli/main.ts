// The CLI's entry: scripts/bundle.mjs bundles it with a call to main() into dist/agents.cjs.
import { CliError } from "./errors.js";
import { buildProgram } from "./program.js";

/** Runs the CLI on process.argv; a failure is one line on stderr and a non-zero exit code. */
export async function main(): Promise<void> {
  try {
    await (await buildProgram(process.argv)).parseAsync(process.argv);
  } catch (error) {
    if (process.env.AGENTS_DEBUG === "1" && error instanceof Error) {
      process.stderr.write(`${error.stack ?? error.message}\n`);
    } else {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exitCode = error instanceof CliError ? error.exitCode : 1;
  }
}
