import type { Command } from "commander";

/** A command module: it exports `register(program)`, which defines its command. */
export interface CommandModule {
  register(program: Command): void;
}

/**
 * Every top-level command, in the order of --help, with the module that registers it. The modules
 * are loaded on demand (scripts/bundle.mjs: a module reached only through `import()` is evaluated
 * only when imported), so a command does not pay for the others' code at start-up.
 */
export interface CommandEntry {
  name: string;
  load(): Promise<CommandModule>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: "init", load: () => import("./init.js") },
  { name: "validate", load: () => import("./validate.js") },
  { name: "plan", load: () => import("./plan.js") },
  { name: "apply", load: () => import("./apply.js") },
  { name: "destroy", load: () => import("./destroy.js") },
  { name: "run", load: () => import("./run.js") },
  { name: "deployment", load: () => import("./deployment.js") },
  { name: "session", load: () => import("./session.js") },
  { name: "chat", load: () => import("./chat.js") },
  { name: "models", load: () => import("./models.js") },
  { name: "memory", load: () => import("./memory.js") },
  { name: "sync", load: () => import("./sync.js") },
  { name: "import", load: () => import("./import.js") },
  { name: "graph", load: () => import("./graph.js") },
  { name: "playground", load: () => import("./playground.js") },
  { name: "test", load: () => import("./test.js") },
  { name: "state", load: () => import("./state.js") },
  { name: "force-unlock", load: () => import("./force-unlock.js") },
  { name: "schema", load: () => import("./schema.js") },
  { name: "docs", load: () => import("./docs.js") },
];

/**
 * The commands a command line needs registered: the one it names (its first word that is not an
 * option: the program itself takes no option with a value), none for `--version` alone, and every
 * command otherwise (help, no command, an unknown one: commander lists or suggests them all).
 * Registering one command or all gives the same output for that command line.
 */
export function commandsFor(args: readonly string[]): readonly CommandEntry[] {
  const word = args.find((arg) => !arg.startsWith("-"));
  if (word === undefined)
    return args.length === 1 && (args[0] === "--version" || args[0] === "-V") ? [] : COMMANDS;
  const named = COMMANDS.find((command) => command.name === word);
  return named ? [named] : COMMANDS;
}

/** Loads the commands' modules and registers them, in the order given. */
export async function registerCommands(program: Command, commands: readonly CommandEntry[]): Promise<void> {
  const modules = await Promise.all(commands.map((command) => command.load()));
  for (const module of modules) module.register(program);
}
