// provider_a against its simulator over real sockets: create → read (planner diff) → update →
// findOwned → remove per kind, with the file audit and skill scan waited for by advancing the
// simulator's clock instead of sleeping.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProviderA } from "../../../src/providers/provider-a/definition.js";
import type { Spec } from "../../../src/providers/types.js";
import { desiredOf, drift, type Harness, makeHarness, writeSkill } from "../harness.js";

let sim: RunningSim;
let h: Harness;
let waited = 0;

beforeAll(async () => {
  sim = await startSim("provider_a", { port: 0, quiet: true });
  const fast = { initialMs: 1_000, factor: 2, maxDelayMs: 60_000, timeoutMs: 600_000 };
  const adapter = createProviderA({
    fileAudit: fast,
    skillScan: fast,
    skillFileRetryMs: [1_000],
    // The adapter's waits move the simulator's clock: bounded, and no real sleeping.
    sleep: async (ms) => {
      waited += ms;
      sim.clock.advance(ms);
    },
  });
  h = await makeHarness(adapter, { api_key: "sim-provider-a-key", workspace_id: "llm-test" }, sim.url);
  await writeFile(join(h.configDir, "report.csv"), "a,b\n1,2\n");
  await writeSkill(h.configDir, "charts");
});
afterAll(async () => {
  await sim?.close();
});

async function wire<T = Record<string, any>>(path: string): Promise<T> {
  return (await h.http.request<T>({ method: "GET", path })).body;
}

async function noDrift(kind: "environments" | "vaults" | "agents", name: string, id: string, spec: Spec) {
  const handler = h.handler(kind);
  const desired = await desiredOf(handler, spec, h.configDir, name);
  const read = await handler.read(h.ctx(kind, name), id, { id, spec: desired });
  expect(read).not.toBe("gone");
  expect(drift(handler, desired, (read as { spec: Spec }).spec)).toEqual([]);
}

/** The vault tests' credentials: `default`, and `narrow` (limited to `hosts`). */
const DEFAULT_CREDENTIAL = {
  name: "default",
  type: "environment_variable",
  secret_name: "A_KEY",
  secret_value: "secret-aaaa",
};
const narrow = (hosts: string[], extra: Record<string, unknown> = {}) => ({
  name: "narrow",
  type: "environment_variable",
  secret_name: "B_KEY",
  secret_value: "secret-bbbb",
  networking: { type: "limited", allowed_hosts: hosts },
  ...extra,
});

