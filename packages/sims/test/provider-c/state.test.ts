import { describe, expect, it } from "vitest";
import { fileForm, skillForm, skillMd, useWire } from "../support/wire.js";
import { fixtures, openC } from "./setup.js";

const w = useWire(openC);

const KINDS = [
  "environments",
  "reserved_environment_names",
  "vaults",
  "credentials",
  "files",
  "skills",
  "skill_versions",
  "agents",
  "agent_versions",
  "memory_stores",
  "memories",
  "memory_versions",
  "deployments",
  "deployment_runs",
  "sessions",
  "session_events",
  "session_threads",
  "thread_events",
];

/** Builds one of everything, archiving some, so the dump can be checked for completeness. */
async function populate() {
  const f = fixtures(w);
  const env = await f.env();
  const archivedEnv = await f.env("old");
  await w.ok("POST", `/environments/${archivedEnv.id}/archive`);
  const vault = await f.vault();
  const cred = await w.ok("POST", `/vaults/${vault.id}/credentials`, {
    auth: { type: "static_bearer", token: "tok-SECRET-1", mcp_server_url: "https://mcp.example.com" },
  });
  const file = await w.ok("POST", "/files", { form: fileForm("a.md", "file body") });
  const skill = await w.ok("POST", "/skills", { form: skillForm({ "sk/SKILL.md": skillMd("sk") }) });
  const agent = await f.agent();
  await w.ok("POST", `/agents/${agent.id}`, { version: 1, system: "v2" });
  await w.ok("POST", `/agents/${agent.id}/archive`);
  const live = await f.agent("live");
  const store = await f.store();
  const mem = await w.ok("POST", `/memory_stores/${store.id}/memories`, { path: "/a.md", content: "m" });
  const dep = await w.ok("POST", "/deployments", {
    name: "d",
    agent: live.id,
    environment_id: env.id,
    initial_events: [{ type: "user.message", content: [{ type: "text", text: "x" }] }],
  });
  const run = await w.ok("POST", `/deployments/${dep.id}/run`);
  return { env, archivedEnv, vault, cred, file, skill, agent, live, store, mem, dep, run };
}

describe("provider_c /_sim/state", () => {
  it("dumps every kind, archived objects included, secrets only as sha256", async () => {
    const o = await populate();
    const state = (await w.control("GET", "/state")).body;
    expect(Object.keys(state).sort()).toEqual([...KINDS].sort());
    const ids = (k: string) => state[k].map((x: any) => x.id);
    expect(ids("environments")).toEqual(expect.arrayContaining([o.env.id, o.archivedEnv.id]));
    expect(ids("agents")).toEqual(expect.arrayContaining([o.agent.id, o.live.id]));
    expect(state.agents.find((a: any) => a.id === o.agent.id).archived_at).toEqual(expect.any(String));
    expect(state.agent_versions.filter((v: any) => v.id === o.agent.id).map((v: any) => v.version)).toEqual([
      1, 2,
    ]);
    expect(ids("credentials")).toEqual([o.cred.id]);
    expect(state.credentials[0].secrets_sha256).toEqual({
      token_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(state)).not.toContain("tok-SECRET-1");
    expect(state.files[0]).toMatchObject({
      id: o.file.id,
      content_base64: Buffer.from("file body").toString("base64"),
    });
    expect(ids("skills")).toEqual([o.skill.id]);
    expect(state.skill_versions[0].files.map((f: any) => f.path)).toEqual(["sk/SKILL.md"]);
    expect(ids("memories")).toEqual([o.mem.id]);
    expect(state.memory_versions).toHaveLength(1);
    expect(ids("deployment_runs")).toEqual([o.run.id]);
    expect(ids("sessions")).toEqual([o.run.session_id]);
    expect(state.session_events.every((e: any) => e.session_id === o.run.session_id)).toBe(true);
  });

  it("seed takes the dump's shape: a dump seeded into a fresh simulator serves the same objects", async () => {
    const o = await populate();
    const dump = (await w.control("GET", "/state")).body;
    w.sim.reset();
    expect((await w.ok("GET", "/agents?include_archived=true")).data).toEqual([]);
    const seeded = (await w.control("POST", "/seed", dump)).body.seeded;
    expect(seeded).toMatchObject({ agents: 2, credentials: 1, memories: 1, skills: 1 });
    expect(await w.ok("GET", `/agents/${o.live.id}`)).toEqual(o.live);
    expect((await w.ok("GET", `/agents/${o.agent.id}/versions`)).data).toHaveLength(2);
    expect(await w.ok("GET", `/memory_stores/${o.store.id}/memories/${o.mem.id}`)).toEqual(o.mem);
    expect(
      (await w.call("GET", `/skills/${o.skill.id}/versions/${o.skill.latest_version_id}/content`)).status,
    ).toBe(200);
    expect((await w.control("GET", "/state")).body).toEqual(dump);
  });

  it("reset rewinds the simulated clock: new objects get current timestamps again", async () => {
    const simNow = async () => (await w.control("GET", "/clock")).body.now_ms as number;
    const created = async () => {
      const before = await simNow();
      const env = await fixtures(w).env();
      return { before, at: Date.parse(env.created_at), after: await simNow() };
    };
    const start = await simNow();
    await w.control("POST", "/clock", { advance_seconds: 86_400 });
    const future = await created();
    await w.control("POST", "/reset");
    const now = await created();
    // Each timestamp is the simulator's clock at creation; the reset moved that clock back a day.
    for (const c of [future, now]) {
      expect(c.at).toBeGreaterThanOrEqual(Math.floor(c.before / 1000) * 1000);
      expect(c.at).toBeLessThanOrEqual(c.after);
    }
    expect(future.before).toBeGreaterThanOrEqual(start + 86_400_000);
    expect(now.after).toBeLessThan(future.before);
  });

  it("reset empties every kind", async () => {
    await populate();
    w.sim.reset();
    const state = (await w.control("GET", "/state")).body;
    for (const k of KINDS) expect(state[k], k).toEqual([]);
  });
});
