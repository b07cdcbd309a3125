import { relative, resolve } from "node:path";
import type { Command } from "commander";
import { loadProject, redactor, syncProject, unifiedDiff, writeSynced } from "../../index.js";
import { engineOptions, noticeToStderr } from "../engine-output.js";
import { collect, scopeOf } from "./scope-options.js";

interface SyncOptions {
  file: string;
  out?: string;
  dryRun?: boolean;
  detailedExitcode?: boolean;
  provider: string[];
}

export function register(program: Command): void {
  program
    .command("sync")
    .description(
      "write what the providers hold for this project back into agents.yaml, keeping its comments " +
        "(refuses, changing nothing, when the remote is ambiguous)",
    )
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--out <FILE>", "write the synced configuration to FILE instead of editing the file in place")
    .option("--dry-run", "print the changes as a unified diff and write nothing")
    .option("--provider <NAME>", "sync only this provider's resources (repeatable)", collect, [])
    .option(
      "--detailed-exitcode",
      "exit 0 when the file already matches, 2 when sync changes (or would change) it, 1 on error",
    )
    .action(async (options: SyncOptions) => {
      const project = await loadProject({ file: options.file });
      const redact = redactor(project.secrets);
      const scope = scopeOf({ provider: options.provider, target: [] }, project);
      const result = await syncProject({
        ...engineOptions(project, "agents sync"),
        onNotice: noticeToStderr,
        ...(scope.providers ? { providers: scope.providers } : {}),
      });
      const out = (line: string) => process.stdout.write(`${redact(line)}\n`);
      for (const warning of result.warnings) out(`warning: ${warning}`);
      const shown = relative(process.cwd(), project.configPath) || project.configPath;
      const changed = result.after !== result.before;
      if (options.dryRun) {
        if (changed) out(unifiedDiff(result.before, result.after, `a/${shown}`, `b/${shown}`).trimEnd());
        out(
          changed
            ? `\nSync (dry run): ${result.changes.length} change(s) to ${shown}; nothing was written.`
            : `No changes: ${shown} matches what the providers hold.`,
        );
      } else if (options.out) {
        await writeSynced(resolve(options.out), result, resolve(options.out) === project.configPath);
        out(
          `Wrote the synced configuration to ${options.out} (${result.changes.length} change(s) from ${shown}).`,
        );
      } else if (changed) {
        await writeSynced(project.configPath, result, true);
        for (const change of result.changes) out(change);
        out(`\nSynced ${shown}: ${result.changes.length} change(s) written.`);
      } else {
        out(`No changes: ${shown} matches what the providers hold.`);
      }
      if (result.variables.length > 0)
        out(
          `\nSecrets are never read back from the providers. Set these variables (e.g. in .env) before the next plan:\n` +
            result.variables.map((v) => `  ${v}`).join("\n"),
        );
      if (result.imports.length > 0)
        out(
          "\nThese project-owned resources are not recorded in the state; record them so the next plan " +
            `treats them as applied:\n${result.imports.map((i) => `  agents import '${i.address}' ${i.id}`).join("\n")}`,
        );
      if (options.detailedExitcode && changed) process.exitCode = 2;
    });
}
