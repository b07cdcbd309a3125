import { createHash } from "node:crypto";
import type { Router } from "express";
import { archive, assertNotArchived, deleted, listPage, lookup, newObject, param } from "./common.js";
import { invalid, notFound } from "./errors.js";
import type { Kit, Obj } from "./state.js";
import {
  allowOnly,
  body,
  checkString,
  createMetadata,
  isObject,
  type JsonObject,
  optBool,
  optString,
  reqString,
  requireObject,
  stringArray,
  updateMetadata,
} from "./validate.js";

const HOST = /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function url(v: unknown, where: string): string {
  const s = checkString(v, where, { min: 1 });
  try {
    const u = new URL(s);
    if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error();
  } catch {
    throw invalid(`${where}: must be an http(s) URL`);
  }
  return s;
}

function credentialNetworking(v: unknown): JsonObject {
  if (v === undefined) return { type: "unrestricted" };
  const n = requireObject(v, "auth.networking");
  if (n.type === "unrestricted") return { type: "unrestricted" };
  if (n.type !== "limited") throw invalid(`auth.networking.type: must be "unrestricted" or "limited"`);
  allowOnly(n, ["type", "allowed_hosts"], "auth.networking");
  const hosts = stringArray(n.allowed_hosts ?? [], "auth.networking.allowed_hosts", 16);
  for (const h of hosts) {
    const ip = IPV4.exec(h);
    const ok = ip ? ip.slice(1).every((o) => Number(o) <= 255) : HOST.test(h);
    if (!ok)
      throw invalid(`auth.networking.allowed_hosts: ${JSON.stringify(h)} is not a host, IPv4 or *.domain`);
  }
  return { type: "limited", allowed_hosts: hosts };
}

/** Splits a sent `auth` into what the API shows back and the secrets it keeps write-only. */
function parseAuth(v: unknown, kit: Kit): { shown: JsonObject; secrets: Record<string, string> } {
  const a = requireObject(v, "auth");
  const type = a.type;
  if (typeof type !== "string" || !kit.dialect.credentialTypes.includes(type)) {
    throw invalid(`auth.type: must be one of ${kit.dialect.credentialTypes.join(", ")}`);
  }
  if (type === "static_bearer") {
    allowOnly(a, ["type", "token", "mcp_server_url"], "auth");
    return {
      shown: { type, mcp_server_url: url(a.mcp_server_url, "auth.mcp_server_url") },
      secrets: { token: reqString(a, "token", { min: 1 }) },
    };
  }
  if (type === "environment_variable") {
    const withInjection = kit.dialect.name === "provider_c";
    allowOnly(
      a,
      ["type", "secret_name", "secret_value", "networking", ...(withInjection ? ["injection_location"] : [])],
      "auth",
    );
    const name = reqString(a, "secret_name", { min: 1, max: 256 });
    if (!ENV_NAME.test(name))
      throw invalid(`auth.secret_name: ${JSON.stringify(name)} is not a valid variable name`);
    const shown: JsonObject = { type, secret_name: name, networking: credentialNetworking(a.networking) };
    if (withInjection) {
      const loc =
        a.injection_location === undefined
          ? {}
          : requireObject(a.injection_location, "auth.injection_location");
      allowOnly(loc, ["header", "body"], "auth.injection_location");
      shown.injection_location = {
        header: optBool(loc, "header", "auth.injection_location.header") ?? true,
        body: optBool(loc, "body", "auth.injection_location.body") ?? false,
      };
    }
    return { shown, secrets: { secret_value: reqString(a, "secret_value", { min: 1 }) } };
  }
  allowOnly(a, ["type", "mcp_server_url", "access_token", "expires_at", "refresh"], "auth");
  const secrets: Record<string, string> = { access_token: reqString(a, "access_token", { min: 1 }) };
  const shown: JsonObject = { type, mcp_server_url: url(a.mcp_server_url, "auth.mcp_server_url") };
  if (a.expires_at !== undefined) shown.expires_at = checkString(a.expires_at, "auth.expires_at");
  if (isObject(a.refresh)) {
    const r = a.refresh;
    if (typeof r.refresh_token === "string") secrets.refresh_token = r.refresh_token;
    const { refresh_token: _secret, ...rest } = r;
    shown.refresh = rest;
  }
  return { shown, secrets };
}

/** For `/_sim/state`: secrets appear only as SHA-256 fingerprints. */
export function fingerprintSecrets(secrets: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(secrets ?? {}))
    out[`${k}_sha256`] = createHash("sha256").update(v).digest("hex");
  return out;
}

