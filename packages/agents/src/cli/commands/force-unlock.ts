import type { Command } from "commander";
import { forceUnlock } from "../../state/file-store.js";
import { statePathOf } from "./state.js";

export function register(program: Command): void {
  program
    .command("force-unlock <LOCK_ID>")
    .description("remove a state lock left by a process that is gone (the id must match the lock)")
    .option("-f, --file <FILE>", "configuration file (the state sits beside it)", "agents.yaml")
    .action(async (lockId: string, options: { file: string }) => {
      const holder = await forceUnlock(statePathOf(options.file), lockId);
      process.stdout.write(
        `Removed the lock held by "${holder.command}" (pid ${holder.pid} on ${holder.host}, since ${holder.since}).\n`,
      );
    });
}
