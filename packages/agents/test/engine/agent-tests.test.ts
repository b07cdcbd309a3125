// `agents test` in-process against the four simulators (docs/testing.md): on every provider and
// flavour with sessions a passing and a failing test of each expectation, a rubric judged by a
// grader agent, the JUnit and JSON reports, exit codes, and --ephemeral leaving nothing behind
// (also when the run is stopped).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitCodeOf, jsonReport, junitReport } from "../../src/cli/test-report.js";
import { checkTestText, graderPrompt, readVerdict, runAgentTests, type TestFile } from "../../src/index.js";
import { liveOwnedBy, requestLog, setFaults } from "../e2e/project.js";
import { applyAll, KEYS, type SessionWorld, sessionWorld } from "./sessions-project.js";

const AGENTS = ["talk-a", "talk-b", "talk-bf", "talk-c", "talk-d"];

function testFile(world: SessionWorld, text: string): TestFile {
  const result = checkTestText(text, `${world.dir}/agents.test.yaml`, AGENTS);
  expect(result.diagnostics).toEqual([]);
  return result.testFile!;
}

// agent, provider, whether its tool asks, and the identity a Forward session needs
const ROWS = [
  ["talk-a", "provider_a", false],
  ["talk-b", "provider_b", true],
  ["talk-bf", "provider_b", true],
  ["talk-c", "provider_c", true],
  ["talk-d", "provider_d", true],
] as const;

const forRow = (agent: string, asks: boolean) => {
  const identity = agent === "talk-bf" ? "\n    identity: alice" : "";
  return `
  - name: echoes on ${agent}
    agent: ${agent}${identity}
    messages: ["Hello there ${KEYS.API_TOKEN}"]
    expect:
      - contains: Hello there
      - not_contains: Traceback
      - matches: "(?i)HELLO THERE"
      - no_tool_called: bash
      - no_tool_result: bash
      - max_turns: 1
      - rubric: 'The reply says "hello there".'
  - name: uses its tool on ${agent}
    agent: ${agent}${identity}
    messages: ["please use the tool"]
    answer_asks: allow
    expect:
      - tool_called: bash
      - contains: "The tool said: hello."
      - max_turns: 3
  - name: ${asks ? "a denied tool does not run" : "runs its tool without asking"} on ${agent}
    agent: ${agent}${identity}
    messages: ["please use the tool"]
    expect:
${
  asks
    ? `      - asked: bash
      - tool_called: bash
      - no_tool_result: bash
      - contains: "did not run"`
    : `      - tool_called: bash
      - no_tool_called: write`
}
  - name: fails on ${agent}
    agent: ${agent}${identity}
    messages: ["first", "please use the tool"]
    answer_asks: allow
    expect:
      - contains: Goodbye
      - not_contains: tool said
      - matches: "^bye"
      - tool_called: write
      - no_tool_called: bash
      - no_tool_result: bash
      - asked: write
      - max_turns: 2
      - rubric: 'The reply says "goodbye".'`;
};

let world: SessionWorld;
beforeAll(async () => {
  world = await sessionWorld();
  await applyAll(world);
}, 60_000);
afterAll(() => world?.close());

