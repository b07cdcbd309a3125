import type { Command } from "commander";
import * as docs from "./docs.js";
import * as init from "./init.js";
import * as schema from "./schema.js";
import * as validate from "./validate.js";

/** Every command module exports `register(program)`; the order here is the order in --help. */
const commands: { register(program: Command): void }[] = [init, validate, schema, docs];

export function registerCommands(program: Command): void {
  for (const command of commands) command.register(program);
}
