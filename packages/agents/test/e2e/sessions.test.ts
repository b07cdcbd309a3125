// The session commands and `agents chat` through the real, built CLI (their own wiring: argument
// parsing, stdin, JSON lines, one-line errors, redaction); the provider matrix is in-process in
// test/engine/sessions.test.ts. Rows whose point is a message, not how the binary prints it, run
// the CLI's program in this process (./cli-here.ts): the one-line error with no stack trace is
// proven spawned by the unknown session's row.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, createSession, loadProject } from "../../src/index.js";
import {
  applyAll,
  KEYS,
  OTHER_PROJECT_YAML,
  type SessionWorld,
  sessionWorld,
} from "../engine/sessions-project.js";
import { runCli } from "./cli.js";
import { runCliHere } from "./cli-here.js";

let world: SessionWorld;
const cli = (...args: string[]) => runCli(args, { cwd: world.dir });
const here = (...args: string[]) => runCliHere(args, { cwd: world.dir });

/** The CLI with `input` on its stdin (a pipe, not a terminal). */
const withStdin = (args: string[], input: string) => runCli(args, { cwd: world.dir, input });

beforeAll(async () => {
  world = await sessionWorld(undefined, "agents-sessions-cli-");
  await applyAll(world);
}, 60_000);
afterAll(() => world?.close());

describe("agents session … through the CLI", () => {
  let id: string;

  it("create --json prints the session with its id", async () => {
    const r = await cli("session", "create", "talk-c", "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^sesn_/),
      provider: "provider_c",
      agent: 'provider_c.agents["talk-c"]',
    });
    id = created.id;
  });

  it("send prints the reply, the tool call and its result; secrets in the events are redacted", async () => {
    // An environment variable's value and a vault credential's value, echoed back by the agent.
    const r = await cli(
      "session",
      "send",
      id,
      `use the tool with ${KEYS.API_TOKEN} and ${KEYS.VAULT_SECRET}`,
      "--allow-tools",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(KEYS.API_TOKEN);
    expect(r.stdout).not.toContain(KEYS.VAULT_SECRET);
    expect(r.stdout.split("\n")).toEqual([
      "[running]",
      "(simulated) received: use the tool with [redacted] and [redacted]",
      '[tool] bash {"command":"echo hello"}',
      expect.stringMatching(/^\[waiting for confirmation of sevt_\w+\]$/),
      "[running]",
      "[tool result] hello",
      "The tool said: hello.",
      "[usage] 7 in, 9 out",
      "[idle]",
      "",
    ]);
  });

  it("send reads the message from stdin; without --allow-tools a held tool call is denied, on stderr", async () => {
    const r = await withStdin(["session", "send", id, "--json"], `tool please ${KEYS.VAULT_SECRET}\n`);
    expect(r.code).toBe(0);
    // Not in the neutral fields, nor in the provider's own event kept under "raw".
    expect(r.stdout).not.toContain(KEYS.VAULT_SECRET);
    expect(r.stdout).toContain("[redacted]");
    expect(r.stderr).toBe('denied bash {"command":"echo hello"} (pass --allow-tools to allow tool calls)\n');
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // The denied tool never ran: no result, and the agent says so.
    expect(events.filter((e) => e.type === "tool_result")).toEqual([]);
    expect(events.filter((e) => e.type === "text").at(-1)).toMatchObject({
      text: "I did not run bash: the user denied it.",
    });
    for (const e of events)
      expect(e).toMatchObject({ id: expect.any(String), session_id: id, provider: "provider_c" });
  });

  it("events prints the session's history so far, redacted, and exits 0 (in-process)", async () => {
    const r = await runCliHere(["session", "events", id], { cwd: world.dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(KEYS.API_TOKEN);
    expect(r.stdout).not.toContain(KEYS.VAULT_SECRET);
    expect(r.stdout).toContain("The tool said: hello.\n");
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("[idle]");
  });

  // The error list, each through the real CLI: one line on stderr, exit 1, no stack trace.
  const oneLine = (r: { code: number | null; stdout: string; stderr: string }, message: RegExp) => {
    expect({ code: r.code, stdout: r.stdout, lines: r.stderr.split("\n").length }).toEqual({
      code: 1,
      stdout: "",
      lines: 2,
    });
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  };

  it.each([
    [
      "an unknown session (spawned)",
      ["session", "get", "sesn_nope"],
      /^error: no session sesn_nope on provider_a, provider_b, provider_c, provider_d \(the providers .*agents\.yaml configures\)\n$/,
      cli,
    ],
    [
      "a provider without the feature (in-process)",
      [
        "session",
        "create",
        "talk-d",
        "--resource",
        '{"type":"git_repository","url":"https://github.com/acme/x"}',
      ],
      /^error: --resource git_repository is not taken by provider_d sessions; it is supported on provider_b managed, provider_c sessions\n$/,
      here,
    ],
  ])("%s: one line on stderr, exit 1", async (_what, args, message, run) => {
    oneLine(await run(...args), message);
  });

  it("a stream cut for good: one error line after the reconnect notes, exit 1 (in-process)", async () => {
    const r = await here("session", "send", id, "hello [cut]");
    expect(r.code).toBe(1);
    // What streamed before the cut is printed; each reconnection is said, then the one error line.
    expect(r.stdout).toBe("[running]\n(simulated) received: hello [cut]\n");
    const lines = r.stderr.split("\n");
    expect(lines.pop()).toBe("");
    const error = lines.pop();
    expect(error).toMatch(
      new RegExp(
        `^error: the event stream of session ${id} was cut and could not be resumed after 3 attempts \\(`,
      ),
    );
    expect(lines).toEqual(
      [1, 2, 3].map((n) =>
        expect.stringMatching(
          new RegExp(`^the event stream dropped \\(.*\\); reconnecting \\(attempt ${n}\\)$`),
        ),
      ),
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a session of an agent of another project: one line on stderr, exit 1 (in-process)", async () => {
    const other = await otherProject(world);
    oneLine(
      await here("session", "get", other.sessionId),
      new RegExp(
        `^error: session ${other.sessionId} runs agent agent_\\S+ on provider_c, which is not an agent of this project`,
      ),
    );
  });
});

describe("agents chat from a pipe", () => {
  it("reads one message per line, prints each reply, exits 0 at the end of input", async () => {
    const r = await withStdin(["chat", "talk-b"], "hello\n\nsecond message\n");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      ["[running]", "Received: hello", "[idle]", "[running]", "Received: second message", "[idle]", ""].join(
        "\n",
      ),
    );
  });
});

/** Another project (its own folder and label) on the same simulators, applied, with one session. */
async function otherProject(world: SessionWorld): Promise<{ sessionId: string }> {
  const dir = mkdtempSync(join(tmpdir(), "agents-other-project-cli-"));
  await fs.writeFile(join(dir, "agents.yaml"), OTHER_PROJECT_YAML);
  const options = {
    project: await loadProject({ file: join(dir, "agents.yaml"), env: world.env }),
    env: world.env,
  };
  const outcome = await apply({ ...options, confirm: async () => true });
  expect(outcome.result?.ok).toBe(true);
  return { sessionId: (await createSession(options, "talk-c")).id };
}
