import { Command } from "commander";
import { registerCommands } from "./commands/index.js";

export const VERSION = "0.1.0";

export function buildProgram(): Command {
  const program = new Command("agents")
    .description("Declarative agents.yaml: validate, plan and apply managed-agent resources across providers")
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ outputError: (text, write) => write(text) });
  registerCommands(program);
  return program;
}
