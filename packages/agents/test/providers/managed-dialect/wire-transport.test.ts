// Error bodies, conflict detection, environment names and headers of provider_c and provider_d.
import { describe, expect, it } from "vitest";
import { logicalNameOf } from "../../../src/model/address.js";
import { parseFrontmatter } from "../../../src/providers/common/local-files.js";
import { agentReverseRefs } from "../../../src/providers/managed-dialect/agent.js";
import { betaFor, parseProviderCError, providerCHeaders } from "../../../src/providers/provider-c/client.js";
import { providerC } from "../../../src/providers/provider-c/definition.js";
import { parseSkillOwnerTag, skillOwnerTag } from "../../../src/providers/provider-c/wire-decisions.js";
import { parseProviderDError } from "../../../src/providers/provider-d/client.js";
import { providerD } from "../../../src/providers/provider-d/definition.js";
import {
  isOwnName,
  nameAttempts,
  normalizeEnvironmentName,
  suffixedName,
} from "../../../src/providers/provider-d/environment-names.js";
import { fakeResolver } from "./fixtures.js";

/** The provider's rule for environment names, as its API states it (the simulator enforces the same). */
const ENVIRONMENT_NAME_PATTERN = /^[a-z0-9][a-z0-9-_.]{2,63}$/;

describe("provider_c error body {type:'error', error:{type, message}, request_id}", () => {
  const rows: Array<[number, string, string]> = [
    [400, "invalid_request_error", "bad field"],
    [401, "authentication_error", "invalid x-api-key"],
    [403, "permission_error", "nope"],
    [404, "not_found_error", "no such agent"],
    [409, "memory_precondition_failed_error", "sha mismatch"],
    [429, "rate_limit_error", "slow down"],
    [529, "overloaded_error", "busy"],
  ];
  it.each(rows)("%i %s", (status, type, message) => {
    const parsed = parseProviderCError(status, {
      type: "error",
      error: { type, message },
      request_id: "req_1",
    });
    expect(parsed).toEqual({ code: type, message: `${message} (request req_1)`, conflict: false });
  });
  it("a body that is not the error shape still yields a code", () => {
    expect(parseProviderCError(502, "<html>")).toEqual({ code: "http_502", conflict: false });
  });
});

describe("provider_d error body {error:{code, message}} and conflicts", () => {
  const rows: Array<[number, unknown, boolean]> = [
    [409, { error: { code: "Conflict", message: "x" } }, true],
    [400, { error: { code: "ResourceConflict", message: "x" } }, true],
    [
      400,
      { error: { code: "InvalidParameter", message: 'name: "x" already exists in project "default"' } },
      true,
    ],
    [400, { error: { code: "InvalidParameter", message: "Already Exists" } }, true],
    [400, { error: { code: "InvalidParameter", message: "bad name" } }, false],
    [404, { error: { code: "NotFound", message: "no" } }, false],
    [401, { error: { code: "AuthenticationError", message: "bad key" } }, false],
  ];
  it.each(rows)("%i %j → conflict %s", (status, body, conflict) => {
    expect(parseProviderDError(status, body).conflict).toBe(conflict);
  });
  it("code and message are taken from the body", () => {
    expect(parseProviderDError(401, { error: { code: "AuthenticationError", message: "bad key" } })).toEqual({
      code: "AuthenticationError",
      message: "bad key",
      conflict: false,
    });
  });
});

describe("provider_d environment names (docs/wire/provider-d.md §3.1)", () => {
  const rows: Array<[string, string]> = [
    ["dev", "dev"],
    ["  My Env  ", "my-env"],
    ["Prod/EU #1", "prod-eu-1"],
    ["--x", "x-env"],
    ["ab", "ab-env"],
    ["", "env"],
    ["!!!", "env"],
    ["a__b..c", "a__b..c"],
    ["x".repeat(80), "x".repeat(64)],
  ];
  it.each(rows)("%j → %j", (input, output) => {
    expect(normalizeEnvironmentName(input)).toBe(output);
    expect(output).toMatch(ENVIRONMENT_NAME_PATTERN);
  });
  it("suffix retries: base, -1 … -15 (16 attempts), prefix trimmed to stay within 64", () => {
    const attempts = nameAttempts("dev");
    expect(attempts).toHaveLength(16);
    expect(attempts.slice(0, 3)).toEqual(["dev", "dev-1", "dev-2"]);
    expect(suffixedName("y".repeat(64), 12)).toBe(`${"y".repeat(61)}-12`);
    expect(isOwnName("dev-7", "dev")).toBe(true);
    expect(isOwnName("dev-x", "dev")).toBe(false);
  });
});

