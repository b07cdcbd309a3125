import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { createSim, type RunningSim } from "../../src/index.js";
import { definition } from "../../src/provider-a/index.js";
import { type Call, client, form, skillZip } from "../wire-client.js";

export const KEY = "sim-provider-a-key";

/** Starts one provider_a simulator for a test file and resets it before every test. */
export function useProviderA() {
  const h = {} as { sim: RunningSim; api: Call; control: Call };
  beforeAll(async () => {
    h.sim = await createSim(definition, { quiet: true });
    h.api = client(h.sim.url, { authorization: `Bearer ${KEY}` });
    h.control = client(`${h.sim.origin}/_sim`, {});
  });
  afterAll(async () => {
    await h.sim.close();
  });
  beforeEach(async () => {
    await h.control("POST", "/reset");
  });
  return h;
}

export const ERROR = { type: "error", error: { code: expect.any(String), message: expect.any(String) } };

export async function upload(api: Call, name: string, bytes: Uint8Array, type = "application/octet-stream") {
  const r = await api("POST", "/files", form({ file: { name, type, bytes } }));
  expect(r.status).toBe(200);
  return r.body;
}

/** Uploads a skill zip and polls its file until the audit lets it through (one poll by default). */
export async function availableSkillFile(api: Call, name: string, extra?: string) {
  const f = await upload(api, `${name}.zip`, skillZip(name, undefined, extra ?? "does things"));
  expect(f.status).toBe("checking");
  expect((await api("GET", `/files/${f.id}`)).body.status).toBe("checking");
  expect((await api("GET", `/files/${f.id}`)).body.status).toBe("available");
  return f;
}