describe("agents test on every provider with sessions", () => {
  let run: Awaited<ReturnType<typeof runAgentTests>>;
  let file: TestFile;

  beforeAll(async () => {
    file = testFile(
      world,
      `grader: {agent: talk-c}\ntests:${ROWS.map(([a, , asks]) => forRow(a, asks)).join("")}\n`,
    );
    run = await runAgentTests({ ...(await world.options()), files: [file], parallelism: 4 });
  }, 60_000);

  it.each(ROWS)(
    "%s (%s): the passing tests pass, the failing one fails on each expectation",
    (agent, _p, asks) => {
      const of = (name: string) => run.results.find((r) => r.name === `${name} on ${agent}`)!;
      for (const name of [
        "echoes",
        "uses its tool",
        asks ? "a denied tool does not run" : "runs its tool without asking",
      ])
        expect(of(name), JSON.stringify(of(name))).toMatchObject({ status: "passed", failures: [] });
      expect(of("echoes").grades).toEqual([
        {
          rubric: 'The reply says "hello there".',
          verdict: "pass",
          reasons: expect.stringContaining('"hello there"'),
        },
      ]);
      const failed = of("fails");
      expect(failed.status).toBe("failed");
      expect(failed.session_id).toEqual(expect.any(String));
      expect(failed.failures.map((f) => f.expectation)).toEqual([
        'contains: "Goodbye"',
        'not_contains: "tool said"',
        'matches: "^bye"',
        'tool_called: "write"',
        'no_tool_called: "bash"',
        'no_tool_result: "bash"',
        ...(asks ? ['asked: "write"'] : ['asked: "write"']),
        "max_turns: 2",
        'rubric: "The reply says \\"goodbye\\"."',
      ]);
      const seen = Object.fromEntries(failed.failures.map((f) => [f.expectation.split(":")[0], f.seen]));
      expect(seen.contains).toMatch(/^final text ".*The tool said: hello\."$/);
      expect(seen.tool_called).toMatch(/^tool calls: bash$/i);
      expect(seen.no_tool_result).toMatch(/^bash ran: result "hello"$/);
      expect(seen.asked).toBe(
        asks
          ? `confirmations asked: ${agent === "talk-b" || agent === "talk-bf" ? "Bash" : "bash"}`
          : "no confirmation was asked",
      );
      expect(seen.max_turns).toBe("4 steps (replies and tool calls)");
      expect(seen.rubric).toMatch(/^FAIL: the reply does not say "goodbye"/);
    },
  );

  it("counts, grading and exit code 1; nothing secret in the results", () => {
    expect([run.passed, run.failed, run.errors]).toEqual([15, 5, 0]);
    expect(run.grading.sessions).toBe(10);
    expect(exitCodeOf(run)).toBe(1);
    expect(JSON.stringify(run)).not.toContain(KEYS.API_TOKEN);
    expect(JSON.stringify(run)).toContain("[redacted]");
  });

  it("the JSON report: one document with every test, its failures and the exit code", () => {
    const doc = JSON.parse(jsonReport(run, [KEYS.API_TOKEN]));
    expect(doc).toMatchObject({ version: 1, passed: 15, failed: 5, errors: 0, exit_code: 1 });
    expect(doc.results).toHaveLength(20);
    for (const r of doc.results) {
      expect(Object.keys(r)).toEqual(
        expect.arrayContaining(["file", "name", "agent", "status", "durationMs", "failures"]),
      );
      for (const f of r.failures) expect(Object.keys(f).sort()).toEqual(["expectation", "seen"]);
    }
  });

  it("the JUnit report: a testsuite per file, a testcase per test, a failure per unmet expectation", () => {
    const xml = junitReport(run, [KEYS.API_TOKEN], (f) => f.split("/").at(-1)!);
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="agents test" tests="20" failures="5" errors="0"',
      ),
    ).toBe(true);
    expect(xml.match(/<testsuite /g)).toHaveLength(1);
    expect(xml).toContain('<testsuite name="agents.test.yaml" tests="20" failures="5" errors="0"');
    expect(xml.match(/<testcase /g)).toHaveLength(20);
    expect(xml.match(/<failure /g)).toHaveLength(45);
    expect(xml).toContain(
      '<failure message="contains: &quot;Goodbye&quot;" type="expectation">contains: &quot;Goodbye&quot;: saw final text',
    );
    expect(xml).not.toContain(KEYS.API_TOKEN);
    // Well formed: every element opened is closed, in order.
    const stack: string[] = [];
    for (const [, close, name, selfClosing] of xml.matchAll(/<(\/?)([a-z-]+)[^>]*?(\/?)>/g)) {
      if (close) expect(stack.pop()).toBe(name);
      else if (!selfClosing) stack.push(name!);
    }
    expect(stack).toEqual([]);
  });
});

describe("errors and filters", () => {
  it("--filter runs the tests whose name contains the text; an agent not applied is an error (exit 2)", async () => {
    const file = testFile(
      world,
      `tests:
  - name: one on talk-c
    agent: talk-c
    messages: [hi]
    expect: [{contains: hi}]
  - name: two on talk-c
    agent: talk-c
    messages: [hi]
    expect: [{contains: nope}]
  - name: one not applied
    agent: talk-d
    timeout: 5s
    messages: [hi]
    expect: [{contains: hi}]
`,
    );
    const only = await runAgentTests({ ...(await world.options()), files: [file], filter: "one on" });
    expect(only.results.map((r) => [r.name, r.status])).toEqual([["one on talk-c", "passed"]]);
    expect(exitCodeOf(only)).toBe(0);
    // Against an empty state, talk-d reads as declared but not applied.
    const missing = await runAgentTests({
      ...(await world.options()),
      files: [file],
      filter: "not applied",
      statePath: `${world.dir}/empty.state.json`,
    });
    expect(missing.results[0]).toMatchObject({
      status: "error",
      error: expect.stringContaining("not applied yet; run agents apply first"),
    });
    expect(exitCodeOf(missing)).toBe(2);
  });

  it("tests in flight together share the provider's pacing: few answers refused at its limit", async () => {
    const n = 8;
    const file = testFile(
      world,
      `tests:\n${Array.from(
        { length: n },
        (_, i) =>
          `  - name: paced ${i}\n    agent: talk-c\n    messages: [hi]\n    expect: [{contains: hi}]\n`,
      ).join("")}`,
    );
    const sim = world.sims.c;
    const before = (await requestLog(sim)).length;
    await setFaults(sim, { rateLimit: { limit: 40, periodSeconds: 1, burst: 2 } });
    try {
      const run = await runAgentTests({ ...(await world.options()), files: [file], parallelism: n });
      expect(run.results.map((r) => [r.status, r.error ?? ""])).toEqual(Array(n).fill(["passed", ""]));
      const calls = (await requestLog(sim)).slice(before);
      // One lane for the run: once an answer shows the limit, every test waits on it; only what
      // was sent before that answer may be refused (each test pacing alone: 34 and 36 refusals).
      expect(calls.filter((c) => c.status === 429).length).toBeLessThanOrEqual(n);
    } finally {
      await setFaults(sim, {});
    }
  });

  it("a timeout fails the test and says where it waited", async () => {
    const file = testFile(
      world,
      `tests:\n  - name: slow\n    agent: talk-c\n    timeout: 1ms\n    messages: [hi]\n    expect: [{contains: hi}]\n`,
    );
    const run = await runAgentTests({ ...(await world.options()), files: [file] });
    expect(run.results[0]!.status).not.toBe("passed");
    expect(JSON.stringify(run.results[0])).toContain("timed out after 0.001s");
  });
});

