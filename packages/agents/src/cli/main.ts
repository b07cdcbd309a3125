#!/usr/bin/env node
import { CliError } from "./errors.js";
import { buildProgram } from "./program.js";

async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (error) {
    if (process.env.AGENTS_DEBUG === "1" && error instanceof Error) {
      process.stderr.write(`${error.stack ?? error.message}\n`);
    } else {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exitCode = error instanceof CliError ? error.exitCode : 1;
  }
}

await main();
