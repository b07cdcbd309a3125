import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import {
  DEFAULT_IMPORT_CONCURRENCY,
  getMemory,
  importMemories,
  listMemories,
  loadProject,
  type MemoryImportReport,
  memoryHistory,
  putMemory,
  redact,
  redactMemoryVersion,
  removeMemory,
} from "../../index.js";
import { engineOptions, redactingErrors } from "../engine-output.js";

interface FileOption {
  file: string;
  json?: boolean;
}

async function stdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The import report in words: one line per file that changed (or would), then the counts. */
export function renderImport(r: MemoryImportReport): string {
  const would = r.dryRun ? "would be " : "";
  const lines = [
    ...r.created.map((p) => `+ ${p}`),
    ...r.updated.map((p) => `~ ${p}`),
    ...r.skipped.map((s) => `  skipped ${s.file}: ${s.reason}`),
    ...r.failed.map((f) => `! ${f.file}: ${f.error}`),
    `${r.dryRun ? "Dry run: " : ""}${r.created.length} ${would}created, ${r.updated.length} ${would}updated, ${r.unchanged.length} unchanged${r.skipped.length ? `, ${r.skipped.length} skipped` : ""}${r.failed.length ? `, ${r.failed.length} failed` : ""} in memory store ${r.store.name} (${r.store.id}).`,
  ];
  return `${lines.join("\n")}\n`;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError("a whole number from 1 to 64");
  return n;
}

/** `agents memory list|get|put|rm|history|redact|import` (docs/cli.md §Memories). */
export function register(program: Command): void {
  const memory = program
    .command("memory")
    .description("the memories inside an applied memory store (data: never in the plan)");
  const file = (c: Command) =>
    c.option("-f, --file <FILE>", "configuration file", "agents.yaml").option("--json", "JSON output");
  const run = async <T>(
    o: FileOption,
    command: string,
    body: (options: { project: Awaited<ReturnType<typeof loadProject>>; command: string }) => Promise<T>,
    show: (result: T) => string,
  ) => {
    const project = await loadProject({ file: o.file });
    const result = await redactingErrors(project.secrets, () => body(engineOptions(project, command)));
    const text = o.json ? `${JSON.stringify(result)}\n` : show(result);
    process.stdout.write(redact(text, project.secrets));
  };

  file(memory.command("list <STORE>").description("the memories of a store: path, id, sha256")).action(
    (store: string, o: FileOption) =>
      run(
        o,
        "agents memory list",
        (options) => listMemories(options, store),
        (found) =>
          found.length
            ? `${found.map((m) => `${m.path}  ${m.id}${m.content_sha256 ? `  ${m.content_sha256}` : ""}`).join("\n")}\n`
            : "No memories.\n",
      ),
  );
  file(memory.command("get <STORE> <PATH>").description("print one memory's content")).action(
    (store: string, path: string, o: FileOption) =>
      run(
        o,
        "agents memory get",
        (options) => getMemory(options, store, path),
        (m) => m.content ?? "",
      ),
  );
  file(
    memory
      .command("put <STORE> <PATH>")
      .description("create or rewrite a memory; the content from --from-file, else stdin"),
  )
    .option("--from-file <F>", "read the content from this file")
    .action((store: string, path: string, o: FileOption & { fromFile?: string }) =>
      run(
        o,
        "agents memory put",
        async (options) =>
          putMemory(options, store, path, o.fromFile ? await readFile(o.fromFile, "utf8") : await stdin()),
        (m) => `${m.created ? "Created" : "Updated"} ${m.path} (${m.id})\n`,
      ),
    );
  file(memory.command("rm <STORE> <PATH>").description("delete a memory")).action(
    (store: string, path: string, o: FileOption) =>
      run(
        o,
        "agents memory rm",
        (options) => removeMemory(options, store, path),
        (m) => `Deleted ${m.path} (${m.id})\n`,
      ),
  );
  file(memory.command("history <STORE> <PATH>").description("the versions of a memory, oldest first")).action(
    (store: string, path: string, o: FileOption) =>
      run(
        o,
        "agents memory history",
        (options) => memoryHistory(options, store, path),
        (versions) =>
          `${versions
            .map(
              (v) =>
                `${v.id}  ${v.operation ?? ""}  ${v.created_at ?? ""}${v.redacted ? "  (redacted)" : ""}`,
            )
            .join("\n")}\n`,
      ),
  );
  file(
    memory.command("redact <STORE> <VERSION_ID>").description("erase one version's content for good"),
  ).action((store: string, version: string, o: FileOption) =>
    run(
      o,
      "agents memory redact",
      (options) => redactMemoryVersion(options, store, version),
      (v) => `Redacted version ${v.id}\n`,
    ),
  );
  file(
    memory
      .command("import <STORE> <DIR>")
      .description("each file under DIR becomes the memory at its relative path (create or update)"),
  )
    .option("--dry-run", "list and compare only: say what would be created or updated, write nothing")
    .option(
      "--concurrency <N>",
      `most writes in flight at once (the provider's pacing still applies)`,
      positive,
      DEFAULT_IMPORT_CONCURRENCY,
    )
    .action(async (store: string, dir: string, o: FileOption & { dryRun?: boolean; concurrency: number }) => {
      let failed = 0;
      await run(
        o,
        "agents memory import",
        async (options) => {
          const report = await importMemories(options, store, dir, {
            dryRun: o.dryRun === true,
            concurrency: o.concurrency,
          });
          failed = report.failed.length;
          return report;
        },
        renderImport,
      );
      // Every other file was still imported; the report names the ones that were not.
      if (failed > 0) process.exitCode = 1;
    });
}
