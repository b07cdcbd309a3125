import { definition } from "../../src/provider-c/index.js";
import { openWire, type Wire } from "../support/wire.js";

export const KEY = "sim-provider-c-key";
export const MANAGED = "managed-agents-2026-04-01";
export const MEMORY = "agent-memory-2026-07-22";
export const SKILLS = "skills-2025-10-02";
export const FILES = "files-api-2025-04-14";

/** The headers the SDK sends per resource family (memory stores get only the memory beta). */
export function headersFor(path: string): Record<string, string> {
  const beta = path.startsWith("/memory_stores")
    ? MEMORY
    : path.startsWith("/skills")
      ? SKILLS
      : path.startsWith("/files")
        ? FILES
        : MANAGED;
  return { "x-api-key": KEY, "anthropic-version": "2023-06-01", "anthropic-beta": beta };
}

export const openC = () => openWire(definition, headersFor);

/** Small builders for the objects most tests need. */
export function fixtures(w: Wire) {
  return {
    env: (name = "env-one", extra: object = {}) => w.ok("POST", "/environments", { name, ...extra }),
    vault: (display_name = "vault-one") => w.ok("POST", "/vaults", { display_name }),
    agent: (name = "agent-one", extra: object = {}) =>
      w.ok("POST", "/agents", { name, model: "claude-sonnet-4-5", ...extra }),
    store: (name = "notes") => w.ok("POST", "/memory_stores", { name }),
  };
}
