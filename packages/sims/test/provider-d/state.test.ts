import { describe, expect, it } from "vitest";
import { fileForm, skillMd, skillZipForm, useWire } from "../support/wire.js";
import { fixtures, openD } from "./setup.js";

const w = useWire(openD);

describe("provider_d /_sim/state", () => {
  it("dumps every object, reserved environment names and credential fingerprints; seed round-trips", async () => {
    const f = fixtures(w);
    const gone = await f.env("gone");
    await w.ok("DELETE", `/environments/${gone.id}`);
    const env = await f.env("kept");
    const vault = await f.vault();
    await w.ok("POST", `/vaults/${vault.id}/credentials`, {
      auth: { type: "environment_variable", secret_name: "K", secret_value: "SECRET-VALUE" },
    });
    await w.ok("POST", "/files", { form: fileForm("a.md", "x", "text/markdown", { purpose: "agent" }) });
    const skill = await w.ok("POST", "/skills", {
      form: skillZipForm({ "s/SKILL.md": skillMd("s") }, "s.zip"),
    });
    const agent = await f.agent();
    const store = await f.store();
    await w.ok("POST", `/memory_stores/${store.id}/memories/batch_create`, {
      items: [
        { path: "/a", content: "1" },
        { path: "/b", content: "2" },
      ],
    });
    const session = await w.ok("POST", "/sessions", { agent: agent.id, environment_id: env.id });
    await w.ok("POST", `/sessions/${session.id}/events`, {
      events: [{ type: "user.message", content: [{ type: "text", text: "x" }] }],
    });

    const dump = (await w.control("GET", "/state")).body;
    expect(dump.environments.map((e: any) => e.id)).toEqual([env.id]);
    expect(dump.reserved_environment_names).toEqual([{ name: "gone", reserved_until: expect.any(String) }]);
    expect(dump.credentials[0].secrets_sha256).toEqual({
      secret_value_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(dump)).not.toContain("SECRET-VALUE");
    expect(dump.files).toHaveLength(1);
    expect(dump.skills.map((s: any) => s.id)).toEqual([skill.id]);
    expect(dump.memories).toHaveLength(2);
    expect(dump.memory_versions).toEqual([]);
    expect(dump.deployments).toEqual([]);
    expect(dump.session_events.length).toBeGreaterThan(0);

    w.sim.reset();
    await w.control("POST", "/seed", dump);
    expect((await w.control("GET", "/state")).body).toEqual(dump);
    expect((await w.call("POST", "/environments", { json: { name: "gone" } })).status).toBe(409);
  });
});
