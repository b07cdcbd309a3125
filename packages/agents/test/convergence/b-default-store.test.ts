// provider_b default memory store, delete_on_destroy: true, through the CLI's steps in-process: the
// destroy rules test/convergence/b-forward.test.ts does not reach. Rule 4: a preflight that cannot
// resolve the Identity aborts before anything is deleted. Rules 1-2: the store id is captured
// first, the permanent delete runs only after the Template is archived and the Identity deleted
// (which removes the system mount), and a still-mounted conflict is retried (bounded) until it
// clears.
import { cpSync, promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_ADAPTERS } from "../../src/providers/catalog.js";
import { createProviderB } from "../../src/providers/provider-b/definition.js";
import { editConfig, requestLog, setFaults, simState, simulatorForFile } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";

const FIXTURE = fileURLToPath(new URL("../e2e/fixtures/forward-b", import.meta.url));
const SECRETS = {
  B_API_KEY: "sim-provider-b-key",
  DESK_CLIENT_ID: "desk-1",
  DESK_CLIENT_SECRET: "desk-s-77",
};
type Obj = Record<string, any>;

const b = simulatorForFile("provider_b");
let dir: string;
let template: Obj;
let identity: Obj;
let store: Obj;
/**
 * The CLI's steps in-process (in-process.ts), with the variables the CLI ran with; provider_b's
 * still-mounted retries wait 1, 2, 4 and 8 ms instead of seconds (3 s of the file's time): the
 * waits and their bound are tested in test/providers/provider-b/forward.sim.test.ts.
 */
const ADAPTERS = ALL_ADAPTERS.map((a) =>
  a.name === "provider_b" ? createProviderB({ storeDeleteRetryMs: [1, 2, 4, 8] }) : a,
);
const agents = () =>
  inProcessProject(dir, { AGENTS_STATE_KEY: "b-default-store-key" }, { adapters: ADAPTERS });
const dump = async () => (await simState(b)) as Record<string, Obj[]>;
const readState = async () => JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-b-default-store-"));
  cpSync(FIXTURE, dir, { recursive: true });
  await fs.writeFile(
    join(dir, ".env"),
    Object.entries({ ...SECRETS, B_GATEWAY: b.url })
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  await editConfig(
    dir,
    "      description: What the concierge learned about this user\n",
    "      description: What the concierge learned about this user\n      delete_on_destroy: true\n",
  );
  expect((await agents().apply()).code).toBe(0);
  const state = await dump();
  template = state.templates!.find((t) => t.name === "concierge")!;
  identity = state.identities!.find((i) => i.external_id === "user-1")!;
  const session = await fetch(`${b.origin}/api/v1/forward/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${SECRETS.B_API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ identity_id: identity.id, template_id: template.id }),
  });
  expect(session.ok).toBe(true);
  expect((await agents().apply()).code).toBe(0);
  store = (await dump()).memory_stores!.find((m) => m.system_managed)!;
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("default memory store with delete_on_destroy: true", () => {
  it("rule 4: the preflight cannot resolve the Identity, so destroy aborts before deleting anything", async () => {
    const resourcesBefore = Object.keys((await readState()).resources).sort();
    const seq = (await requestLog(b)).at(-1)!.seq;
    await setFaults(b, {
      rules: [
        {
          method: "GET",
          path: `/identities/${identity.id}$`,
          repeat: true,
          action: { type: "status", status: 403 },
        },
      ],
    });
    const destroy = await agents().destroy();
    await setFaults(b, {});
    expect(destroy.code).toBe(1);
    // Not one write reached the provider: no archive, no delete, no update.
    const mutations = (await requestLog(b)).filter((e) => e.seq > seq && e.method !== "GET");
    expect(mutations).toEqual([]);
    const state = await readState();
    expect(Object.keys(state.resources).sort()).toEqual(resourcesBefore);
    expect(state.deferred).toBeUndefined();
    const d = await dump();
    expect(d.templates!.find((t) => t.id === template.id)?.status).toBe("active");
    expect(d.identities!.map((i) => i.id)).toContain(identity.id);
  });

  it("rules 1-2: captured first, deleted after the Template and Identity, a still-mounted conflict retried", async () => {
    const seq = (await requestLog(b)).at(-1)!.seq;
    // The platform is slow to drop the system mount: the first two deletes answer "still mounted".
    const stillMounted = {
      type: "status",
      status: 409,
      body: {
        error: { type: "conflict_error", code: "MEMORY_STORE_STILL_MOUNTED", message: "still mounted" },
      },
    };
    // A rule that fires stops the search, so two "first matching call" rules answer calls 1 and 2.
    const rule = {
      method: "DELETE",
      path: `/cloud/memory_stores/${store.id}$`,
      nth: 1,
      action: stillMounted,
    };
    await setFaults(b, { rules: [rule, rule] });
    const destroy = await agents().destroy();
    await setFaults(b, {});
    expect(destroy.code, destroy.text + destroy.error).toBe(0);
    const log = (await requestLog(b)).filter((e) => e.seq > seq);
    const at = (method: string, path: RegExp) =>
      log.findIndex((e) => e.method === method && path.test(e.path));
    const archived = at("POST", new RegExp(`/templates/${template.id}/archive$`));
    const identityGone = at("DELETE", new RegExp(`/identities/${identity.id}$`));
    const storeDelete = new RegExp(`^(/api/v1/cloud)?/memory_stores/${store.id}$`);
    const storeDeletes = log.filter((e) => e.method === "DELETE" && storeDelete.test(e.path));
    expect(archived).toBeGreaterThanOrEqual(0);
    expect(identityGone).toBeGreaterThan(archived);
    expect(at("DELETE", storeDelete)).toBeGreaterThan(identityGone);
    expect(storeDeletes.map((e) => e.status)).toEqual([409, 409, 200]);
    const after = await readState();
    expect(after.resources).toEqual({});
    expect(after.deferred).toBeUndefined();
    const gone = (await dump()).memory_stores!.find((m) => m.id === store.id);
    expect(gone === undefined || Boolean(gone.archived_at) || Boolean(gone.deleted_at)).toBe(true);
  });
});
