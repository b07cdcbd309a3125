import { describe, expect, it } from "vitest";
import { forwardBaseUrl, parseProviderBError } from "../../../src/providers/provider-b/client.js";
import { managedSessionToWire } from "../../../src/providers/provider-b/mappers/agent.js";
import { credentialToWire } from "../../../src/providers/provider-b/mappers/credential.js";
import {
  environmentFromWire,
  environmentToWire,
} from "../../../src/providers/provider-b/mappers/environment.js";
import {
  envVarsFromManagedString,
  envVarsToManagedString,
} from "../../../src/providers/provider-b/mappers/environment-variables.js";
import { sessionResourcesToWire } from "../../../src/providers/provider-b/mappers/session-resources.js";

const meta = { "agents.project": "p", "agents.resource": 'provider_b.agents["w"]' };

describe("provider_b transport", () => {
  it.each([
    [
      "trailing /cloud becomes /forward",
      "https://api.qoder.com/api/v1/cloud",
      "https://api.qoder.com/api/v1/forward",
    ],
    [
      "a trailing slash is stripped first",
      "https://api.qoder.com/api/v1/cloud/",
      "https://api.qoder.com/api/v1/forward",
    ],
    ["otherwise /forward is appended", "http://127.0.0.1:9/gw", "http://127.0.0.1:9/gw/forward"],
  ])("forward base: %s", (_rule, gateway, expected) => {
    expect(forwardBaseUrl(gateway)).toBe(expected);
  });
  it.each([
    [
      "409 on create is a conflict",
      409,
      { type: "error", error: { type: "conflict", message: "name taken" } },
      true,
    ],
    [
      "409 'in use' is not a duplicate",
      409,
      { type: "error", error: { message: "environment in use" } },
      false,
    ],
    ["409 'still mounted' is not a duplicate", 409, { error: "store still mounted" }, false],
    [
      "400 is not a conflict",
      400,
      { type: "error", error: { type: "invalid_request_error", message: "x" } },
      false,
    ],
  ])("%s", (_rule, status, body, conflict) => {
    expect(parseProviderBError(status, body).conflict).toBe(conflict);
  });
});

describe("provider_b environments (spec Environment rules 1–3)", () => {
  it("cloud: networking default unrestricted, only apt/npm/pip sent, description empty when unset", () => {
    expect(
      environmentToWire(
        { config: { type: "cloud", packages: { pip: ["x"], cargo: [] } } },
        "dev",
        meta,
        "managed",
      ),
    ).toEqual({
      name: "dev",
      description: "",
      config: { type: "cloud", networking: { type: "unrestricted" }, packages: { pip: ["x"] } },
      metadata: meta,
    });
  });
  it.each([
    ["non-empty cargo is rejected locally", { type: "cloud" as const, packages: { cargo: ["x"] } }, /cargo/],
    ["non-empty go is rejected locally", { type: "cloud" as const, packages: { go: ["x"] } }, /go/],
    [
      "self_hosted takes only type and setup_script",
      { type: "self_hosted" as const, packages: { pip: ["x"] } },
      /only type and setup_script/,
    ],
    [
      "setup_script over 64 KB is rejected",
      { type: "cloud" as const, setup_script: "x".repeat(64 * 1024 + 1) },
      /64 KB/,
    ],
  ])("%s", (_rule, config, error) => {
    expect(() => environmentToWire({ config }, "dev", meta, "managed")).toThrow(error);
  });
  it("self_hosted (BYOC) with a setup_script", () => {
    expect(
      environmentToWire(
        { config: { type: "self_hosted", setup_script: "apt-get update" } },
        "byoc",
        meta,
        "managed",
      ).config,
    ).toEqual({
      type: "self_hosted",
      setup_script: "apt-get update",
    });
  });
  it("limited networking keeps hosts and flags", () => {
    const wire = environmentToWire(
      {
        config: {
          type: "cloud",
          networking: { type: "limited", allowed_hosts: ["a.com"], allow_mcp_servers: true },
        },
      },
      "dev",
      meta,
      "managed",
    );
    expect((wire.config as Record<string, unknown>).networking).toEqual({
      type: "limited",
      allowed_hosts: ["a.com"],
      allow_mcp_servers: true,
    });
  });
  it("the Forward domain sends no networking", () => {
    expect(environmentToWire({ config: { type: "cloud" } }, "dev", meta, "forward").config as object).toEqual(
      { type: "cloud" },
    );
  });
  it("read-back ignores type:packages and empty cargo/gem/go", () => {
    expect(
      environmentFromWire(
        {
          name: "dev",
          config: {
            type: "cloud",
            networking: { type: "unrestricted" },
            packages: { type: "packages", pip: ["x"], cargo: [], gem: [], go: [] },
          },
          metadata: meta,
        },
        "dev",
        "managed",
      ),
    ).toEqual({
      config: { type: "cloud", networking: { type: "unrestricted" }, packages: { pip: ["x"] } },
      metadata: {},
    });
  });
});

