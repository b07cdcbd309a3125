// One case per row of the environment, vault, memory and deployment tables of the provider_c
// and provider_d wire references (docs/wire/provider-c.md §3, docs/wire/provider-d.md §3).
import { describe, expect, it } from "vitest";
import { metadataPatch, withOwnership } from "../../../src/providers/common/ownership.js";
import {
  canonicalDeployment,
  deploymentResources,
  deploymentResourcesFromWire,
  initialEventsFromWire,
  initialEventsToWire,
  scheduleToWire,
} from "../../../src/providers/managed-dialect/deployment.js";
import {
  canonicalEnvironment,
  environmentFromWire,
  environmentToWire,
} from "../../../src/providers/managed-dialect/environment.js";
import {
  contentSha256,
  memoryPath,
  memoryStoreFromWire,
  planSeeds,
  seedEntries,
} from "../../../src/providers/managed-dialect/memory.js";
import { METADATA_LIMITS } from "../../../src/providers/managed-dialect/ownership.js";
import type { Json } from "../../../src/providers/managed-dialect/spec.js";
import {
  canonicalVault,
  credentialToWire,
  vaultFromWire,
} from "../../../src/providers/managed-dialect/vault.js";
import { fakeResolver, OWNER, OWNER_KEYS } from "./fixtures.js";

describe("environment (docs/wire/provider-c.md §3.1, docs/wire/provider-d.md §3.1)", () => {
  const rows: Array<{ row: string; spec: Json; field: string; wire: unknown }> = [
    { row: "name", spec: { config: { type: "cloud" } }, field: "name", wire: "dev" },
    {
      row: "description",
      spec: { description: "d", config: { type: "cloud" } },
      field: "description",
      wire: "d",
    },
    {
      row: "metadata + ownership keys",
      spec: { config: { type: "cloud" } },
      field: "metadata",
      wire: OWNER_KEYS,
    },
    {
      row: "default networking unrestricted, empty packages",
      spec: { config: { type: "cloud" } },
      field: "config",
      wire: { type: "cloud", networking: { type: "unrestricted" }, packages: { type: "packages" } },
    },
    {
      row: "limited networking with hosts and flags; packages incl. cargo/gem/go",
      spec: {
        config: {
          type: "cloud",
          networking: { type: "limited", allowed_hosts: ["b.example", "a.example"], allow_mcp_servers: true },
          packages: { pip: ["requests"], cargo: ["ripgrep"], go: [] },
        },
      },
      field: "config",
      wire: {
        type: "cloud",
        networking: { type: "limited", allowed_hosts: ["a.example", "b.example"], allow_mcp_servers: true },
        packages: { type: "packages", cargo: ["ripgrep"], pip: ["requests"] },
      },
    },
  ];
  it.each(rows)("$row", ({ spec, field, wire }) => {
    expect(environmentToWire(spec, "dev", withOwnership(undefined, OWNER, METADATA_LIMITS))[field]).toEqual(
      wire,
    );
  });
  it("setup_script and self_hosted are rejected locally", () => {
    expect(() => environmentToWire({ config: { type: "cloud", setup_script: "x" } }, "dev", {})).toThrow(
      /setup_script/,
    );
    expect(() => environmentToWire({ config: { type: "self_hosted" } }, "dev", {})).toThrow(/cloud/);
  });
  it("fromWire(toWire(spec)) = canonical(spec); the default name is not reported", () => {
    const spec = {
      config: { type: "cloud", networking: { type: "unrestricted" }, packages: { npm: ["x"] } },
    };
    const wire = environmentToWire(spec, "dev", withOwnership(undefined, OWNER, METADATA_LIMITS));
    expect(environmentFromWire(wire, (n) => n === "dev")).toEqual(canonicalEnvironment(spec));
    expect(environmentFromWire({ ...wire, name: "renamed" }, (n) => n === "dev").name).toBe("renamed");
  });
});

