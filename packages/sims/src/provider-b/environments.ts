import type { Router } from "express";
import { body, str } from "../kit/body.js";
import { h } from "../kit/errors.js";
import { checkMetadata, isObject, sha256 } from "../kit/records.js";
import { getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import {
  archiveRoute,
  assertUnique,
  bad,
  type Ctx,
  conflict,
  domainItems,
  find,
  idempotent,
  listAfterId,
  listAndGetRoutes,
  missing,
  notArchived,
  replayIfSeen,
  stamp,
  updatedView,
  view,
} from "./common.js";
import type { Domain } from "./state.js";

const SETUP_SCRIPT_MAX = 64 * 1024;
const ALLOWED_PACKAGES = ["apt", "npm", "pip"] as const;
const REJECTED_PACKAGES = ["cargo", "gem", "go"] as const;

/** Validates an environment `config` and returns it as the API reads it back. */
export function environmentConfig(config: unknown, domain: Domain): Record<string, unknown> {
  if (!isObject(config)) throw bad("config is required and must be an object");
  const type = config.type;
  if (type !== "cloud" && type !== "self_hosted") throw bad('config.type must be "cloud" or "self_hosted"');
  const out: Record<string, unknown> = { type };
  const script = config.setup_script;
  if (script !== undefined && script !== null) {
    if (typeof script !== "string") throw bad("config.setup_script must be a string");
    if (Buffer.byteLength(script, "utf8") > SETUP_SCRIPT_MAX) throw bad("config.setup_script exceeds 64 KiB");
    out.setup_script = script;
  }
  if (type === "self_hosted") {
    const extra = Object.keys(config).filter((k) => k !== "type" && k !== "setup_script");
    if (extra.length)
      throw bad(`self_hosted config accepts only type and setup_script (got ${extra.join(", ")})`);
    return out;
  }
  if (config.networking !== undefined) {
    if (domain === "forward") throw bad("config.networking is not supported on Forward environments");
    out.networking = networking(config.networking, "config.networking");
  } else if (domain === "managed") {
    out.networking = { type: "unrestricted" };
  }
  if (config.packages !== undefined && config.packages !== null) out.packages = packages(config.packages);
  const unknown = Object.keys(config).filter(
    (k) => !["type", "setup_script", "networking", "packages"].includes(k),
  );
  if (unknown.length) throw bad(`unknown config field ${unknown[0]}`);
  return out;
}

export function networking(value: unknown, field: string): Record<string, unknown> {
  if (!isObject(value)) throw bad(`${field} must be an object`);
  if (value.type === "unrestricted") return { type: "unrestricted" };
  if (value.type !== "limited") throw bad(`${field}.type must be "unrestricted" or "limited"`);
  const hosts = value.allowed_hosts ?? [];
  if (!Array.isArray(hosts) || hosts.some((x) => typeof x !== "string")) {
    throw bad(`${field}.allowed_hosts must be an array of strings`);
  }
  return {
    type: "limited",
    allowed_hosts: hosts,
    allow_mcp_servers: value.allow_mcp_servers === true,
    allow_package_managers: value.allow_package_managers === true,
  };
}

function packages(value: unknown): Record<string, unknown> {
  if (!isObject(value)) throw bad("config.packages must be an object");
  const out: Record<string, unknown> = { type: "packages" };
  for (const k of ALLOWED_PACKAGES) {
    const list = value[k] ?? [];
    if (!Array.isArray(list) || list.some((x) => typeof x !== "string")) {
      throw bad(`config.packages.${k} must be an array of strings`);
    }
    out[k] = list;
  }
  for (const k of REJECTED_PACKAGES) {
    const list = value[k];
    if (Array.isArray(list) && list.length > 0)
      throw bad(`config.packages.${k} is not supported (apt, npm, pip only)`);
    out[k] = [];
  }
  return out;
}

export function environmentRoutes(r: Router, ctx: Ctx, domain: Domain): void {
  const envs = () => ctx.state.objects.environments;

  r.post(
    "/environments",
    h((req, res) => {
      if (replayIfSeen(ctx, req, res)) return;
      const b = body(req);
      const name = str(b, "name", true)!;
      const config = environmentConfig(b.config, domain);
      const metadata = checkMetadata(b.metadata);
      assertUnique(domainItems(ctx, "environments", domain, req), "name", name);
      idempotent(ctx, req, res, () => {
        const rec = put(ctx.state, "environments", {
          id: ctx.ids.next("env_"),
          type: "environment",
          name,
          description: str(b, "description") ?? "",
          config,
          metadata,
          ...stamp(ctx),
          archived_at: null,
          _domain: domain,
        });
        return view(rec);
      });
    }),
  );
  listAndGetRoutes(r, ctx, "environments", "environment", domain);
  r.post(
    "/environments/:id",
    h((req, res) => {
      const rec = find(ctx, "environments", req.params.id as string, "environment", domain);
      notArchived(rec, "environment");
      const b = body(req);
      if (b.name !== undefined) {
        const name = str(b, "name", true)!;
        assertUnique(domainItems(ctx, "environments", domain, req), "name", name, rec.id);
        rec.name = name;
      }
      // The config is replaced, never merged: a dropped setup_script must disappear.
      if (b.config !== undefined) rec.config = environmentConfig(b.config, domain);
      if (b.description !== undefined) rec.description = str(b, "description") ?? "";
      res.json(updatedView(ctx, rec, b.metadata));
    }),
  );
  r.delete(
    "/environments/:id",
    h((req, res) => {
      const rec = find(ctx, "environments", req.params.id as string, "environment", domain);
      const users = environmentUsers(ctx, rec.id);
      if (users.length) {
        throw conflict(`environment ${rec.id} is in use by ${users.join(", ")}`, "ENVIRONMENT_IN_USE");
      }
      envs().delete(rec.id);
      res.json({ id: rec.id, type: "environment_deleted" });
    }),
  );
  archiveRoute(r, ctx, "/environments/:id/archive", "environment", (req) =>
    find(ctx, "environments", req.params.id as string, "environment", domain),
  );
}

/**
 * Live sessions and templates that still point at an environment. Archived sessions do not count:
 * they can no longer run, and session lists hide them, so a cascade could never find them.
 */
function environmentUsers(ctx: Ctx, envId: string): string[] {
  const users: string[] = [];
  for (const s of ctx.state.objects.sessions.values()) {
    if (s.environment_id === envId && !s.archived_at) users.push(s.id);
  }
  for (const t of ctx.state.objects.templates.values()) {
    if (t.environment_id === envId && t.status !== "archived") users.push(t.id);
  }
  return users;
}

export function vaultRoutes(r: Router, ctx: Ctx, domain: Domain): void {
  r.post(
    "/vaults",
    h((req, res) => {
      if (replayIfSeen(ctx, req, res)) return;
      const b = body(req);
      const metadata = checkMetadata(b.metadata);
      if (b.credentials !== undefined) throw bad("credentials are added with POST /vaults/{id}/credentials");
      idempotent(ctx, req, res, () =>
        view(
          put(ctx.state, "vaults", {
            id: ctx.ids.next("vlt_"),
            type: "vault",
            display_name: str(b, "display_name") ?? null,
            metadata,
            ...stamp(ctx),
            archived_at: null,
            _domain: domain,
          }),
        ),
      );
    }),
  );
  listAndGetRoutes(r, ctx, "vaults", "vault", domain);
  r.post(
    "/vaults/:id",
    h((req, res) => {
      const rec = find(ctx, "vaults", req.params.id as string, "vault", domain);
      notArchived(rec, "vault");
      const b = body(req);
      if (b.display_name !== undefined) rec.display_name = str(b, "display_name") ?? null;
      res.json(updatedView(ctx, rec, b.metadata));
    }),
  );
  r.delete(
    "/vaults/:id",
    h((req, res) => {
      const rec = find(ctx, "vaults", req.params.id as string, "vault", domain);
      ctx.state.objects.vaults.delete(rec.id);
      // Credentials live inside their vault: they go with it.
      for (const c of [...ctx.state.objects.credentials.values()]) {
        if (c.vault_id === rec.id) ctx.state.objects.credentials.delete(c.id);
      }
      res.json({ id: rec.id, type: "vault_deleted" });
    }),
  );
  r.post(
    "/vaults/:id/credentials",
    h((req, res) => {
      if (replayIfSeen(ctx, req, res)) return;
      const vault = find(ctx, "vaults", req.params.id as string, "vault", domain);
      notArchived(vault, "vault");
      const b = body(req);
      const { auth, secret } = credentialAuth(b.auth);
      idempotent(ctx, req, res, () =>
        view(
          put(ctx.state, "credentials", {
            id: ctx.ids.next("vcrd_"),
            type: "credential",
            vault_id: vault.id,
            display_name: str(b, "display_name") ?? null,
            auth,
            metadata: checkMetadata(b.metadata),
            ...stamp(ctx),
            archived_at: null,
            _domain: domain,
            _secret_sha256: sha256(secret),
          }),
        ),
      );
    }),
  );
  const credentialsOf = (vaultId: string) =>
    [...ctx.state.objects.credentials.values()].filter((c) => c.vault_id === vaultId);
  r.get(
    "/vaults/:id/credentials",
    h((req, res) => {
      const vault = find(ctx, "vaults", req.params.id as string, "vault", domain);
      res.json(listAfterId(ctx, req, credentialsOf(vault.id)));
    }),
  );
  const credential = (vid: string, cid: string): Rec => {
    find(ctx, "vaults", vid, "vault", domain);
    const c = ctx.state.objects.credentials.get(cid);
    if (!c || c.vault_id !== vid) throw missing("credential", cid);
    return c;
  };
  getView(r, "/vaults/:id/credentials/:cid", (req) =>
    credential(req.params.id as string, req.params.cid as string),
  );
  r.delete(
    "/vaults/:id/credentials/:cid",
    h((req, res) => {
      const c = credential(req.params.id as string, req.params.cid as string);
      ctx.state.objects.credentials.delete(c.id);
      res.json({ id: c.id, type: "credential_deleted" });
    }),
  );
}

/** Credential `auth`: the read-back view (no secret) and the secret, which is kept only as a hash. */
function credentialAuth(value: unknown): { auth: Record<string, unknown>; secret: string } {
  if (!isObject(value)) throw bad("auth is required and must be an object");
  if (value.type === "static_bearer") {
    const url = value.mcp_server_url;
    const token = value.token;
    if (typeof url !== "string" || !/^https?:\/\//.test(url))
      throw bad("auth.mcp_server_url must be an http(s) URL");
    if (typeof token !== "string" || token === "") throw bad("auth.token is required");
    const auth: Record<string, unknown> = { type: "static_bearer", mcp_server_url: url };
    if (value.protocol !== undefined) {
      if (value.protocol !== "sse" && value.protocol !== "streamable_http") {
        throw bad('auth.protocol must be "sse" or "streamable_http"');
      }
      auth.protocol = value.protocol;
    }
    return { auth, secret: token };
  }
  if (value.type === "environment_variable") {
    const name = value.secret_name;
    const secret = value.secret_value;
    if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw bad("auth.secret_name must be an environment variable name");
    }
    if (typeof secret !== "string" || secret === "") throw bad("auth.secret_value is required");
    const net =
      value.networking === undefined
        ? { type: "unrestricted" }
        : networking(value.networking, "auth.networking");
    return { auth: { type: "environment_variable", secret_name: name, networking: net }, secret };
  }
  throw bad('auth.type must be "static_bearer" or "environment_variable"');
}
