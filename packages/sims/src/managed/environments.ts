import type { Router } from "express";
import { archive, assertNotArchived, deleted, listPage, lookup, newObject, param } from "./common.js";
import { ApiError, invalid } from "./errors.js";
import type { Kit } from "./state.js";
import {
  allowOnly,
  body,
  createMetadata,
  type JsonObject,
  optBool,
  optString,
  reqString,
  requireObject,
  stringArray,
  updateMetadata,
} from "./validate.js";

const PACKAGE_MANAGERS = ["apt", "cargo", "gem", "go", "npm", "pip"] as const;

/** provider_d's wire-name rule for environments. */
const STRICT_ENV_NAME = /^[a-z0-9][a-z0-9-_.]{2,63}$/;
/**
 * How long provider_d keeps a deleted environment's name reserved (docs/wire/provider-d.md §3.1: "40 s or
 * more").
 */
const NAME_RESERVATION_MS = 45_000;

function networking(v: unknown, where: string): JsonObject {
  if (v === undefined) return { type: "unrestricted" };
  const n = requireObject(v, where);
  if (n.type === "unrestricted") {
    allowOnly(n, ["type"], where);
    return { type: "unrestricted" };
  }
  if (n.type === "limited") {
    allowOnly(n, ["type", "allowed_hosts", "allow_mcp_servers", "allow_package_managers"], where);
    return {
      type: "limited",
      allowed_hosts:
        n.allowed_hosts === undefined ? [] : stringArray(n.allowed_hosts, `${where}.allowed_hosts`),
      allow_mcp_servers: optBool(n, "allow_mcp_servers", `${where}.allow_mcp_servers`) ?? false,
      allow_package_managers:
        optBool(n, "allow_package_managers", `${where}.allow_package_managers`) ?? false,
    };
  }
  throw invalid(`${where}.type: must be "unrestricted" or "limited"`);
}

function packages(v: unknown): JsonObject {
  const p = v === undefined ? {} : requireObject(v, "config.packages");
  allowOnly(p, ["type", ...PACKAGE_MANAGERS], "config.packages");
  if (p.type !== undefined && p.type !== "packages")
    throw invalid(`config.packages.type: must be "packages"`);
  const out: JsonObject = { type: "packages" };
  for (const m of PACKAGE_MANAGERS) {
    out[m] = p[m] === undefined || p[m] === null ? [] : stringArray(p[m], `config.packages.${m}`);
  }
  return out;
}

function config(v: unknown, kit: Kit): JsonObject {
  if (v === undefined || v === null)
    return { type: "cloud", networking: { type: "unrestricted" }, packages: packages(undefined) };
  const c = requireObject(v, "config");
  if (c.type === "self_hosted" && kit.dialect.name === "provider_c") {
    allowOnly(c, ["type"], "config");
    return { type: "self_hosted" };
  }
  if (c.type !== "cloud") throw invalid(`config.type: must be "cloud"`);
  allowOnly(c, ["type", "networking", "packages"], "config");
  return {
    type: "cloud",
    networking: networking(c.networking, "config.networking"),
    packages: packages(c.packages),
  };
}

const FIELDS = ["name", "description", "config", "metadata", "scope"];

export function environmentRoutes(router: Router, kit: Kit): void {
  const strictNames = kit.dialect.name === "provider_d";
  const archivable = kit.dialect.archivable.has("environment");

  /** provider_d: names are unique per project, and stay reserved for a while after deletion. */
  function assertNameFree(name: string, selfId?: string): void {
    if (!strictNames) return;
    const s = kit.state();
    const reservedUntil = s.reservedNames.get(name);
    const taken =
      [...s.environments.values()].some((e) => e.name === name && e.id !== selfId) ||
      (reservedUntil !== undefined && reservedUntil > kit.clock.now());
    if (taken) {
      throw new ApiError(
        409,
        "conflict_error",
        `name: "${name}" already exists in project "default"`,
        {},
        "ResourceConflict",
      );
    }
  }

  function checkName(name: string): void {
    if (strictNames && !STRICT_ENV_NAME.test(name)) {
      throw invalid(`name: ${JSON.stringify(name)} must match ${STRICT_ENV_NAME.source}`);
    }
  }

  router.post("/environments", (req, res) => {
    const b = body(req.body);
    allowOnly(b, FIELDS);
    const name = reqString(b, "name", { min: 1, max: 256 });
    checkName(name);
    assertNameFree(name);
    if (b.scope !== undefined && b.scope !== "organization") {
      throw invalid(`scope: only "organization" is available to API keys`);
    }
    const env = newObject(
      kit,
      "environment",
      () => ({
        name,
        description: optString(b, "description", { max: 1024 }) ?? null,
        config: config(b.config, kit),
        metadata: createMetadata(b.metadata),
      }),
      archivable,
    );
    kit.state().environments.set(env.id, env);
    res.json(env);
  });

  router.get("/environments", (req, res) => {
    res.json(listPage(kit, req, kit.state().environments.values(), { archivable }));
  });

  router.get("/environments/:id", (req, res) => {
    res.json(lookup(kit.state().environments, param(req, "id"), "environment"));
  });

  router.post("/environments/:id", (req, res) => {
    const env = lookup(kit.state().environments, param(req, "id"), "environment");
    assertNotArchived(env, "environment");
    const b = body(req.body);
    allowOnly(b, FIELDS);
    const name = optString(b, "name", { min: 1, max: 256 });
    if (name) {
      checkName(name);
      assertNameFree(name, env.id);
    }
    const next = { ...env };
    if (name) next.name = name;
    if (b.description !== undefined) next.description = optString(b, "description", { max: 1024 }) ?? null;
    if (b.config !== undefined) next.config = config(b.config, kit);
    next.metadata = updateMetadata(env.metadata, b.metadata, kit.dialect.metadataUpdate);
    next.updated_at = kit.now();
    kit.state().environments.set(env.id, next);
    res.json(next);
  });

  router.delete("/environments/:id", (req, res) => {
    const s = kit.state();
    const env = lookup(s.environments, param(req, "id"), "environment");
    s.environments.delete(env.id);
    if (strictNames) s.reservedNames.set(env.name, kit.clock.now() + NAME_RESERVATION_MS);
    res.json(deleted(env.id, "environment"));
  });

  if (archivable) {
    router.post("/environments/:id/archive", (req, res) => {
      res.json(archive(kit, lookup(kit.state().environments, param(req, "id"), "environment")));
    });
  }
}