describe("provider_b credentials", () => {
  it.each([
    [
      "static_bearer",
      { name: "mcp", type: "static_bearer" as const, mcp_server_url: "https://m", access_token: 42 },
      { type: "static_bearer", mcp_server_url: "https://m", token: "42" },
    ],
    [
      "environment_variable, networking default unrestricted",
      { name: "k", type: "environment_variable" as const, secret_name: "K", secret_value: "v" },
      {
        type: "environment_variable",
        secret_name: "K",
        secret_value: "v",
        networking: { type: "unrestricted" },
      },
    ],
  ])("%s", (_rule, decl, auth) => {
    expect(credentialToWire(decl)).toEqual({ display_name: decl.name, auth });
  });
});

describe("provider_b environment_variables wire forms", () => {
  it.each([
    ["one variable", { A: "1" }, "A=1"],
    ["several, in declaration order", { A: "1", B: "x=y" }, "A=1;B=x=y"],
    ["empty value", { A: "" }, "A="],
  ])("managed KEY=VALUE;… string: %s", (_rule, vars, text) => {
    expect(envVarsToManagedString(vars)).toBe(text);
    expect(envVarsFromManagedString(text)).toEqual(vars);
  });
  it.each([
    ["a ';' in a value cannot be encoded", { A: "1;2" }, /";"/],
    ["a key must be an identifier", { "A-B": "1" }, /not a valid identifier/],
  ])("%s", (_rule, vars, error) => {
    expect(() => envVarsToManagedString(vars)).toThrow(error);
  });
});

describe("provider_b session resources (spec Session resources)", () => {
  it.each([
    [
      "repository without mount_path → /data/workspace/<repo>",
      {
        type: "git_repository" as const,
        url: "https://github.com/acme/widgets.git",
        checkout: { branch: "main" },
      },
      {
        type: "github_repository",
        url: "https://github.com/acme/widgets.git",
        checkout: { type: "branch", name: "main" },
        mount_path: "/data/workspace/widgets",
      },
    ],
    [
      "relative mount path resolves under /data",
      { type: "git_repository" as const, url: "https://g/a/b", mount_path: "src/b" },
      { type: "github_repository", url: "https://g/a/b", mount_path: "/data/src/b" },
    ],
    [
      "commit checkout needs the full sha",
      { type: "git_repository" as const, url: "https://g/a/b", checkout: { commit: "a".repeat(40) } },
      {
        type: "github_repository",
        url: "https://g/a/b",
        checkout: { type: "commit", sha: "a".repeat(40) },
        mount_path: "/data/workspace/b",
      },
    ],
  ])("%s", (_rule, repo, wire) => {
    expect(sessionResourcesToWire({ repositories: [repo] })).toEqual([wire]);
  });
  it.each([
    [
      "absolute path outside /data is rejected",
      { type: "git_repository" as const, url: "https://g/a/b", mount_path: "/mnt/b" },
      /not under \/data/,
    ],
    [
      "a short commit is rejected",
      { type: "git_repository" as const, url: "https://g/a/b", checkout: { commit: "abc" } },
      /full SHA/,
    ],
  ])("%s", (_rule, repo, error) => {
    expect(() => sessionResourcesToWire({ repositories: [repo] })).toThrow(error);
  });
  it("two resources on one path are rejected", () => {
    expect(() =>
      sessionResourcesToWire({
        repositories: [
          { type: "git_repository", url: "https://g/a/x" },
          { type: "git_repository", url: "https://h/b/x" },
        ],
      }),
    ).toThrow(/used twice/);
  });
  it("managed session body: env vars as a string, repos and stores as resources", () => {
    const body = managedSessionToWire(
      {
        model: "auto",
        instructions: "i",
        environment_variables: { A: "1", B: "2" },
        resources: [{ type: "git_repository", url: "https://g/a/r" }],
      },
      {
        agentId: "agent_1",
        environmentId: "env_1",
        vaultIds: ["v1"],
        memoryStoreIds: ["memstore_1"],
        files: [],
      },
    );
    expect(body).toEqual({
      agent: "agent_1",
      environment_id: "env_1",
      environment_variables: "A=1;B=2",
      vault_ids: ["v1"],
      resources: [
        { type: "github_repository", url: "https://g/a/r", mount_path: "/data/workspace/r" },
        { type: "memory_store", memory_store_id: "memstore_1" },
      ],
    });
  });
});
