// The session commands and `agents chat` through the real, built CLI (their own wiring: argument
// parsing, stdin, JSON lines, one-line errors, redaction); the provider matrix is in-process in
// test/sessions/matrix.test.ts.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyAll, KEYS, type SessionWorld, sessionWorld } from "../sessions/project.js";
import { CLI, runCli } from "./cli.js";

let world: SessionWorld;
const cli = (...args: string[]) => runCli(args, { cwd: world.dir });

/** The CLI with `input` on its stdin (a pipe, not a terminal). */
function withStdin(
  args: string[],
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: world.dir,
      env: { ...process.env, AGENTS_DEBUG: "", NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

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

  it("send prints the reply, the tool call and its result; a secret in the reply is redacted", async () => {
    const r = await cli("session", "send", id, `use the tool with ${KEYS.API_TOKEN}`, "--allow-tools");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(KEYS.API_TOKEN);
    expect(r.stdout.split("\n")).toEqual([
      "[running]",
      "(simulated) received: use the tool with [redacted]",
      '[tool] bash {"command":"echo hello"}',
      expect.stringMatching(/^\[waiting for confirmation of sevt_\w+\]$/),
      "[running]",
      "[tool result] hello",
      "The tool said: hello.",
      "[usage] 5 in, 7 out",
      "[idle]",
      "",
    ]);
  });

  it("send reads the message from stdin; without --allow-tools a held tool call is denied, on stderr", async () => {
    const r = await withStdin(["session", "send", id, "--json"], "tool please\n");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('denied bash {"command":"echo hello"} (pass --allow-tools to allow tool calls)\n');
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ tool: { is_error: true } });
    for (const e of events)
      expect(e).toMatchObject({ id: expect.any(String), session_id: id, provider: "provider_c" });
  });

  it.each([
    [
      "an unknown session",
      ["session", "get", "sesn_nope"],
      /^error: no session sesn_nope on provider_a, provider_b, provider_c, provider_d \(the providers .*agents\.yaml configures\)\n$/,
    ],
  ])("%s: one line on stderr, exit 1", async (_what, args, message) => {
    const r = await cli(...args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
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
