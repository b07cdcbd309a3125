import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { createSim, type RunningSim } from "../../src/index.js";
import { definition } from "../../src/provider-b/index.js";
import { type Call, client } from "../wire-client.js";

export const KEY = "sim-provider-b-key";
const AUTH = { authorization: `Bearer ${KEY}` };

/**
 * Starts one provider_b simulator for a test file and resets it before every test. Gives its three
 * clients: the Managed ("cloud") API, the Forward API and the `/_sim` control API; they may be
 * taken at the top of the file, before the simulator has started.
 */
export function useProviderB() {
  const h = {} as { sim: RunningSim };
  const lazyClient =
    (base: () => string, headers: Record<string, string>): Call =>
    (...args) =>
      client(base(), headers)(...args);
  const control = lazyClient(() => `${h.sim.origin}/_sim`, {});
  beforeAll(async () => {
    h.sim = await createSim(definition, { quiet: true });
  });
  afterAll(async () => {
    await h.sim.close();
  });
  beforeEach(async () => {
    await control("POST", "/reset");
  });
  return {
    get sim() {
      return h.sim;
    },
    api: lazyClient(() => h.sim.url, AUTH),
    fwd: lazyClient(() => `${h.sim.origin}/api/v1/forward`, AUTH),
    control,
  };
}

/** Small builders for the Managed objects most tests need. */
export function fixtures(api: Call) {
  return {
    async env(name = "e1", config: unknown = { type: "cloud" }) {
      const r = await api("POST", "/environments", { name, config, metadata: { "agents.project": "p" } });
      expect(r.status).toBe(200);
      return r.body;
    },
    async agent(name = "a1") {
      const r = await api("POST", "/agents", { name, model: "auto", system: "be brief" });
      expect(r.status).toBe(200);
      return r.body;
    },
  };
}
