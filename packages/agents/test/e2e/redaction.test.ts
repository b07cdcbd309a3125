// A provider error that echoes a secret back never reaches the terminal or the state.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { copyProject, SECRETS, setFaults, simulatorForFile } from "./project.js";

const env = { AGENTS_STATE_KEY: "redaction-key" };
const c = simulatorForFile("provider_c");
let dir: string;

beforeAll(async () => {
  dir = await copyProject(
    fileURLToPath(new URL("./fixtures/crash-c", import.meta.url)),
    { C_API_KEY: SECRETS.C_API_KEY, GITHUB_TOKEN: SECRETS.GITHUB_TOKEN, C_BASE_URL: c.url },
    "agents-redaction-",
  );
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

it("redacts a secret echoed in a provider error and names the provider's error type", async () => {
  await setFaults(c, {
    rules: [
      {
        method: "POST",
        path: "/credentials$",
        action: {
          type: "status",
          status: 400,
          body: {
            type: "error",
            error: { type: "invalid_request_error", message: `token ${SECRETS.GITHUB_TOKEN} is malformed` },
          },
        },
      },
    ],
  });
  const result = await runCli(["apply", "-y"], { cwd: dir, env });
  await setFaults(c, {});
  expect(result.code).toBe(1);
  const output = result.stdout + result.stderr;
  expect(output).toContain("invalid_request_error");
  expect(output).toContain("token [redacted] is malformed");
  expect(output).not.toContain(SECRETS.GITHUB_TOKEN);
  expect(await fs.readFile(join(dir, "agents.state.json"), "utf8")).not.toContain(SECRETS.GITHUB_TOKEN);
});