export function vaultRoutes(router: Router, kit: Kit): void {
  const archivable = kit.dialect.archivable.has("vault");
  const credentialType = kit.dialect.name === "provider_c" ? "vault_credential" : "credential";
  const vault = (id: string) => lookup(kit.state().vaults, id, "vault");

  router.post("/vaults", (req, res) => {
    const b = body(req.body);
    allowOnly(b, ["display_name", "metadata"]);
    const v = newObject(
      kit,
      "vault",
      () => ({
        display_name: reqString(b, "display_name", { min: 1, max: 256 }),
        metadata: createMetadata(b.metadata),
      }),
      archivable,
    );
    kit.state().vaults.set(v.id, v);
    res.json(v);
  });
  router.get("/vaults", (req, res) => {
    res.json(listPage(kit, req, kit.state().vaults.values(), { archivable }));
  });
  router.get("/vaults/:id", (req, res) => {
    res.json(vault(param(req, "id")));
  });
  router.post("/vaults/:id", (req, res) => {
    const v = vault(param(req, "id"));
    assertNotArchived(v, "vault");
    const b = body(req.body);
    allowOnly(b, ["display_name", "metadata"]);
    const next: Obj = { ...v, updated_at: kit.now() };
    const name = optString(b, "display_name", { min: 1, max: 256 });
    if (name) next.display_name = name;
    next.metadata = updateMetadata(v.metadata, b.metadata, kit.dialect.metadataUpdate);
    kit.state().vaults.set(v.id, next);
    res.json(next);
  });
  router.delete("/vaults/:id", (req, res) => {
    const s = kit.state();
    const v = vault(param(req, "id"));
    // Deleting a vault deletes its credentials: nothing may be left pointing at a missing vault.
    for (const c of [...s.credentials.values()]) {
      if (c.vault_id === v.id) {
        s.credentials.delete(c.id);
        s.secrets.delete(c.id);
      }
    }
    s.vaults.delete(v.id);
    res.json(deleted(v.id, "vault"));
  });
  if (archivable) {
    router.post("/vaults/:id/archive", (req, res) => {
      res.json(archive(kit, vault(param(req, "id"))));
    });
  }

  const credential = (vaultId: string, id: string) => {
    vault(vaultId);
    const c = lookup(kit.state().credentials, id, "credential");
    if (c.vault_id !== vaultId) throw notFound("credential", id);
    return c;
  };

  router.post("/vaults/:vid/credentials", (req, res) => {
    const v = vault(param(req, "vid"));
    assertNotArchived(v, "vault");
    const b = body(req.body);
    allowOnly(b, ["auth", "display_name", "metadata"]);
    const { shown, secrets } = parseAuth(b.auth, kit);
    const now = kit.now();
    const c: Obj = {
      id: kit.newId("credential"),
      type: credentialType,
      vault_id: v.id,
      display_name: optString(b, "display_name", { max: 256 }) ?? null,
      auth: shown,
      metadata: createMetadata(b.metadata),
      created_at: now,
      updated_at: now,
    };
    if (archivable) c.archived_at = null;
    const s = kit.state();
    s.credentials.set(c.id, c);
    s.secrets.set(c.id, secrets);
    res.json(c);
  });
  router.get("/vaults/:vid/credentials", (req, res) => {
    const vaultId = vault(param(req, "vid")).id;
    res.json(
      listPage(kit, req, kit.state().credentials.values(), {
        archivable,
        filter: (c) => c.vault_id === vaultId,
      }),
    );
  });
  router.get("/vaults/:vid/credentials/:cid", (req, res) => {
    res.json(credential(param(req, "vid"), param(req, "cid")));
  });
  router.post("/vaults/:vid/credentials/:cid", (req, res) => {
    const c = credential(param(req, "vid"), param(req, "cid"));
    assertNotArchived(c, "credential");
    const b = body(req.body);
    allowOnly(b, ["auth", "display_name", "metadata"]);
    const next: Obj = { ...c, updated_at: kit.now() };
    if (b.auth !== undefined) {
      const { shown, secrets } = parseAuth(b.auth, kit);
      if (shown.type !== c.auth.type)
        throw invalid(`auth.type: cannot change from ${c.auth.type} to ${shown.type}`);
      next.auth = shown;
      kit.state().secrets.set(c.id, secrets);
      kit.state().seededFingerprints.delete(c.id);
    }
    if (b.display_name !== undefined) next.display_name = optString(b, "display_name", { max: 256 }) ?? null;
    next.metadata = updateMetadata(c.metadata, b.metadata, kit.dialect.metadataUpdate);
    kit.state().credentials.set(c.id, next);
    res.json(next);
  });
  router.delete("/vaults/:vid/credentials/:cid", (req, res) => {
    const c = credential(param(req, "vid"), param(req, "cid"));
    const s = kit.state();
    s.credentials.delete(c.id);
    s.secrets.delete(c.id);
    res.json(deleted(c.id, credentialType));
  });
  if (archivable) {
    router.post("/vaults/:vid/credentials/:cid/archive", (req, res) => {
      res.json(archive(kit, credential(param(req, "vid"), param(req, "cid"))));
    });
  }
  if (kit.dialect.credentialTypes.includes("mcp_oauth")) {
    router.post("/vaults/:vid/credentials/:cid/mcp_oauth_validate", (req, res) => {
      const c = credential(param(req, "vid"), param(req, "cid"));
      if (c.auth.type !== "mcp_oauth") throw invalid("only mcp_oauth credentials can be validated");
      // The simulator cannot reach the MCP server; it reports the token's own expiry.
      const expired =
        typeof c.auth.expires_at === "string" && Date.parse(c.auth.expires_at) <= kit.clock.now();
      res.json({ type: "mcp_oauth_validation", credential_id: c.id, valid: !expired });
    });
  }
}
