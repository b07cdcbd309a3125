import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { listState, moveInState, removeFromState, showState } from "../../engine/state-ops.js";
import { STATE_FILE_NAME } from "../../state/file-store.js";

interface StateOptions {
  file: string;
}

export function statePathOf(configFile: string): string {
  return join(dirname(resolve(configFile)), STATE_FILE_NAME);
}

export function register(program: Command): void {
  const state = program
    .command("state")
    .description("inspect and edit agents.state.json (see docs/state.md)");
  state
    .command("list")
    .description("list the resources recorded in state")
    .option("-f, --file <FILE>", "configuration file (the state sits beside it)", "agents.yaml")
    .action(async (options: StateOptions) => {
      const entries = await listState(statePathOf(options.file));
      if (entries.length === 0) process.stdout.write("State is empty.\n");
      for (const r of entries)
        process.stdout.write(`${r.address}  ${r.id}${r.external ? "  (external)" : ""}\n`);
    });
  state
    .command("show <ADDRESS>")
    .description("print one recorded resource as JSON (secrets appear only as keyed hashes)")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .action(async (address: string, options: StateOptions) => {
      process.stdout.write(
        `${JSON.stringify(await showState(statePathOf(options.file), address), null, 2)}\n`,
      );
    });
  state
    .command("rm <ADDRESS>")
    .description(
      "forget a resource without touching the remote (releases an external environment or identity)",
    )
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .action(async (address: string, options: StateOptions) => {
      const entry = await removeFromState(statePathOf(options.file), address);
      process.stdout.write(
        `Removed ${address} (${entry.id}) from state; the remote resource was not touched.\n`,
      );
    });
  state
    .command("mv <FROM> <TO>")
    .description("rename a resource in state without recreating it")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .action(async (from: string, to: string, options: StateOptions) => {
      const moved = await moveInState(statePathOf(options.file), from, to);
      process.stdout.write(`Moved ${from} to ${moved.address} (${moved.id}).\n`);
    });
}
