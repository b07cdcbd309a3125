import type { Command } from "commander";
import * as apply from "./apply.js";
import * as chat from "./chat.js";
import * as deployment from "./deployment.js";
import * as destroy from "./destroy.js";
import * as docs from "./docs.js";
import * as forceUnlock from "./force-unlock.js";
import * as graph from "./graph.js";
import * as importCommand from "./import.js";
import * as init from "./init.js";
import * as memory from "./memory.js";
import * as models from "./models.js";
import * as plan from "./plan.js";
import * as playground from "./playground.js";
import * as run from "./run.js";
import * as schema from "./schema.js";
import * as session from "./session.js";
import * as state from "./state.js";
import * as sync from "./sync.js";
import * as validate from "./validate.js";

/** Every command module exports `register(program)`; the order here is the order in --help. */
const commands: { register(program: Command): void }[] = [
  init,
  validate,
  plan,
  apply,
  destroy,
  run,
  deployment,
  session,
  chat,
  models,
  memory,
  sync,
  importCommand,
  graph,
  playground,
  state,
  forceUnlock,
  schema,
  docs,
];

export function registerCommands(program: Command): void {
  for (const command of commands) command.register(program);
}