describe("vault credentials (docs/wire/provider-c.md §3.2, docs/wire/provider-d.md §3.2)", () => {
  const rows: Array<{ row: string; decl: Json; injection: boolean; body: Json }> = [
    {
      row: "static_bearer → {type, token, mcp_server_url}",
      decl: { name: "forge", type: "static_bearer", mcp_server_url: "https://m/mcp", access_token: "t0k3n" },
      injection: true,
      body: {
        display_name: "forge",
        auth: { type: "static_bearer", token: "t0k3n", mcp_server_url: "https://m/mcp" },
      },
    },
    {
      row: "environment_variable → secret_name/secret_value, default unrestricted networking",
      decl: { name: "gh", type: "environment_variable", secret_name: "GH", secret_value: "v" },
      injection: true,
      body: {
        display_name: "gh",
        auth: {
          type: "environment_variable",
          secret_name: "GH",
          secret_value: "v",
          networking: { type: "unrestricted" },
        },
      },
    },
    {
      row: "environment_variable with host allow-list and injection location (provider_c)",
      decl: {
        name: "gh",
        type: "environment_variable",
        secret_name: "GH",
        secret_value: "v",
        networking: { type: "limited", allowed_hosts: ["api.github.com", "*.example.com"] },
        injection_location: { header: true, body: false },
      },
      injection: true,
      body: {
        display_name: "gh",
        auth: {
          type: "environment_variable",
          secret_name: "GH",
          secret_value: "v",
          networking: { type: "limited", allowed_hosts: ["api.github.com", "*.example.com"] },
          injection_location: { header: true, body: false },
        },
      },
    },
    {
      row: "injection_location is not sent to provider_d",
      decl: {
        name: "gh",
        type: "environment_variable",
        secret_name: "GH",
        secret_value: "v",
        injection_location: { header: true },
      },
      injection: false,
      body: {
        display_name: "gh",
        auth: {
          type: "environment_variable",
          secret_name: "GH",
          secret_value: "v",
          networking: { type: "unrestricted" },
        },
      },
    },
  ];
  it.each(rows)("$row", ({ decl, injection, body }) => {
    expect(credentialToWire(decl, { injectionLocation: injection }).body).toEqual(body);
  });
  it("limited networking without hosts is refused rather than widened", () => {
    expect(() =>
      credentialToWire(
        {
          name: "x",
          type: "environment_variable",
          secret_name: "A",
          secret_value: "b",
          networking: { type: "limited" },
        },
        { injectionLocation: true },
      ),
    ).toThrow(/allowed_hosts/);
  });
  it("read-back never contains a secret; mcp_oauth credentials are skipped", () => {
    const spec = vaultFromWire(
      { id: "v", display_name: "keys", metadata: OWNER_KEYS },
      [
        { id: "c1", display_name: "forge", auth: { type: "static_bearer", mcp_server_url: "https://m/mcp" } },
        { id: "c2", display_name: "o", auth: { type: "mcp_oauth" } },
      ],
      "keys",
      { injectionLocation: true },
    );
    expect(spec).toEqual({
      credentials: [{ name: "forge", type: "static_bearer", mcp_server_url: "https://m/mcp" }],
    });
    expect(JSON.stringify(spec)).not.toMatch(/token/);
  });
  it("the declared form keeps secrets for the engine to hash and otherwise matches the read-back", () => {
    const canonical = canonicalVault(
      {
        credentials: [
          { name: "forge", type: "static_bearer", mcp_server_url: "u", access_token: "s", protocol: "sse" },
        ],
      },
      { injectionLocation: true },
    );
    expect(canonical).toEqual({
      credentials: [{ name: "forge", type: "static_bearer", mcp_server_url: "u", access_token: "s" }],
    });
  });
});

describe("memory stores (docs/wire/provider-c.md §3.6, docs/wire/provider-d.md §3.6)", () => {
  const paths: Array<[string, string]> = [
    ["notes/a.md", "/notes/a.md"],
    ["/notes/a.md", "/notes/a.md"],
    ["a//b", "/a/b"],
    ["Cafe\u0301.md", "/Caf\u00e9.md"],
  ];
  it.each(paths)("entry key %s → absolute path %s (NFC)", (key, path) => {
    expect(memoryPath(key)).toBe(path);
  });
  it("rejects empty keys, climbing and more than 20 segments", () => {
    expect(() => memoryPath("/")).toThrow(/empty/);
    expect(() => memoryPath("a/../b")).toThrow(/\.\./);
    expect(() => memoryPath(Array.from({ length: 21 }, () => "x").join("/"))).toThrow(/20/);
  });
  it("content_sha256 is lowercase hex of the UTF-8 bytes", () => {
    expect(contentSha256("hello")).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  });
  it("seeds: create missing, rewrite changed, keep unchanged (other memories untouched)", () => {
    const entries = seedEntries({
      entries: [
        { key: "a", content: "A" },
        { key: "b", content: "B2" },
        { key: "c", content: "C" },
      ],
    });
    const remote = new Map([
      ["/b", { id: "m2", content_sha256: contentSha256("B1") }],
      ["/c", { id: "m3", content_sha256: contentSha256("C") }],
      ["/agent-wrote", { id: "m9", content_sha256: "x" }],
    ]);
    const plan = planSeeds(entries, remote);
    expect(plan.create.map((e) => e.path)).toEqual(["/a"]);
    expect(plan.rewrite.map((e) => [e.path, e.id, e.remoteSha])).toEqual([["/b", "m2", contentSha256("B1")]]);
    expect(plan.unchanged.map((e) => e.path)).toEqual(["/c"]);
  });
  it("read-back lists declared keys only, with the remote content", () => {
    const spec = memoryStoreFromWire(
      { description: "d", metadata: OWNER_KEYS },
      ["a", "gone"],
      new Map([["/a", "new"]]),
    );
    expect(spec).toEqual({ description: "d", entries: [{ key: "a", content: "new" }] });
  });
  it("duplicate entry paths are refused", () => {
    expect(() =>
      seedEntries({
        entries: [
          { key: "a", content: "" },
          { key: "/a", content: "" },
        ],
      }),
    ).toThrow(/twice/);
  });
});

