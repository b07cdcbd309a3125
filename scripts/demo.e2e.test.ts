// `npm run demo` is one of the README's two commands: its script runs here as a user runs it (after
// the build the e2e set-up makes), so a change that breaks the demo fails the suite, not a new user.
// (A demo whose hand-played browser did not keep forge-mcp's cookies once reached main this way.)
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("npm run demo", () => {
  it("runs both products' demos to their last line, ends with a playground's URL and exits 0", () => {
    const run = spawnSync(process.execPath, ["scripts/demo.mjs"], {
      cwd: root,
      encoding: "utf8",
      // About 10 s on an idle machine; 85 s was seen at a load average of 17.
      timeout: 170_000,
      env: { ...process.env, NO_COLOR: "1", DEMO_KEEP_PLAYGROUND: "0" },
    });
    const output = `${run.stdout}${run.stderr}`;
    expect({ status: run.status, tail: run.status === 0 ? "" : output.slice(-2000) }).toEqual({
      status: 0,
      tail: "",
    });
    expect(output).toMatch(/^engine demo finished in /m);
    expect(output).toContain(
      "Done: discovery → registration → consent → forge → callback → token → tool call.",
    );
    // Not on a terminal: the playground was checked, stopped, and its URL is the last line of
    // stdout (progress such as `agents test --ephemeral`'s goes to stderr, read here after stdout).
    expect(output).toContain("The playground answers: the page, its script and a graph of ");
    expect(run.stdout).toMatch(/\nPlayground: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}\n$/);
  }, 180_000);
});
