import type { Request, Router } from "express";
import { body, str } from "../kit/body.js";
import { h, WireError } from "../kit/errors.js";
import { checkMetadata, isObject, sha256 } from "../kit/records.js";
import { answer, getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import {
  assertFreeName,
  bad,
  type Ctx,
  find,
  listPage,
  live,
  missing,
  now,
  removeRecord,
  stamp,
  view,
  writable,
} from "./common.js";

const PACKAGE_MANAGERS = ["apt", "pip", "npm", "cargo", "gem", "go"];

/** Cloud only, unrestricted networking only (the live API answers a `limited` request with a 500). */
function environmentConfig(value: unknown): Record<string, unknown> {
  if (!isObject(value)) throw bad("config is required and must be an object");
  if (value.type !== "cloud") throw bad("config.type must be one of [cloud]");
  if (value.setup_script !== undefined) throw bad("config.setup_script is not supported");
  const out: Record<string, unknown> = { type: "cloud", networking: { type: "unrestricted" } };
  if (value.networking !== undefined) {
    if (!isObject(value.networking) || value.networking.type !== "unrestricted") {
      throw new WireError(500, "internal", "config.networking.type must be one of [unrestricted]");
    }
  }
  if (value.packages !== undefined) {
    const p = value.packages;
    if (!isObject(p)) throw bad("config.packages must be an object");
    for (const [k, v] of Object.entries(p)) {
      if (k === "type") continue;
      if (!PACKAGE_MANAGERS.includes(k)) throw bad(`config.packages.${k} is not a known package manager`);
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string"))
        throw bad(`config.packages.${k} must be an array of strings`);
    }
    out.packages = p;
  }
  return out;
}

function environmentFields(b: Record<string, unknown>): Record<string, unknown> {
  if (b.scope !== undefined && b.scope !== "organization") throw bad('scope must be "organization"');
  const out: Record<string, unknown> = {
    name: str(b, "name", true),
    scope: "organization",
    config: environmentConfig(b.config),
    metadata: checkMetadata(b.metadata),
  };
  const description = str(b, "description");
  if (description !== undefined) out.description = description;
  return out;
}

export function environmentRoutes(r: Router, ctx: Ctx): void {
  const get = (req: Request) => find(ctx, "environments", req.params.id as string, "environment");
  r.post(
    "/environments",
    h((req, res) => {
      const fields = environmentFields(body(req));
      assertFreeName(ctx.state.objects.environments.values(), "name", fields.name);
      res.json(
        view(
          put(ctx.state, "environments", {
            id: ctx.ids.next("env_", 22),
            type: "environment",
            ...fields,
            ...stamp(ctx),
          }),
        ),
      );
    }),
  );
  r.get(
    "/environments",
    answer((req) => listPage(ctx, req, [...ctx.state.objects.environments.values()])),
  );
  getView(r, "/environments/:id", (req) => get(req));
  r.post(
    "/environments/:id",
    h((req, res) => {
      const rec = get(req);
      const fields = environmentFields(body(req));
      assertFreeName(ctx.state.objects.environments.values(), "name", fields.name, rec.id);
      // The update body is the full object: what it leaves out is gone.
      delete rec.description;
      Object.assign(rec, fields, { updated_at: now(ctx) });
      res.json(view(rec));
    }),
  );
  r.delete(
    "/environments/:id",
    answer((req) => removeRecord(ctx, "environments", get(req), "environment")),
  );
}

/**
 * Credential `auth` (environment_variable only). Injection policy uses the provider_c-style names
 * (`networking.allowed_hosts`, `injection_location`); omitted → all hosts, header on, body off.
 */
function credentialAuth(value: unknown): { auth: Record<string, unknown>; secret: string } {
  if (!isObject(value)) throw bad("auth is required and must be an object");
  if (value.type === "static_bearer") {
    throw bad(
      "auth.type static_bearer is not supported; use environment_variable",
      "CREDENTIAL_AUTH_TYPE_ERROR",
    );
  }
  if (value.type !== "environment_variable")
    throw bad("auth.type must be environment_variable", "CREDENTIAL_AUTH_TYPE_ERROR");
  const name = value.secret_name;
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw bad("auth.secret_name must be an environment variable name");
  }
  if (typeof value.secret_value !== "string" || value.secret_value === "")
    throw bad("auth.secret_value is required");
  let networking: Record<string, unknown> = { type: "limited", allowed_hosts: ["*"] };
  const net = value.networking;
  if (net !== undefined) {
    if (isObject(net) && net.type === "unrestricted") networking = { type: "unrestricted" };
    else if (isObject(net) && net.type === "limited") {
      const hosts = net.allowed_hosts;
      if (
        !Array.isArray(hosts) ||
        hosts.length === 0 ||
        hosts.some((x) => typeof x !== "string" || x === "")
      ) {
        throw bad("auth.networking.allowed_hosts must list at least one host when type is limited");
      }
      networking = { type: "limited", allowed_hosts: hosts };
    } else throw bad('auth.networking.type must be "unrestricted" or "limited"');
  }
  let injection = { header: true, body: false };
  const loc = value.injection_location;
  if (loc !== undefined) {
    if (!isObject(loc) || Object.values(loc).some((v) => typeof v !== "boolean")) {
      throw bad("auth.injection_location must be {header: boolean, body: boolean}");
    }
    injection = { header: loc.header !== false, body: loc.body === true };
  }
  return {
    auth: { type: "environment_variable", secret_name: name, networking, injection_location: injection },
    secret: value.secret_value,
  };
}

