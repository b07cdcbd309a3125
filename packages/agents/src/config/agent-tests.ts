// `*.test.yaml`: conversation tests of applied agents (docs/testing.md). Read and checked like
// agents.yaml: YAML with positions (source.ts), a strict zod schema (unknown keys get a "did you
// mean"), then the rules the schema cannot say (unique names, agents that exist, the grader).
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import { coded, strict } from "../model/schema-helpers.js";
import { didYouMean } from "../model/suggest.js";
import type { Diagnostic } from "./diagnostics.js";
import { issuesToDiagnostics } from "./issues.js";
import { editorSchema } from "./json-schema.js";
import { isDirectory, isFile } from "./paths.js";
import { type Path, YamlSource } from "./source.js";
import { readTextFile } from "./utf8.js";

/** The rules of a test file beyond the schema's (AGENTS1000-1006 keep their agents.yaml meaning). */
export const TEST_DIAGNOSTIC_CODES = {
  AGENTS1900: "two tests of one file have the same `name`",
  AGENTS1901: "a test's `agent` or the file's `grader.agent` is not an agent of agents.yaml",
  AGENTS1902: "`matches` is not a valid regular expression",
  AGENTS1903: "`timeout` is not a duration from 1ms to 1h (`500ms`, `60s`, `2m`, `1m30s`, `1h`)",
  AGENTS1904: "an expectation is not a mapping of exactly one expectation",
  AGENTS1905: "a `rubric` expectation in a file without `grader: {agent: NAME}`",
} as const;

const FIXES: Record<string, string> = {
  AGENTS1900: "give each test of the file its own name (the reports and --filter go by it)",
  AGENTS1902: "write a JavaScript regular expression; a leading (?i), (?s) or (?m) sets its flags",
  AGENTS1903: "write a number and a unit: 500ms, 60s, 2m, 1m30s, 1h",
  AGENTS1904: "write one expectation per list item, e.g. `- contains: hello`",
  AGENTS1905: "add `grader: {agent: NAME}` at the top of the file, naming an agent of agents.yaml",
};

export const DEFAULT_TIMEOUT = "60s";
const MAX_TIMEOUT_MS = 3_600_000;

/** Milliseconds of a duration such as `500ms`, `60s`, `2m`, `1m30s`, `1h`; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(text.trim());
  if (!match || text.trim() === "" || match.slice(1).every((part) => part === undefined)) return undefined;
  const [h, m, s, ms] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number];
  const total = ((h * 60 + m) * 60 + s) * 1000 + ms;
  return total >= 1 && total <= MAX_TIMEOUT_MS ? total : undefined;
}

/** A `matches` pattern: a leading `(?i)`, `(?s)` or `(?m)` (or several letters) becomes JS flags. */
export function compilePattern(pattern: string): RegExp {
  const inline = /^\(\?([ims]+)\)/.exec(pattern);
  const flags = inline ? [...new Set(inline[1]!)].join("") : "";
  return new RegExp(inline ? pattern.slice(inline[0].length) : pattern, flags);
}

const text = z.string().min(1);
const toolName = text.describe("a tool name, matched case- and separator-insensitively (bash, Bash)");

const expectationShape = {
  contains: text.describe("the agent's final text contains this").optional(),
  not_contains: text.describe("the agent's final text does not contain this").optional(),
  matches: text
    .describe("a regular expression the agent's final text matches; a leading (?i) ignores case")
    .superRefine((value, ctx) => {
      try {
        compilePattern(value);
      } catch (error) {
        const reason =
          error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : "";
        ctx.addIssue({
          code: "custom",
          message: coded("AGENTS1902", `matches: not a regular expression (${reason})`),
        });
      }
    })
    .optional(),
  tool_called: toolName.describe("a call of this tool happened").optional(),
  no_tool_called: toolName.describe("no call of this tool happened").optional(),
  no_tool_result: toolName.describe("this tool never ran: no result of a call of it").optional(),
  asked: toolName.describe("a confirmation was requested for a call of this tool").optional(),
  max_turns: z
    .number()
    .int()
    .min(1)
    .describe("the agent took at most this many steps: replies and tool calls, over the whole test")
    .optional(),
  rubric: text
    .describe("graded by the file's grader agent: PASS or FAIL with one line of reasons")
    .optional(),
};
export type ExpectationKind = keyof typeof expectationShape;
export const EXPECTATION_KINDS = Object.keys(expectationShape) as ExpectationKind[];