describe("metadata limits (16 pairs, key ≤ 64, value ≤ 512)", () => {
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));
  it("14 user keys + 2 ownership keys fit", () => {
    expect(Object.keys(withOwnership(many(14), OWNER, METADATA_LIMITS))).toHaveLength(16);
  });
  it("15 user keys do not, and the error says how many to remove", () => {
    expect(() => withOwnership(many(15), OWNER, METADATA_LIMITS)).toThrow(/17 keys.*remove 1/);
  });
  it("an overlong key or value is refused", () => {
    expect(() => withOwnership({ ["k".repeat(65)]: "v" }, OWNER, METADATA_LIMITS)).toThrow(/longer than 64/);
    expect(() => withOwnership({ k: "v".repeat(513) }, OWNER, METADATA_LIMITS)).toThrow(/longer than 512/);
  });
});

describe("metadata update semantics", () => {
  it("patch: declared keys upserted, dropped keys sent as null (provider_c)", () => {
    expect(metadataPatch({ a: "0", b: "2" }, { a: "1" })).toEqual({ a: "1", b: null });
  });
});

describe("deployments (docs/wire/provider-c.md §3.7)", () => {
  const refs = { ...fakeResolver(), uploadedFile: (s: string) => `up-${s}` };
  const events: Array<{ row: string; decl: Json; wire: Json }> = [
    {
      row: "user.message → text content",
      decl: { type: "user.message", content: "go" },
      wire: { type: "user.message", content: [{ type: "text", text: "go" }] },
    },
    {
      row: "system.message → text content",
      decl: { type: "system.message", content: "ctx" },
      wire: { type: "system.message", content: [{ type: "text", text: "ctx" }] },
    },
    {
      row: "user.define_outcome → text rubric, max_iterations",
      decl: { type: "user.define_outcome", description: "ship", rubric: "tests pass", max_iterations: 3 },
      wire: {
        type: "user.define_outcome",
        description: "ship",
        rubric: { type: "text", content: "tests pass" },
        max_iterations: 3,
      },
    },
  ];
  it.each(events)("initial event: $row", ({ decl, wire }) => {
    expect(initialEventsToWire([decl])).toEqual([wire]);
    expect(initialEventsFromWire([wire])).toEqual([decl]);
  });
  it("schedule → cron with timezone (UTC when omitted)", () => {
    expect(scheduleToWire({ expression: "0 9 * * 1", timezone: "Europe/Berlin" })).toEqual({
      type: "cron",
      expression: "0 9 * * 1",
      timezone: "Europe/Berlin",
    });
    expect(scheduleToWire({ expression: "0 9 * * 1" })?.timezone).toBe("UTC");
  });
  const resources: Array<{ row: string; decl: Json; wire: Json }> = [
    {
      row: "file by id, relative mount under /workspace",
      decl: { type: "file", file_id: "file_1", mount_path: "in/a.txt" },
      wire: { type: "file", file_id: "file_1", mount_path: "/workspace/in/a.txt" },
    },
    {
      row: "file from a local source (uploaded by the deployment)",
      decl: { type: "file", source: "data/a.txt" },
      wire: { type: "file", file_id: "up-data/a.txt" },
    },
    {
      row: "memory_store with access and instructions",
      decl: { type: "memory_store", memory_store: "notes", access: "read_only", instructions: "look" },
      wire: {
        type: "memory_store",
        memory_store_id: "id-memory_stores-notes",
        access: "read_only",
        instructions: "look",
      },
    },
    {
      row: "git_repository → github_repository, .git stripped, default mount, token sent",
      decl: {
        type: "git_repository",
        url: "https://github.com/o/r.git",
        authorization_token: "t",
        checkout: { commit: "abc" },
      },
      wire: {
        type: "github_repository",
        url: "https://github.com/o/r",
        authorization_token: "t",
        checkout: { type: "commit", sha: "abc" },
        mount_path: "/workspace/r",
      },
    },
  ];
  it.each(resources)("resource: $row", ({ decl, wire }) => {
    expect(deploymentResources({ resources: [decl] }, "/workspace", refs, true)).toEqual([wire]);
  });
  it("memory_stores names become plain memory_store resources and read back as names", () => {
    const wire = deploymentResources({ memory_stores: ["notes"] }, "/workspace", refs, true);
    expect(wire).toEqual([{ type: "memory_store", memory_store_id: "id-memory_stores-notes" }]);
    const back = deploymentResourcesFromWire(
      wire,
      new Map([["id-memory_stores-notes", "notes"]]),
      () => undefined,
    );
    expect(back).toEqual({ resources: [], memory_stores: ["notes"] });
  });
  it("canonical form never carries a repository token", () => {
    const canonical = canonicalDeployment(
      { agent: "a", resources: [{ type: "git_repository", url: "https://g/o/r", authorization_token: "t" }] },
      "/workspace",
    );
    expect(JSON.stringify(canonical)).not.toContain('"t"');
  });
});