export function vaultRoutes(r: Router, ctx: Ctx): void {
  const vault = (id: string) => find(ctx, "vaults", id, "vault");
  r.post(
    "/vaults",
    h((req, res) => {
      const b = body(req);
      if (b.credentials !== undefined)
        throw bad("credentials are not accepted inline; use POST /vaults/{id}/credentials");
      const rec = put(ctx.state, "vaults", {
        id: ctx.ids.next("vlt_"),
        type: "vault",
        display_name: str(b, "display_name") ?? null,
        metadata: checkMetadata(b.metadata),
        ...stamp(ctx),
        archived_at: null,
      });
      res.json(view(rec));
    }),
  );
  r.get(
    "/vaults",
    answer((req) => listPage(ctx, req, live(ctx, "vaults", req))),
  );
  getView(r, "/vaults/:id", (req) => vault(req.params.id as string));
  const update = (rec: Rec, b: Record<string, unknown>, what: string) => {
    writable(rec, what);
    if (b.auth !== undefined) throw bad("auth cannot be changed; create a new credential");
    if (b.display_name !== undefined) rec.display_name = str(b, "display_name") ?? null;
    if (b.metadata !== undefined) rec.metadata = checkMetadata(b.metadata);
    rec.updated_at = now(ctx);
    return view(rec);
  };
  const archive = (rec: Rec) => {
    if (!rec.archived_at) rec.archived_at = now(ctx);
    return view(rec);
  };
  r.post(
    "/vaults/:id",
    answer((req) => update(vault(req.params.id as string), body(req), "vault")),
  );
  r.post(
    "/vaults/:id/archive",
    answer((req) => archive(vault(req.params.id as string))),
  );
  r.delete(
    "/vaults/:id",
    h((req, res) => {
      const rec = vault(req.params.id as string);
      for (const c of [...ctx.state.objects.credentials.values()]) {
        if (c.vault_id === rec.id) ctx.state.objects.credentials.delete(c.id);
      }
      res.json(removeRecord(ctx, "vaults", rec, "vault"));
    }),
  );

  const credential = (req: Request) => {
    const v = vault(req.params.id as string);
    const c = ctx.state.objects.credentials.get(req.params.cid as string);
    if (!c || c.vault_id !== v.id) throw missing("credential", req.params.cid as string);
    return c;
  };
  r.post(
    "/vaults/:id/credentials",
    h((req, res) => {
      const v = vault(req.params.id as string);
      writable(v, "vault");
      const b = body(req);
      const { auth, secret } = credentialAuth(b.auth);
      const displayName = str(b, "display_name") ?? null;
      if (displayName !== null) {
        assertFreeName(
          [...ctx.state.objects.credentials.values()].filter((c) => c.vault_id === v.id),
          "display_name",
          displayName,
        );
      }
      const rec = put(ctx.state, "credentials", {
        id: ctx.ids.next("vcrd_"),
        type: "credential",
        vault_id: v.id,
        display_name: displayName,
        auth,
        metadata: checkMetadata(b.metadata),
        ...stamp(ctx),
        archived_at: null,
        _secret_sha256: sha256(secret),
      });
      res.json(view(rec));
    }),
  );
  r.get(
    "/vaults/:id/credentials",
    h((req, res) => {
      const v = vault(req.params.id as string);
      res.json(
        listPage(
          ctx,
          req,
          live(ctx, "credentials", req).filter((c) => c.vault_id === v.id),
        ),
      );
    }),
  );
  getView(r, "/vaults/:id/credentials/:cid", (req) => credential(req));
  r.post(
    "/vaults/:id/credentials/:cid",
    answer((req) => update(credential(req), body(req), "credential")),
  );
  r.post(
    "/vaults/:id/credentials/:cid/archive",
    answer((req) => archive(credential(req))),
  );
  r.delete(
    "/vaults/:id/credentials/:cid",
    answer((req) => removeRecord(ctx, "credentials", credential(req), "credential")),
  );
}
