// provider_b Forward delivery through the CLI's steps in-process (in-process.ts): the Template and its Forward resources are
// applied, the default memory store stays pending until a Forward Session exists, is then
// renamed, and is retained on destroy (delete_on_destroy omitted).
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  copyProject,
  editConfig,
  requestLog,
  setFaults,
  simState,
  simulatorForFile,
} from "../e2e/project.js";
import { type InProcessProject, inProcessProject } from "./in-process.js";

const FIXTURE = fileURLToPath(new URL("../e2e/fixtures/forward-b", import.meta.url));
const SECRETS = {
  B_API_KEY: "sim-provider-b-key",
  DESK_CLIENT_ID: "desk-client-1",
  DESK_CLIENT_SECRET: "desk-secret-forward-9",
};

const b = simulatorForFile("provider_b");
let dir: string;
let agents: InProcessProject;

type Dump = Record<string, Record<string, any>[]>;
const dump = async () => (await simState(b)) as Dump;

beforeAll(async () => {
  dir = await copyProject(FIXTURE, { ...SECRETS, B_GATEWAY: b.url }, "agents-b-forward-");
  agents = inProcessProject(dir, { AGENTS_STATE_KEY: "b-forward-key" });
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("provider_b Forward delivery end to end", () => {
  it("applies the Template and its Forward resources; the default store is pending", async () => {
    const apply = await agents.apply();
    expect(apply.code).toBe(0);
    expect(apply.text + apply.error).toMatch(/default memory store pending/);
    expect(apply.text + apply.error).not.toContain(SECRETS.DESK_CLIENT_SECRET);
    const state = await dump();
    const template = state.templates!.find((t) => t.name === "concierge")!;
    expect(template).toMatchObject({
      environment_variables: { REGION: "cn" },
      managed_tool_config: {
        enabled_tools: ["create_forward_schedule", "list_forward_schedules", "delete_forward_schedule"],
      },
    });
    // Environment and explicit store were created through the Forward API, the store mounted read-only.
    expect(state.environments!.find((e) => e.id === template.environment_id)?._domain).toBe("forward");
    const store = state.memory_stores!.find((m) => m.name === "policies")!;
    expect(store._domain).toBe("forward");
    expect(state.mounts).toEqual([
      expect.objectContaining({ memory_store_id: store.id, template_id: template.id, access: "read_only" }),
    ]);
    expect(state.channels).toEqual([
      expect.objectContaining({ template_id: template.id, channel_type: "dingtalk" }),
    ]);
  });

  it("says the default store is pending until a Session creates it, which is not drift", async () => {
    const plan = await agents.plan();
    expect(plan.text).toContain("default memory store pending");
    expect(plan.text).toContain("No changes.");
    expect(plan.code).toBe(0);
  });

  it("after the first Forward Session, apply renames the store and the plan is clean", async () => {
    const state = await dump();
    const template = state.templates!.find((t) => t.name === "concierge")!;
    const identity = state.identities!.find((i) => i.external_id === "user-1")!;
    const session = await fetch(`${b.origin}/api/v1/forward/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRETS.B_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ identity_id: identity.id, template_id: template.id }),
    });
    expect(session.ok).toBe(true);
    // The first rename is what the file asks for and the pending store could not take yet: the
    // plan shows it as a change of the config, not as a change made outside agents.
    const before = await agents.plan();
    expect(before.code, before.text + before.error).toBe(2);
    expect(before.text).toMatch(/~ default_memory_store\.name: ".*" → "Concierge memory"/);
    expect(before.text).not.toContain("(changed outside agents)");
    expect(before.text).not.toContain("drift");
    const apply = await agents.apply();
    expect(apply.code).toBe(0);
    const renamed = (await dump()).memory_stores!.find((m) => m.system_managed);
    expect(renamed).toMatchObject({
      name: "Concierge memory",
      description: "What the concierge learned about this user",
    });
    const plan = await agents.plan();
    expect(plan.text).toContain("No changes.");
    expect(plan.code).toBe(0);
  });

  it("destroy removes the project's resources and retains the default store", async () => {
    const destroy = await agents.destroy();
    expect(destroy.code).toBe(0);
    const state = await dump();
    expect(state.templates!.every((t) => t.status === "archived")).toBe(true);
    expect(state.identities ?? []).toEqual([]);
    expect((state.channels ?? []).filter((c) => !c.deleted_at)).toEqual([]);
    const liveStores = state.memory_stores!.filter((m) => !m.archived_at);
    expect(liveStores.map((m) => m.name)).toEqual(["Concierge memory"]);
  });
});

describe("provider_b default memory store with delete_on_destroy: true", () => {
  it("captures the store before the Template goes, reports a partial destroy, and the next destroy resumes it", async () => {
    await fetch(`${b.origin}/_sim/reset`, { method: "POST" });
    await fs.rm(join(dir, "agents.state.json"), { force: true });
    await editConfig(
      dir,
      "      description: What the concierge learned about this user\n",
      "      description: What the concierge learned about this user\n      delete_on_destroy: true\n",
    );
    expect((await agents.apply()).code).toBe(0);
    const before = await dump();
    const template = before.templates!.find((t) => t.name === "concierge")!;
    const identity = before.identities!.find((i) => i.external_id === "user-1")!;
    await fetch(`${b.origin}/api/v1/forward/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRETS.B_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ identity_id: identity.id, template_id: template.id }),
    });
    expect((await agents.apply()).code).toBe(0);
    const store = (await dump()).memory_stores!.find((m) => m.system_managed)!;

    // The permanent delete is refused (a permission error fails at once, no retry loop).
    await setFaults(b, {
      rules: [
        { method: "DELETE", path: `/memory_stores/${store.id}$`, action: { type: "status", status: 403 } },
      ],
    });
    const partial = await agents.destroy();
    expect(partial.code).toBe(1);
    expect(partial.text).toContain("partial destroy");
    // Rule 4: a permission error fails at once: one attempt, no retry, no archive fallback.
    const storeCalls = (await requestLog(b)).filter((e) =>
      new RegExp(`^(/api/v1/cloud)?/memory_stores/${store.id}(/archive)?$`).test(e.path),
    );
    const writes = storeCalls.filter((e) => e.method === "DELETE" || e.path.endsWith("/archive"));
    expect(writes.map((e) => `${e.method} ${e.status}`)).toEqual(["DELETE 403"]);
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(Object.keys(state.resources)).toEqual([]);
    expect(Object.values(state.deferred)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ store_id: store.id }) }),
    ]);
    expect((await dump()).memory_stores!.find((m) => m.id === store.id)?.archived_at ?? null).toBeNull();

    await setFaults(b, {});
    const resumed = await agents.destroy();
    expect(resumed.code, resumed.text + resumed.error).toBe(0);
    const after = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(after.deferred).toBeUndefined();
    const gone = (await dump()).memory_stores!.find((m) => m.id === store.id);
    expect(gone === undefined || Boolean(gone.archived_at) || Boolean(gone.deleted_at)).toBe(true);
  });
});
