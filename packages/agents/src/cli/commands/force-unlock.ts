import type { Command } from "commander";
import { withConfiguredState } from "./state.js";

export function register(program: Command): void {
  program
    .command("force-unlock <LOCK_ID>")
    .description(
      "release a state lock left by a process that is gone (file), or end a hung holder's connection (PostgreSQL); the id must match the lock",
    )
    .option(
      "-f, --file <FILE>",
      "configuration file (its state: block says where the state lives)",
      "agents.yaml",
    )
    .action(async (lockId: string, options: { file: string }) => {
      const holder = await withConfiguredState(options.file, (backend) => backend.forceUnlock(lockId));
      process.stdout.write(
        `Removed the lock held by "${holder.command}" (pid ${holder.pid} on ${holder.host}, since ${holder.since}).\n`,
      );
    });
}