describe("provider_a", () => {
  it("environment: create → no drift → update → findOwned → delete", async () => {
    const handler = h.handler("environments");
    const spec = { config: { type: "cloud", packages: { pip: ["pandas"] } }, metadata: { team: "data" } };
    const env = await h.create("environments", "sandbox", spec);
    expect(env.id).toMatch(/^env_/);
    await noDrift("environments", "sandbox", env.id, spec);
    await handler.update!(
      h.ctx("environments", "sandbox"),
      env.id,
      { ...spec, description: "analysis" },
      { id: env.id, spec },
    );
    expect((await wire(`/environments/${env.id}`)).description).toBe("analysis");
    expect(
      (await handler.findOwned!(h.ctx("environments", "sandbox"), h.ctx("environments", "sandbox").owner))
        ?.id,
    ).toBe(env.id);
    // A repeated create (crash before state was written) adopts our own environment.
    expect((await handler.create(h.ctx("environments", "sandbox"), spec)).id).toBe(env.id);
  });

  it("vault: credential policy nested under auth, defaults applied, no secret read back", async () => {
    const spec = {
      credentials: [
        DEFAULT_CREDENTIAL,
        narrow(["api.example.com", "*.example.org"], { injection_location: { header: false, body: true } }),
        {
          name: "legacy",
          type: "environment_variable",
          secret_name: "C_KEY",
          secret_value: "secret-cccc",
          networking: { type: "unrestricted" },
        },
      ],
    };
    const vault = await h.create("vaults", "keys", spec);
    const creds = (await wire<{ data: any[] }>(`/vaults/${vault.id}/credentials`)).data;
    const byName = Object.fromEntries(creds.map((c) => [c.display_name, c.auth]));
    expect(byName.default).toMatchObject({
      networking: { allowed_hosts: ["*"] },
      injection_location: { header: true, body: false },
    });
    expect(byName.narrow).toMatchObject({
      networking: { type: "limited", allowed_hosts: ["api.example.com", "*.example.org"] },
      injection_location: { header: false, body: true },
    });
    expect(byName.legacy.networking.allowed_hosts ?? ["*"]).toEqual(["*"]);
    expect(JSON.stringify(creds)).not.toMatch(/secret-(aaaa|bbbb|cccc)/);
    await noDrift("vaults", "keys", vault.id, spec);
  });

  it("vault retry adoption keeps exact credential matches and replaces a different policy", async () => {
    const handler = h.handler("vaults");
    const vaultId = h.refs.get("vaults/keys")!.id;
    const before = (await wire<{ data: any[] }>(`/vaults/${vaultId}/credentials`)).data;
    const spec = {
      credentials: [DEFAULT_CREDENTIAL, narrow(["api.example.com"])],
    };
    // The engine adopts a vault of ours left by an interrupted run through findOwned + update.
    const owned = await handler.findOwned!(h.ctx("vaults", "keys"), h.ctx("vaults", "keys").owner);
    expect(owned?.id).toBe(vaultId);
    const adopted = await handler.update!(h.ctx("vaults", "keys"), vaultId, spec, {
      id: vaultId,
      spec: owned!.spec,
    });
    expect(adopted.id).toBe(vaultId);
    const after = (await wire<{ data: any[] }>(`/vaults/${vaultId}/credentials`)).data.filter(
      (c) => !c.archived_at,
    );
    const id = (list: any[], name: string) => list.find((c) => c.display_name === name)?.id;
    expect(id(after, "default")).toBe(id(before, "default"));
    expect(id(after, "narrow")).not.toBe(id(before, "narrow"));
    expect(after.find((c) => c.display_name === "narrow").auth.networking.allowed_hosts).toEqual([
      "api.example.com",
    ]);
    expect(after.map((c) => c.display_name).sort()).toEqual(["default", "narrow"]); // "legacy" was not declared
    await handler.remove(h.ctx("vaults", "keys"), vaultId);
    expect(await handler.read(h.ctx("vaults", "keys"), vaultId)).toBe("gone");
  });

  it("file: basename upload, audited before use, deleted", async () => {
    const handler = h.handler("files");
    waited = 0;
    const file = await h.create("files", "report", { source: "report.csv", name: "label only" });
    const remote = await wire(`/files/${file.id}`);
    expect(remote).toMatchObject({ filename: "report.csv", status: "available" });
    expect(h.warnings.some((w) => /content audit/.test(w))).toBe(true);
    await handler.remove(h.ctx("files", "report"), file.id);
    expect(await handler.read(h.ctx("files", "report"), file.id)).toBe("gone");
  });

  it("skill: zip through the Files API, scan awaited, new version on update", async () => {
    const handler = h.handler("skills");
    h.warnings.length = 0;
    const skill = await h.create("skills", "charts", { source: "charts" });
    expect(h.warnings.join("\n")).toMatch(/security scan/);
    expect((await wire(`/skills/${skill.id}`)).name).toBe("charts");
    await writeSkill(h.configDir, "charts", "Draw better charts.");
    const updated = await handler.update!(
      h.ctx("skills", "charts"),
      skill.id,
      { source: "charts" },
      { id: skill.id, spec: {} },
    );
    expect(updated.extra?.version).not.toBe(skill.extra?.version);
    h.refs.set("skills/charts", updated);
  });

  it("agent: skill with its active version, roster of ids, empty roster on update, archive", async () => {
    const handler = h.handler("agents");
    const member = await h.create("agents", "analyst", { model: "qwen-max", instructions: "analyse" });
    const spec = {
      model: { provider_a: "qwen-max" },
      instructions: "coordinate the analysts",
      tools: { builtin: ["bash", "read"] },
      skills: ["charts"],
      multiagent: { type: "coordinator", agents: ["analyst"] },
      metadata: { team: "data" },
    };
    const lead = await h.create("agents", "lead", spec);
    const remote = await wire(`/agents/${lead.id}`);
    expect(remote.skills).toEqual([
      {
        type: "customer",
        skill_id: h.refs.get("skills/charts")!.id,
        version: h.refs.get("skills/charts")!.extra!.version,
      },
    ]);
    expect(remote.multiagent).toEqual({ type: "coordinator", agents: [{ type: "agent", id: member.id }] });
    await noDrift("agents", "lead", lead.id, spec);

    const { multiagent: _gone, ...solo } = spec;
    const updated = await handler.update!(h.ctx("agents", "lead"), lead.id, solo, { id: lead.id, spec: {} });
    expect(updated.version).toBe(2);
    expect((await wire(`/agents/${lead.id}`)).multiagent ?? null).toBeNull();
    expect((await handler.findOwned!(h.ctx("agents", "lead"), h.ctx("agents", "lead").owner))?.id).toBe(
      lead.id,
    );
  });

  it("deployment: schedule, message events, file uploaded from source; update clears; archive", async () => {
    const handler = h.handler("deployments");
    h.warnings.length = 0;
    const spec = {
      agent: "lead",
      environment: "sandbox",
      initial_events: [
        { type: "system.message", content: "be brief" },
        { type: "user.message", content: "weekly numbers" },
        { type: "user.define_outcome", description: "a chart" },
      ],
      resources: [{ type: "file", source: "report.csv", mount_path: "input/report.csv" }],
      schedule: { expression: "0 9 * * 1", timezone: "Asia/Shanghai" },
      description: "weekly",
    };
    const dep = await h.create("deployments", "weekly", spec);
    expect(h.warnings.join()).toMatch(/define_outcome/);
    const remote = await wire(`/deployments/${dep.id}`);
    expect(remote).toMatchObject({
      agent: { id: h.refs.get("agents/lead")!.id },
      schedule: { type: "cron", expression: "0 9 * * 1", timezone: "Asia/Shanghai" },
    });
    expect(remote.resources).toEqual([
      expect.objectContaining({ type: "file", mount_path: "/mnt/input/report.csv" }),
    ]);
    expect(remote.initial_events).toHaveLength(2);

    // Run now: a deployment run that starts a session with the initial events.
    const run = await handler.run!(h.ctx("deployments", "weekly"), dep.id, { id: dep.id, spec: {} });
    expect(run.run_id).toMatch(/^drun_/);
    expect(run.session_id).toMatch(/^sesn_/);
    const uploaded = (dep.extra!.uploads as Record<string, { id: string }>)["report.csv"]!.id;
    const { schedule: _s, description: _d, resources: _r, ...manual } = spec;
    await handler.update!(h.ctx("deployments", "weekly"), dep.id, manual, {
      id: dep.id,
      spec: {},
      extra: dep.extra,
    });
    // The upload the deployment no longer uses is deleted, not left behind.
    expect(
      (await h.http.request({ method: "GET", path: `/files/${uploaded}`, allowStatus: [404] })).status,
    ).toBe(404);
    const after = await wire(`/deployments/${dep.id}`);
    expect(after.schedule ?? null).toBeNull();
    expect(after.description ?? "").toBe("");
    expect(after.resources ?? []).toEqual([]);
    await handler.remove(h.ctx("deployments", "weekly"), dep.id);
    expect(await handler.read(h.ctx("deployments", "weekly"), dep.id)).toBe("gone");
  });

  it("teardown: agents archive, skill and environment delete; waits stayed bounded", async () => {
    for (const name of ["lead", "analyst"]) {
      const id = h.refs.get(`agents/${name}`)!.id;
      await h.handler("agents").remove(h.ctx("agents", name), id);
      expect(await h.handler("agents").read(h.ctx("agents", name), id)).toBe("gone");
    }
    const skillId = h.refs.get("skills/charts")!.id;
    await h.handler("skills").remove(h.ctx("skills", "charts"), skillId);
    expect(await h.handler("skills").read(h.ctx("skills", "charts"), skillId)).toBe("gone");
    const envId = h.refs.get("environments/sandbox")!.id;
    await h.handler("environments").remove(h.ctx("environments", "sandbox"), envId);
    expect(await h.handler("environments").read(h.ctx("environments", "sandbox"), envId)).toBe("gone");
    expect(waited).toBeLessThan(600_000);
  });
});