const expectation = strict(expectationShape).superRefine((value, ctx) => {
  const given = Object.keys(value).filter((key) => value[key as ExpectationKind] !== undefined);
  if (given.length !== 1)
    ctx.addIssue({
      code: "custom",
      message: coded(
        "AGENTS1904",
        given.length === 0
          ? `an expectation names none of ${EXPECTATION_KINDS.join(", ")}`
          : `one expectation per item, this one has ${given.join(" and ")}`,
      ),
    });
});

const testSchema = strict({
  name: text.describe("unique within the file; --filter and the reports go by it"),
  agent: text.describe("an agent of agents.yaml (its name, or an address), applied"),
  messages: z.array(text).min(1).describe("one turn each, in order; the reply to each is awaited"),
  answer_asks: z
    .enum(["allow", "deny"])
    .describe("how confirmations of tools with `ask` permission are answered; default deny")
    .optional(),
  timeout: text
    .describe(`the whole test's limit, e.g. 60s, 2m, 1m30s; default ${DEFAULT_TIMEOUT}`)
    .superRefine((value, ctx) => {
      if (parseDuration(value) === undefined)
        ctx.addIssue({
          code: "custom",
          message: coded("AGENTS1903", `timeout: "${value}" is not a duration from 1ms to 1h`),
        });
    })
    .optional(),
  identity: text.describe("provider_b Forward agents: the identity the session is for").optional(),
  expect: z.array(expectation).min(1).describe("every expectation must hold; each failure is reported"),
});

export const testFileSchema = strict({
  grader: strict({ agent: text.describe("the agent of agents.yaml that judges `rubric:` expectations") })
    .describe("the grader of this file's rubrics")
    .optional(),
  tests: z.array(testSchema).min(1),
});

export const TEST_SCHEMA_ID = "urn:agents:agents.test.yaml:schema:1";

/** The JSON Schema of a test file, for editors (`agents schema --tests`). */
export function testFileJsonSchema(): Record<string, unknown> {
  return editorSchema(testFileSchema, TEST_SCHEMA_ID, "agents test file (*.test.yaml)");
}

export type Expectation = {
  [K in ExpectationKind]: { kind: K; value: NonNullable<z.infer<(typeof expectationShape)[K]>> };
}[ExpectationKind];

export interface AgentTest {
  name: string;
  agent: string;
  messages: string[];
  answerAsks: "allow" | "deny";
  timeoutMs: number;
  identity?: string;
  expect: Expectation[];
  /** Where the test is written (its `name:`), for reports. */
  file: string;
  line: number;
}

export interface TestFile {
  file: string;
  grader?: { agent: string };
  tests: AgentTest[];
}

export interface TestFileResult {
  file: string;
  diagnostics: Diagnostic[];
  source?: YamlSource;
  /** Present when there is no error. */
  testFile?: TestFile;
}

/**
 * Reads and checks one test file. `agents` are the agents agents.yaml declares (logical names and
 * addresses), so a test naming another is refused where it is written. Never throws on bad input.
 */
export function loadTestFile(file: string, agents: readonly string[]): TestFileResult {
  const absolute = resolve(file);
  const decoded = readTextFile(
    absolute,
    file,
    "name an existing *.test.yaml file, or write agents.test.yaml beside agents.yaml",
  );
  if ("diagnostic" in decoded) return { file: absolute, diagnostics: [decoded.diagnostic] };
  return checkTestText(decoded.text, absolute, agents);
}