describe("the grader's prompt and answer", () => {
  it("marks who said each line, and reads PASS or FAIL with its reasons", () => {
    const prompt = graderPrompt('Says "hi".', {
      turns: [{ message: "hi\nthere", events: [] }],
      asked: [],
    });
    expect(prompt.split("\n").slice(3)).toEqual([
      "RUBRIC:",
      'Says "hi".',
      "",
      "CONVERSATION:",
      "[user] hi",
      "[user] there",
      "[agent] (no reply)",
    ]);
    expect(readVerdict("PASS\nall good")).toEqual({ verdict: "pass", reasons: "all good" });
    expect(readVerdict("**FAIL**: too long")).toEqual({ verdict: "fail", reasons: "too long" });
    expect(readVerdict("I think it passes")).toBeUndefined();
  });
});

const liveOwned = (project: string) => liveOwnedBy([world.sims.c, world.sims.d], project);

describe("--ephemeral", () => {
  it("applies the tested agents as a throw-away project beside the applied one, and destroys it all, failures included", async () => {
    const options = await world.options();
    const before = (await liveOwned(options.project.project)).length;
    expect(before).toBeGreaterThan(0);
    const file = testFile(world, `grader: {agent: talk-d}\ntests:${forRow("talk-c", true)}\n`);
    const lines: string[] = [];
    const run = await runAgentTests({
      ...options,
      files: [file],
      ephemeral: true,
      onProgress: (l) => lines.push(l),
    });
    const project = run.ephemeral!.project;
    expect(run.ephemeral).toEqual({ project, created: 5, destroyed: true });
    expect(project).toMatch(/^agents-sessions-\w+-test-[0-9a-f]{8}$/);
    expect([run.passed, run.failed, run.errors, exitCodeOf(run)]).toEqual([3, 1, 0, 1]);
    expect(lines).toEqual([
      `ephemeral: applying provider_c.agents["talk-c"], provider_d.agents["talk-d"] as project ${project}`,
      `ephemeral: destroying project ${project}`,
    ]);
    expect(await liveOwned(project)).toEqual([]);
    // The applied project is untouched.
    expect(await liveOwned(options.project.project)).toHaveLength(before);
  });

  it("stopped during its apply (Ctrl-C), it destroys what the apply had created", async () => {
    const stop = new AbortController();
    let project = "";
    const file = testFile(world, `tests:${forRow("talk-d", true)}\n`.replace(/\n {6}- rubric: .*/g, ""));
    const outcome = await runAgentTests({
      ...(await world.options()),
      files: [file],
      ephemeral: true,
      signal: stop.signal,
      onProgress: (line) => {
        if (project) return;
        project = /as project (\S+)/.exec(line)?.[1] ?? "";
        // Ctrl-C once the apply has created something.
        void (async () => {
          for (let i = 0; i < 2000 && (await liveOwned(project)).length === 0; i++)
            await new Promise((r) => setTimeout(r, 2));
          stop.abort();
        })();
      },
    }).catch((error: Error) => error);
    expect(stop.signal.aborted).toBe(true);
    expect(project).toMatch(/-test-[0-9a-f]{8}$/);
    expect(await liveOwned(project)).toEqual([]);
    if (outcome instanceof Error) expect(outcome.message).not.toContain("ephemeral destroy");
    else expect(outcome.ephemeral?.destroyed).toBe(true);
  });

  it("stopped mid-run (Ctrl-C), it still destroys everything it created", async () => {
    const stop = new AbortController();
    const file = testFile(world, `tests:${forRow("talk-d", true)}\n`.replace(/\n {6}- rubric: .*/g, ""));
    const run = await runAgentTests({
      ...(await world.options()),
      files: [file],
      ephemeral: true,
      parallelism: 1,
      signal: stop.signal,
      onResult: () => stop.abort(),
    });
    expect(run.ephemeral).toMatchObject({ created: 2, destroyed: true });
    expect(run.results.filter((r) => r.error === "interrupted").length).toBeGreaterThan(0);
    expect(await liveOwned(run.ephemeral!.project)).toEqual([]);
  });
});
