import { Command } from "commander";
import { COMMANDS, commandsFor, registerCommands } from "./commands/index.js";

export const VERSION = "0.1.0";

/**
 * The program for a command line (`argv` as process.argv: node, the script, then the arguments),
 * with the commands it needs; without `argv`, with every command. While the build writes the code
 * cache (AGENTS_WRITE_CODE_CACHE=1, scripts/bundle.mjs), every command module is loaded too, so
 * that the cache holds them all whichever command its warm-up run is.
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command("agents")
    .description("Declarative agents.yaml: validate, plan and apply managed-agent resources across providers")
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ outputError: (text, write) => write(text) });
  const all = argv === undefined || process.env.AGENTS_WRITE_CODE_CACHE === "1";
  await registerCommands(program, all ? COMMANDS : commandsFor(argv.slice(2)));
  return program;
}
