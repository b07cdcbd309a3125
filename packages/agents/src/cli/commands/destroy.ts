import type { Command } from "commander";
import { type RunOptions, runChange } from "./apply.js";
import { collect } from "./scope-options.js";

export function register(program: Command): void {
  program
    .command("destroy")
    .description(
      "delete the resources agents created, in reverse dependency order (external ones are only released)",
    )
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--provider <NAME>", "destroy only this provider's resources (repeatable)", collect, [])
    .option(
      "--target <ADDRESS>",
      "destroy only this resource and what depends on it (repeatable)",
      collect,
      [],
    )
    .option("--cascade", "also remove what the provider requires gone first (provider-specific cleanup)")
    .option("-y, --auto-approve", "do not ask for confirmation (required without a terminal)")
    .option("--parallelism <N>", "resources deleted at once", "10")
    .action(async (options: RunOptions) => {
      await runChange("destroy", options);
    });
}
