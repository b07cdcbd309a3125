import { definition } from "../../src/provider-d/index.js";
import { openWire, type Wire } from "../support/wire.js";

export const KEY = "sim-provider-d-key";
export const openD = () => openWire(definition, () => ({ authorization: `Bearer ${KEY}` }));

export function fixtures(w: Wire) {
  return {
    env: (name = "env-one", extra: object = {}) => w.ok("POST", "/environments", { name, ...extra }),
    vault: (display_name = "vault-one") => w.ok("POST", "/vaults", { display_name }),
    agent: (name = "agent-one", extra: object = {}) =>
      w.ok("POST", "/agents", { name, model: { id: "doubao-seed" }, ...extra }),
    store: (name = "notes") => w.ok("POST", "/memory_stores", { name, description: "" }),
  };
}
