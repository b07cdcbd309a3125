// The test-file reader (docs/testing.md §The file): one row per rule, each anchored at its
// file:line:col, then what a valid file reads as, durations, patterns and the JSON Schema.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  checkTestText,
  compilePattern,
  loadTestFile,
  parseDuration,
  TEST_DIAGNOSTIC_CODES,
  testFileJsonSchema,
  testFilesFor,
} from "../../src/config/agent-tests.js";

const AGENTS = ["helper", "judge", 'provider_c.agents["helper"]'];
const FILE = "/project/agents.test.yaml";

const ok = (expectLines: string) => `tests:
  - name: greets
    agent: helper
    messages: ["Hello there"]
    expect:
${expectLines}
`;

// [rule, file text, code, line, col, part of the message]
const ROWS: [string, string, string, number, number, string][] = [
  ["YAML syntax", "tests: [\n", "AGENTS1000", 2, 1, ""],
  ["top level not a mapping", "- name: x\n", "AGENTS1005", 1, 1, "a mapping with `tests`"],
  ["tests missing", "grader: {agent: judge}\n", "AGENTS1003", 1, 1, 'missing required field "tests"'],
  [
    "unknown top-level key",
    `${ok("      - contains: Hello")}test: []\n`,
    "AGENTS1002",
    7,
    1,
    'unknown field "test"',
  ],
  [
    "unknown test key, did you mean",
    ok("      - contains: Hello").replace("    agent: helper", "    agent: helper\n    mesages: [x]"),
    "AGENTS1002",
    4,
    5,
    '(did you mean "messages"?)',
  ],
  [
    "messages empty",
    ok("      - contains: Hello").replace('["Hello there"]', "[]"),
    "AGENTS1001",
    4,
    15,
    "needs at least 1 entry",
  ],
  [
    "answer_asks not allow or deny",
    ok("      - contains: Hello").replace("    expect:", "    answer_asks: yes\n    expect:"),
    "AGENTS1001",
    5,
    18,
    'must be one of "allow", "deny"',
  ],
  [
    "unknown expectation, did you mean",
    ok("      - contain: Hello"),
    "AGENTS1002",
    6,
    9,
    '(did you mean "contains"?)',
  ],
  [
    "two expectations in one item",
    ok("      - {contains: a, asked: bash}"),
    "AGENTS1904",
    6,
    9,
    "contains and asked",
  ],
  ["an empty expectation", ok("      - {}"), "AGENTS1904", 6, 9, "names none of"],
  ["max_turns not a whole number", ok("      - max_turns: 1.5"), "AGENTS1001", 6, 20, "expected int"],
  [
    "regex does not compile",
    ok('      - matches: "(unclosed"'),
    "AGENTS1902",
    6,
    18,
    "not a regular expression",
  ],
  [
    "timeout not a duration",
    ok("      - contains: Hello").replace("    expect:", "    timeout: soon\n    expect:"),
    "AGENTS1903",
    5,
    14,
    '"soon" is not a duration',
  ],
  [
    "timeout over an hour",
    ok("      - contains: Hello").replace("    expect:", "    timeout: 2h\n    expect:"),
    "AGENTS1903",
    5,
    14,
    '"2h"',
  ],
  [
    "duplicate test name",
    `${ok("      - contains: Hello")}  - name: greets\n    agent: helper\n    messages: [again]\n    expect: [{contains: again}]\n`,
    "AGENTS1900",
    7,
    11,
    'test name "greets" is used twice',
  ],
  [
    "agent not in agents.yaml",
    ok("      - contains: Hello").replace("agent: helper", "agent: helpr"),
    "AGENTS1901",
    3,
    12,
    'agent "helpr" is not an agent of agents.yaml (did you mean "helper"?)',
  ],
  [
    "grader agent not in agents.yaml",
    `grader: {agent: jduge}\n${ok('      - rubric: says "Hello"')}`,
    "AGENTS1901",
    1,
    17,
    'grader "jduge" is not an agent',
  ],
  [
    "rubric without a grader",
    ok('      - rubric: says "Hello"'),
    "AGENTS1905",
    6,
    17,
    "a rubric needs a grader",
  ],
];

describe("a test file's rules, one row each, at file:line:col", () => {
  it.each(ROWS)("%s", (_rule, text, code, line, col, message) => {
    const result = checkTestText(text, FILE, AGENTS);
    expect(result.testFile).toBeUndefined();
    const found = result.diagnostics.find((d) => d.code === code);
    expect(found, JSON.stringify(result.diagnostics)).toBeDefined();
    expect(found).toMatchObject({ severity: "error", file: FILE, line, col });
    expect(found!.message).toContain(message);
    if (code in TEST_DIAGNOSTIC_CODES) expect(found!.hint).toBeTruthy();
  });

  it("every rule of the table has a row", () => {
    const codes = new Set(ROWS.map((row) => row[2]));
    for (const code of Object.keys(TEST_DIAGNOSTIC_CODES)) expect(codes).toContain(code);
  });
});

