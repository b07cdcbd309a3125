import { promises as fs } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import {
  FileBackend,
  listState,
  migrateState,
  moveInState,
  projectName,
  pullState,
  pushState,
  removeFromState,
  STATE_FILE_NAME,
  type StateBackend,
  showState,
  stateBackendForConfig,
  stateSourceLine,
  type TransferResult,
} from "../../index.js";
import { CliError } from "../errors.js";

interface StateOptions {
  file: string;
}

function statePathOf(configFile: string): string {
  return join(dirname(resolve(configFile)), STATE_FILE_NAME);
}

/** Runs `fn` with the state backend `agents.yaml` names (its `state:` block, or AGENTS_STATE_URL). */
export async function withConfiguredState<T>(configFile: string, fn: (backend: StateBackend) => Promise<T>) {
  const { backend } = await stateBackendForConfig(configFile);
  try {
    return await fn(backend);
  } finally {
    await backend.close();
  }
}

const FILE_OPTION = [
  "-f, --file <FILE>",
  "configuration file (its state: block says where the state lives)",
  "agents.yaml",
] as const;

export function register(program: Command): void {
  const state = program
    .command("state")
    .description("inspect, edit and move the state (a file, or PostgreSQL; see docs/state.md)");
  state
    .command("list")
    .description("list the resources recorded in state")
    .option(...FILE_OPTION)
    .action(async (options: StateOptions) => {
      const { entries, source } = await withConfiguredState(options.file, async (backend) => ({
        source: await stateSourceLine(backend, projectName(dirname(resolve(options.file)))),
        entries: await listState(backend),
      }));
      // First, which state this is: a clone reading an empty or another workspace sees it at once.
      process.stdout.write(`${source}\n`);
      if (entries.length === 0) process.stdout.write("State is empty.\n");
      for (const r of entries)
        process.stdout.write(
          `${r.address}  ${r.id}${r.external ? "  (external)" : ""}${r.preventDestroy ? "  (prevent_destroy)" : ""}\n`,
        );
    });
  state
    .command("show <ADDRESS>")
    .description("print one recorded resource as JSON (secrets appear only as keyed hashes)")
    .option(...FILE_OPTION)
    .action(async (address: string, options: StateOptions) => {
      const entry = await withConfiguredState(options.file, (b) => showState(b, address));
      process.stdout.write(`${JSON.stringify(entry, null, 2)}\n`);
    });
  state
    .command("rm <ADDRESS>")
    .description(
      "forget a resource without touching the remote (releases an external environment or identity)",
    )
    .option(...FILE_OPTION)
    .action(async (address: string, options: StateOptions) => {
      const entry = await withConfiguredState(options.file, (b) => removeFromState(b, address));
      process.stdout.write(
        `Removed ${address} (${entry.id}) from state; the remote resource was not touched.\n`,
      );
    });
  state
    .command("mv <FROM> <TO>")
    .description("rename a resource in state without recreating it")
    .option(...FILE_OPTION)
    .action(async (from: string, to: string, options: StateOptions) => {
      const moved = await withConfiguredState(options.file, (b) => moveInState(b, from, to));
      process.stdout.write(`Moved ${from} to ${moved.address} (${moved.id}).\n`);
    });
  state
    .command("pull")
    .description("print the stored state as JSON (redirect it to a file to keep a copy)")
    .option(...FILE_OPTION)
    .action(async (options: StateOptions) => {
      process.stdout.write(await withConfiguredState(options.file, pullState));
    });
  state
    .command("push <STATE_FILE>")
    .description(
      "replace the stored state with a state file, under the lock (refused on another lineage or an older serial)",
    )
    .option(...FILE_OPTION)
    .option("--force", "write even when the lineage differs or the serial is older (can lose work)")
    .action(async (stateFile: string, options: StateOptions & { force?: boolean }) => {
      const text = await readInput(stateFile);
      const result = await withConfiguredState(options.file, async (b) => ({
        result: await pushState(b, text, stateFile, { force: options.force === true }),
        location: b.location,
      }));
      process.stdout.write(transferLine("Pushed", stateFile, result.location, result.result));
    });
  state
    .command("migrate")
    .description(
      "copy the state between a state file and the configured backend (e.g. PostgreSQL), journal included; the source is left as it was",
    )
    .option(...FILE_OPTION)
    .option(
      "--from-file [PATH]",
      "copy from this state file (default: agents.state.json beside the config) to the configured backend",
    )
    .option(
      "--to-file [PATH]",
      "copy from the configured backend to this state file (default: agents.state.json beside the config)",
    )
    .option("--force", "write even when the target holds another lineage or a newer serial (can lose work)")
    .action(
      async (
        options: StateOptions & { fromFile?: string | true; toFile?: string | true; force?: boolean },
      ) => {
        if ((options.fromFile === undefined) === (options.toFile === undefined))
          throw new CliError("give exactly one of --from-file or --to-file");
        const fileArg = options.fromFile ?? options.toFile;
        const file = new FileBackend(
          typeof fileArg === "string" ? resolve(fileArg) : statePathOf(options.file),
        );
        const outcome = await withConfiguredState(options.file, async (configured) => {
          if (configured.kind === "file")
            throw new CliError(
              `the configured state is the file ${configured.location}; set state.backend (or AGENTS_STATE_URL) to the backend to migrate to or from`,
            );
          const [from, to] = options.fromFile !== undefined ? [file, configured] : [configured, file];
          return {
            result: await migrateState(from, to, { force: options.force === true }),
            from: from.location,
            to: to.location,
          };
        });
        process.stdout.write(transferLine("Migrated", outcome.from, outcome.to, outcome.result));
      },
    );
}

async function readInput(path: string): Promise<string> {
  try {
    return path === "-"
      ? await new Response(process.stdin as unknown as ReadableStream).text()
      : await fs.readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

function transferLine(verb: string, from: string, to: string, r: TransferResult): string {
  if (!r.changed) return `${to} already holds this state (serial ${r.serial}); nothing was written.\n`;
  return `${verb} ${r.resources} resource(s) from ${from} to ${to} (lineage ${r.lineage}, serial ${r.serial}).\n`;
}
