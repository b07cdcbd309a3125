// Remote ids are unique per provider only. Two fresh simulators draw the same ids, so provider_a's
// first vault gets the id provider_b's first vault already has: when provider_a's create loses its
// answer, the next apply must still adopt that vault (an id recorded for another provider's object
// is not this one), not create a second vault.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setFaults, simState } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";

const YAML = `version: "1"
providers:
  provider_a:
    api_key: \${A_API_KEY}
    workspace_id: llm-collide
    base_url: \${A_URL}
  provider_b:
    api_key: \${B_API_KEY}
    gateway: \${B_URL}
vaults:
  keys-a:
    provider: provider_a
    credentials:
      - { name: one, type: environment_variable, secret_name: ONE, secret_value: "\${SECRET}" }
  keys-b:
    provider: provider_b
    credentials:
      - { name: forge, type: static_bearer, mcp_server_url: "https://forge.example/mcp", access_token: "\${SECRET}" }
`;

async function liveVaults(sim: RunningSim): Promise<string[]> {
  const dump = (await simState(sim)) as { vaults?: Array<Record<string, unknown>> };
  return (dump.vaults ?? []).filter((v) => !v.archived_at && !v.deleted_at).map((v) => String(v.id));
}

let a: RunningSim;
let b: RunningSim;
let dir: string;
beforeAll(async () => {
  [a, b] = await Promise.all([
    startSim("provider_a", { quiet: true }),
    startSim("provider_b", { quiet: true }),
  ]);
  dir = mkdtempSync(join(tmpdir(), "agents-id-collision-"));
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("a lost create whose object has the id another provider's recorded object has", () => {
  it("is adopted, not made twice", async () => {
    const env = {
      A_API_KEY: "sim-provider-a-key",
      B_API_KEY: "sim-provider-b-key",
      A_URL: a.url,
      B_URL: b.url,
      SECRET: "id-collision-secret",
    };
    await fs.writeFile(
      join(dir, ".env"),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join("\n"),
    );
    await fs.writeFile(join(dir, "agents.yaml"), YAML);
    const agents = inProcessProject(dir, { AGENTS_STATE_KEY: "id-collision-key" });
    await setFaults(a, {
      rules: [{ method: "POST", path: "/vaults$", nth: 1, action: { type: "drop_response" } }],
    });
    const broken = await agents.apply();
    await setFaults(a, {});
    expect(broken.code, broken.text).toBe(1);
    const [made] = await liveVaults(a);
    expect(await liveVaults(b), "the simulators drew the same id").toEqual([made]);

    const again = await agents.apply();
    expect(again.code, again.text + again.error).toBe(0);
    expect(await liveVaults(a)).toEqual([made]);
    const plan = await agents.plan();
    expect(plan.plan!.actions.map((x) => x.action)).toEqual(["noop", "noop"]);
  });
});