describe("a valid file", () => {
  it("reads every expectation, the defaults, and where each test is written", () => {
    const text = `grader: {agent: judge}
tests:
  - name: greets
    agent: helper
    messages: ["Hello there", "And again"]
    expect:
      - contains: Hello
      - not_contains: Traceback
      - matches: "(?i)hello"
      - tool_called: bash
      - no_tool_called: write
      - no_tool_result: bash
      - asked: bash
      - max_turns: 5
      - rubric: The reply says "Hello".
  - name: by address
    agent: 'provider_c.agents["helper"]'
    messages: [hi]
    answer_asks: allow
    timeout: 1m30s
    identity: alice
    expect: [{contains: hi}]
`;
    const result = checkTestText(text, FILE, AGENTS);
    expect(result.diagnostics).toEqual([]);
    expect(result.testFile).toEqual({
      file: FILE,
      grader: { agent: "judge" },
      tests: [
        {
          name: "greets",
          agent: "helper",
          messages: ["Hello there", "And again"],
          answerAsks: "deny",
          timeoutMs: 60_000,
          file: FILE,
          line: 3,
          expect: [
            { kind: "contains", value: "Hello" },
            { kind: "not_contains", value: "Traceback" },
            { kind: "matches", value: "(?i)hello" },
            { kind: "tool_called", value: "bash" },
            { kind: "no_tool_called", value: "write" },
            { kind: "no_tool_result", value: "bash" },
            { kind: "asked", value: "bash" },
            { kind: "max_turns", value: 5 },
            { kind: "rubric", value: 'The reply says "Hello".' },
          ],
        },
        {
          name: "by address",
          agent: 'provider_c.agents["helper"]',
          messages: ["hi"],
          answerAsks: "allow",
          timeoutMs: 90_000,
          identity: "alice",
          file: FILE,
          line: 16,
          expect: [{ kind: "contains", value: "hi" }],
        },
      ],
    });
  });

  it.each([
    ["500ms", 500],
    ["60s", 60_000],
    ["2m", 120_000],
    ["1m30s", 90_000],
    ["1h", 3_600_000],
    ["", undefined],
    ["0s", undefined],
    ["61m", undefined],
    ["10", undefined],
    ["1s1m", undefined],
  ] as const)("the duration %j is %s ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it("a leading (?i), (?s) or (?m) becomes the pattern's flags", () => {
    expect(compilePattern("(?i)hello").test("HELLO")).toBe(true);
    expect(compilePattern("hello").test("HELLO")).toBe(false);
    expect(compilePattern("(?is)a.b").flags).toBe("is");
  });
});

describe("which files run", () => {
  const dir = mkdtempSync(join(tmpdir(), "agents-test-files-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("agents.test.yaml and tests/*.test.yaml beside agents.yaml, or the files and folders given", () => {
    mkdirSync(join(dir, "tests"));
    for (const f of ["agents.test.yaml", "tests/b.test.yaml", "tests/a.test.yaml", "tests/notes.yaml"])
      writeFileSync(join(dir, f), "tests: []\n");
    expect(testFilesFor(join(dir, "agents.yaml"), [])).toEqual([
      join(dir, "agents.test.yaml"),
      join(dir, "tests/a.test.yaml"),
      join(dir, "tests/b.test.yaml"),
    ]);
    expect(
      testFilesFor(join(dir, "agents.yaml"), [join(dir, "tests"), join(dir, "agents.test.yaml")]),
    ).toEqual([
      join(dir, "tests/a.test.yaml"),
      join(dir, "tests/b.test.yaml"),
      join(dir, "agents.test.yaml"),
    ]);
  });

  it("a file that is not there is AGENTS1006 at 1:1", () => {
    const result = loadTestFile(join(dir, "missing.test.yaml"), AGENTS);
    expect(result.diagnostics).toMatchObject([{ code: "AGENTS1006", line: 1, col: 1 }]);
  });
});

describe("the JSON Schema for editors", () => {
  it("names every expectation and is strict where the reader is", () => {
    const schema = testFileJsonSchema() as {
      $id: string;
      additionalProperties: boolean;
      properties: { tests: { items: { properties: { expect: { items: { properties: object } } } } } };
    };
    expect(schema.$id).toBe("urn:agents:agents.test.yaml:schema:1");
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.tests.items.properties.expect.items.properties)).toEqual([
      "contains",
      "not_contains",
      "matches",
      "tool_called",
      "no_tool_called",
      "no_tool_result",
      "asked",
      "max_turns",
      "rubric",
    ]);
  });
});
