// What `agents test` prints and writes (docs/testing.md §Reports): a line per test as it ends, a
// summary, the JUnit XML file and the JSON document. The results come redacted from the engine;
// every text is redacted once more here, so a report never holds a secret.
import { redactor, type TestResult, type TestRunResult } from "../index.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** One line per test (and one indented line per failed expectation). */
export function resultLines(r: TestResult, shown: (file: string) => string, ephemeral = false): string[] {
  const where = `${shown(r.file)}: ${r.name} (${r.agent}, ${seconds(r.durationMs)})`;
  if (r.status === "passed") return [`PASS  ${where}`];
  if (r.status === "error") return [`ERROR ${where}`, `      ${r.error ?? "could not run"}`];
  return [
    `FAIL  ${where}`,
    ...r.failures.map((f) => `      ${f.expectation}: saw ${f.seen}`),
    // An ephemeral project's sessions go with it.
    ...(r.session_id && !ephemeral
      ? [`      session ${r.session_id} is kept: agents session events ${r.session_id}`]
      : []),
  ];
}

export function summaryLine(run: TestRunResult): string {
  const parts = [`${run.passed} passed`, `${run.failed} failed`];
  if (run.errors) parts.push(`${run.errors} error${run.errors === 1 ? "" : "s"}`);
  const grading = run.grading.sessions
    ? `; grading: ${run.grading.sessions} grader session${run.grading.sessions === 1 ? "" : "s"}${
        run.grading.input_tokens + run.grading.output_tokens
          ? ` (${run.grading.input_tokens} tokens in, ${run.grading.output_tokens} out)`
          : ""
      }`
    : "";
  return `${parts.join(", ")} in ${seconds(run.durationMs)}${grading}`;
}

/** 0 all passed, 1 a test failed, 2 a test could not run (configuration or provider error). */
export function exitCodeOf(run: TestRunResult): number {
  if (run.errors > 0 || (run.ephemeral && !run.ephemeral.destroyed)) return 2;
  return run.failed > 0 ? 1 : 0;
}

export function jsonReport(run: TestRunResult, secrets: readonly string[]): string {
  const document = { version: 1, ...run, exit_code: exitCodeOf(run) };
  return redactor(secrets)(JSON.stringify(document, null, 2));
}

// XML 1.0 allows neither most control characters nor lone surrogates.
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function xml(text: string): string {
  return text
    .replace(NOT_XML, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** JUnit XML: a `<testsuite>` per file, a `<testcase>` per test, a `<failure>` per unmet expectation. */
export function junitReport(
  run: TestRunResult,
  secrets: readonly string[],
  shown: (file: string) => string,
): string {
  const hide = redactor(secrets);
  const files = [...new Set(run.results.map((r) => r.file))];
  const count = (rs: TestResult[], status: TestResult["status"]) =>
    rs.filter((r) => r.status === status).length;
  const suites = files.map((file) => {
    const rs = run.results.filter((r) => r.file === file);
    const time = rs.reduce((sum, r) => sum + r.durationMs, 0) / 1000;
    const cases = rs.map((r) => {
      const open = `    <testcase name="${xml(r.name)}" classname="${xml(shown(file))}" time="${(r.durationMs / 1000).toFixed(3)}"`;
      const body = [
        ...r.failures.map(
          (f) =>
            `      <failure message="${xml(hide(f.expectation))}" type="expectation">${xml(hide(`${f.expectation}: saw ${f.seen}`))}</failure>`,
        ),
        ...(r.status === "error"
          ? [`      <error message="${xml(hide(r.error ?? "could not run"))}" type="error"/>`]
          : []),
        ...(r.session_id
          ? [`      <system-out>${xml(`session ${r.session_id} (agent ${r.agent})`)}</system-out>`]
          : []),
      ];
      return body.length ? [`${open}>`, ...body, "    </testcase>"].join("\n") : `${open}/>`;
    });
    return [
      `  <testsuite name="${xml(shown(file))}" tests="${rs.length}" failures="${count(rs, "failed")}" errors="${count(rs, "error")}" time="${time.toFixed(3)}">`,
      ...cases,
      "  </testsuite>",
    ].join("\n");
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="agents test" tests="${run.results.length}" failures="${run.failed}" errors="${run.errors}" time="${(run.durationMs / 1000).toFixed(3)}">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}
