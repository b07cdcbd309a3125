// A provider error that echoes a secret back never reaches the terminal or the state.
import { cpSync, promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { SECRETS, setFaults } from "./project.js";

const env = { AGENTS_STATE_KEY: "redaction-key" };
let c: RunningSim;
let dir: string;

beforeAll(async () => {
  c = await startSim("provider_c", { quiet: true });
  dir = mkdtempSync(join(tmpdir(), "agents-redaction-"));
  cpSync(fileURLToPath(new URL("./fixtures/crash-c", import.meta.url)), dir, { recursive: true });
  await fs.writeFile(
    join(dir, ".env"),
    `C_API_KEY=${SECRETS.C_API_KEY}\nGITHUB_TOKEN=${SECRETS.GITHUB_TOKEN}\nC_BASE_URL=${c.url}\n`,
  );
});
afterAll(async () => {
  await c?.close();
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
