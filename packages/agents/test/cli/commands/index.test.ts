// The CLI loads only the module of the command a command line names (cli/commands/index.ts), so a
// command does not pay at start-up for the others' code. That must change nothing a user sees: the
// program built for one command line defines that command exactly as the program with every
// command does, and the lines that need them all (help, no command, an unknown one) get them all.
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, commandsFor } from "../../../src/cli/commands/index.js";
import { buildProgram } from "../../../src/cli/program.js";

/** A command as commander holds it: name, description, arguments, options and subcommands. */
function shape(command: Command): unknown {
  return {
    name: command.name(),
    description: command.description(),
    arguments: command.registeredArguments.map((a) => [a.name(), a.required, a.variadic]),
    options: command.options.map((o) => [o.flags, o.description, o.defaultValue]),
    commands: command.commands.map(shape),
    help: command.helpInformation(),
  };
}

const all = await buildProgram();

describe("commands loaded on demand", () => {
  it("lists every command the program registers, in --help order", () => {
    expect(all.commands.map((c) => c.name())).toEqual(COMMANDS.map((c) => c.name));
  });

  it.each(COMMANDS.map((c) => [c.name]))(
    "`agents %s …` registers that command as the full program does",
    async (name) => {
      const all = await buildProgram();
      const one = await buildProgram(["node", "agents", name, "--some-option", "value"]);
      expect(one.commands.map(shape)).toEqual([shape(all.commands.find((c) => c.name() === name)!)]);
    },
  );

  it.each([
    [[], COMMANDS.length],
    [["--help"], COMMANDS.length],
    [["-h"], COMMANDS.length],
    [["help", "validate"], COMMANDS.length],
    [["validat"], COMMANDS.length],
    [["--version"], 0],
    [["-V"], 0],
    [["--version", "--help"], COMMANDS.length],
    [["--bogus", "validate"], 1],
    [["validate", "--json"], 1],
  ])("%j loads %i command modules", (args, count) => {
    expect(commandsFor(args)).toHaveLength(count);
  });
});