describe("provider_c headers", () => {
  it("x-api-key, anthropic-version and the default beta set", () => {
    expect(providerCHeaders({ api_key: "k" })).toEqual({
      "x-api-key": "k",
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "managed-agents-2026-04-01,skills-2025-10-02,files-api-2025-04-14",
    });
  });
  it("config beta replaces the whole value", () => {
    expect(providerCHeaders({ api_key: "k", beta: "x-1" })["anthropic-beta"]).toBe("x-1");
  });
});

describe("provider_c beta per API family", () => {
  const base = "managed-agents-2026-04-01,skills-2025-10-02,files-api-2025-04-14";
  const rows: Array<[string, string, string | undefined]> = [
    ["/agents", base, undefined],
    ["/memory_stores/memstore_1/memories", base, "agent-memory-2026-07-22"],
    ["/memory_stores", "custom-1", "agent-memory-2026-07-22"],
    ["/skills", base, undefined],
    ["/skills", "managed-agents-2026-04-01", "managed-agents-2026-04-01,skills-2025-10-02"],
    ["/files/file_1", "managed-agents-2026-04-01", "managed-agents-2026-04-01,files-api-2025-04-14"],
  ];
  it.each(rows)("%s with beta %s → %s (undefined = the session header as is)", (path, configured, beta) => {
    expect(betaFor(path, configured)).toBe(beta);
  });
});

describe("small facts", () => {
  it("logical names come from the engine address", () => {
    expect(logicalNameOf('provider_c.agents["writer"]')).toBe("writer");
    expect(logicalNameOf('provider_d.environments["a \\"b\\""]')).toBe('a "b"');
  });
  it("skill ownership tag round-trips", () => {
    const tag = skillOwnerTag("pdf", "demo", 'provider_c.skills["pdf"]');
    expect(parseSkillOwnerTag(tag)).toEqual({ project: "demo", resource: 'provider_c.skills["pdf"]' });
    expect(parseSkillOwnerTag("someone else's skill")).toBeUndefined();
  });
  it("SKILL.md frontmatter name", () => {
    expect(parseFrontmatter("---\nname: pdf-tools\ndescription: x\n---\n# Body").name).toBe("pdf-tools");
    expect(parseFrontmatter("# no frontmatter").name).toBeUndefined();
  });
  it("reverse references skip names that are not applied yet", () => {
    const refs = fakeResolver();
    const throwing = {
      ...refs,
      resolve: (k: Parameters<typeof refs.resolve>[0], n: string) => {
        if (n === "later") throw new Error("not applied");
        return refs.resolve(k, n);
      },
    };
    const reverse = agentReverseRefs({ skills: ["a", "later"] }, throwing);
    expect([...reverse.entries()]).toEqual([["id-skills-a", "a"]]);
  });
});

describe("secret-bearing fields are declared sensitive", () => {
  const rows: Array<[string, "vaults" | "agents" | "deployments", string]> = [
    ["provider_c", "vaults", "credentials.*.access_token"],
    ["provider_c", "vaults", "credentials.*.secret_value"],
    ["provider_c", "agents", "resources.*.authorization_token"],
    ["provider_c", "deployments", "resources.*.authorization_token"],
    ["provider_d", "vaults", "credentials.*.access_token"],
    ["provider_d", "vaults", "credentials.*.secret_value"],
    ["provider_d", "agents", "resources.*.authorization_token"],
    ["provider_d", "deployments", "resources.*.authorization_token"],
  ];
  it.each(rows)("%s %s: %s", (provider, kind, path) => {
    const adapter = provider === "provider_c" ? providerC : providerD;
    expect(adapter.kinds[kind]?.sensitive).toContain(path);
  });
});
