import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import {
  displayPath,
  formatDiagnostic,
  type LoadedProject,
  loadProject,
  loadTestFile,
  redactor,
  runAgentTests,
  selectTests,
  summary,
  type TestFile,
  type TestRunResult,
  testFilesFor,
} from "../../index.js";
import { engineOptions, noticeToStderr } from "../engine-output.js";
import { CliError } from "../errors.js";
import { exitCodeOf, jsonReport, junitReport, resultLines, summaryLine } from "../test-report.js";

interface TestOptions {
  file: string;
  filter?: string;
  junit?: string;
  json?: boolean;
  ephemeral?: boolean;
  parallelism: string;
}

/** Exit code of a run that could not start or finish: a configuration or provider error. */
const CANNOT_RUN = 2;

/**
 * `agents test [FILES…]` (docs/testing.md): conversation tests of applied agents. Exit 0 when every
 * test passed, 1 when one failed, 2 when the files or agents.yaml are wrong or a test could not run
 * (a provider error, an agent not applied); 130 after Ctrl-C (once the ephemeral project is gone).
 */
export function register(program: Command): void {
  program
    .command("test [FILES...]")
    .description(
      "run conversation tests of applied agents (agents.test.yaml, tests/*.test.yaml): exit 0 pass, 1 fail, 2 error",
    )
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--filter <TEXT>", "run only the tests whose name contains TEXT")
    .option("--junit <FILE>", "also write a JUnit XML report to FILE")
    .option("--json", "print one JSON document instead of text")
    .option("--ephemeral", "apply the tested agents as a throw-away project first, destroy them afterwards")
    .option("--parallelism <N>", "tests in flight at once (each provider's pacing still applies)", "4")
    .action(async (files: string[], o: TestOptions) => {
      const out = (text: string) => process.stdout.write(text);
      // Text goes to stdout; with --json, stdout holds the document only and the rest goes to stderr.
      const say = o.json ? noticeToStderr : (line: string) => out(`${line}\n`);
      const parallelism = Number(o.parallelism);
      if (!Number.isInteger(parallelism) || parallelism < 1)
        throw new CliError(`--parallelism: expected a whole number from 1, got ${o.parallelism}`, CANNOT_RUN);
      const project = await loadProject({ file: o.file }).catch((error: Error) => {
        throw new CliError(error.message, CANNOT_RUN);
      });
      const testFiles = readTestFiles(project, files);
      const hide = redactor(project.secrets);
      if (selectTests(testFiles, o.filter).length === 0)
        throw new CliError(
          o.filter !== undefined ? `no test's name contains "${o.filter}"` : "the test files hold no test",
          CANNOT_RUN,
        );
      const controller = new AbortController();
      let hits = 0;
      const onSigint = () => {
        hits++;
        if (hits === 1) {
          controller.abort();
          noticeToStderr(
            o.ephemeral
              ? "stopping: the running tests end, then the ephemeral project is destroyed"
              : "stopping: the running tests end (Ctrl-C again quits at once)",
          );
        } else if (o.ephemeral)
          noticeToStderr("still destroying the ephemeral project; it would be left behind if stopped now");
        else process.exit(130);
      };
      process.on("SIGINT", onSigint);
      let run: TestRunResult;
      try {
        run = await runAgentTests({
          ...engineOptions(project, "agents test"),
          files: testFiles,
          ...(o.filter !== undefined ? { filter: o.filter } : {}),
          parallelism,
          ephemeral: Boolean(o.ephemeral),
          signal: controller.signal,
          onProgress: (line) => noticeToStderr(hide(line)),
          onResult: (r) => {
            if (!o.json)
              for (const line of resultLines(r, displayPath, Boolean(o.ephemeral))) out(`${hide(line)}\n`);
          },
        });
      } catch (error) {
        const message = hide(error instanceof Error ? error.message : String(error));
        // Stopped by Ctrl-C during the ephemeral apply: the project is destroyed, the exit is Ctrl-C's.
        if (!controller.signal.aborted) throw new CliError(message, CANNOT_RUN);
        noticeToStderr(`error: ${message}`);
        process.exitCode = 130;
        return;
      } finally {
        process.off("SIGINT", onSigint);
      }
      if (o.junit) writeFileSync(o.junit, junitReport(run, project.secrets, displayPath));
      if (o.json) out(`${jsonReport(run, project.secrets)}\n`);
      else say(summaryLine(run));
      if (run.ephemeral?.error) noticeToStderr(hide(run.ephemeral.error));
      process.exitCode = controller.signal.aborted ? 130 : exitCodeOf(run);
    });
}

/**
 * Reads and checks every test file against agents.yaml's agents; any finding is printed as
 * `agents validate` prints them and ends the command with exit code 2.
 */
function readTestFiles(project: LoadedProject, given: string[]): TestFile[] {
  const paths = testFilesFor(project.configPath, given);
  if (paths.length === 0)
    throw new CliError(
      `no test files: write agents.test.yaml or tests/*.test.yaml beside ${displayPath(project.configPath)}, or name FILES`,
      CANNOT_RUN,
    );
  const agents = [
    ...new Set(project.desired.filter((r) => r.kind === "agents").flatMap((r) => [r.name, r.address])),
  ];
  const loaded = paths.map((path) => loadTestFile(path, agents));
  const findings = loaded.flatMap((r) =>
    r.diagnostics.map((d) => formatDiagnostic(d, d.file === r.file ? r.source?.lineText(d.line) : undefined)),
  );
  if (findings.length > 0) {
    const errors = loaded.reduce((n, r) => n + r.diagnostics.length, 0);
    throw new CliError(`${findings.join("\n\n")}\n\n${summary(errors, 0)} in the test files`, CANNOT_RUN);
  }
  return loaded.map((r) => r.testFile!);
}