/** As loadTestFile, for text in memory. */
export function checkTestText(textIn: string, file: string, agents: readonly string[]): TestFileResult {
  const source = new YamlSource(file, textIn);
  const base = { file, source };
  const syntax = source.syntaxDiagnostics();
  if (syntax.length > 0) return { ...base, diagnostics: syntax };
  const data = source.data;
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return {
      ...base,
      diagnostics: [
        {
          code: "AGENTS1005",
          severity: "error",
          message: "a test file must be a mapping with `tests` at the top level",
          ...source.pos([]),
          hint: 'start with:\ntests:\n  - name: replies\n    agent: helper\n    messages: ["Hello"]\n    expect:\n      - contains: Hello',
        },
      ],
    };
  const parsed = testFileSchema.safeParse(data);
  if (!parsed.success) {
    const diagnostics = issuesToDiagnostics(parsed.error.issues, source).map((d) =>
      d.hint === undefined && FIXES[d.code] ? { ...d, hint: FIXES[d.code] } : d,
    );
    return { ...base, diagnostics: diagnostics.map((d) => ({ ...d, file })) };
  }
  const diagnostics = crossRules(parsed.data, source, agents);
  if (diagnostics.length > 0) return { ...base, diagnostics };
  const tests = parsed.data.tests.map((t, i): AgentTest => {
    const at = source.pos(["tests", i, "name"]);
    return {
      name: t.name,
      agent: t.agent,
      messages: t.messages,
      answerAsks: t.answer_asks ?? "deny",
      timeoutMs: parseDuration(t.timeout ?? DEFAULT_TIMEOUT)!,
      ...(t.identity !== undefined ? { identity: t.identity } : {}),
      expect: t.expect.map((e) => {
        const kind = EXPECTATION_KINDS.find((k) => e[k] !== undefined)!;
        return { kind, value: e[kind] } as Expectation;
      }),
      file,
      line: at.line,
    };
  });
  return {
    ...base,
    diagnostics: [],
    testFile: { file, ...(parsed.data.grader ? { grader: parsed.data.grader } : {}), tests },
  };
}

type Parsed = z.infer<typeof testFileSchema>;

function crossRules(data: Parsed, source: YamlSource, agents: readonly string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const add = (code: keyof typeof TEST_DIAGNOSTIC_CODES, message: string, path: Path, hint = FIXES[code]) =>
    out.push({
      code,
      severity: "error",
      message,
      ...source.pos(path),
      path: [...path],
      ...(hint ? { hint } : {}),
    });
  const known = new Set(agents);
  const agentRule = (name: string, path: Path, what: string) => {
    if (!known.has(name))
      add(
        "AGENTS1901",
        `${what} "${name}" is not an agent of agents.yaml${didYouMean(name, agents)}`,
        path,
        agents.length
          ? `agents declared: ${agents.filter((a) => !a.includes("[")).join(", ")}`
          : "declare the agent under `agents:` in agents.yaml",
      );
  };
  if (data.grader) agentRule(data.grader.agent, ["grader", "agent"], "grader");
  const seen = new Map<string, number>();
  data.tests.forEach((test, i) => {
    const first = seen.get(test.name);
    if (first !== undefined)
      add("AGENTS1900", `test name "${test.name}" is used twice (first by test ${first + 1})`, [
        "tests",
        i,
        "name",
      ]);
    else seen.set(test.name, i);
    agentRule(test.agent, ["tests", i, "agent"], "agent");
    test.expect.forEach((e, j) => {
      if (e.rubric !== undefined && !data.grader)
        add("AGENTS1905", "a rubric needs a grader: this file has no `grader:`", [
          "tests",
          i,
          "expect",
          j,
          "rubric",
        ]);
    });
  });
  return out;
}

/**
 * The test files `agents test` runs without FILES: `agents.test.yaml` and `tests/*.test.yaml`
 * beside agents.yaml (sorted). A folder given as FILE stands for its `*.test.yaml` files.
 */
export function testFilesFor(configPath: string, given: readonly string[]): string[] {
  if (given.length > 0)
    return given.flatMap((f) => (isDirectory(f) ? testFilesIn(resolve(f)) : [resolve(f)]));
  const dir = dirname(resolve(configPath));
  const beside = join(dir, "agents.test.yaml");
  return [...(isFile(beside) ? [beside] : []), ...testFilesIn(join(dir, "tests"))];
}

function testFilesIn(dir: string): string[] {
  if (!isDirectory(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".test.yaml"))
    .sort()
    .map((name) => join(dir, name));
}
