// provider_a vaults. Credentials cannot be sent inline, so a vault is created first and each
// credential added after it. A credential change is a replacement (create the new vault, then
// delete the old), as the reference does; display name and metadata update in place. Adoption of
// our own vault (a retried create, or the engine's adopt step through `update`) keeps only the
// credentials that match exactly (identity, metadata and injection policy) and replaces the rest.
import { isConflict } from "../../common/errors.js";
import { isArchived, listedOrGone, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import {
  listedOwnerOf,
  logicalName,
  ownerOf,
  sameOwner,
  userMetadata,
  withOwnership,
} from "../../common/ownership.js";
import { collect, firstMatch, pageListReader, walkPages } from "../../common/paging.js";
import { carryPriorSecrets } from "../../common/secrets.js";
import type {
  HandlerContext,
  KindHandler,
  ListContext,
  PriorState,
  RemoteObject,
  Spec,
} from "../../types.js";
import {
  type CredentialDecl,
  credentialFromWire,
  credentialToWire,
  isExactCredentialMatch,
  type RemoteCredential,
  resolvePolicy,
} from "../mappers/credential.js";

interface VaultDecl {
  display_name?: string;
  credentials?: CredentialDecl[];
  metadata?: Record<string, string>;
}

async function listCredentials(
  ctx: Pick<HandlerContext, "http" | "signal">,
  vaultId: string,
): Promise<RemoteCredential[]> {
  return (
    await collect(walkPages<RemoteCredential>(ctx.http, `/vaults/${vaultId}/credentials`, {}, ctx.signal))
  ).filter((c) => !c.archived_at);
}

/** The vault as the engine records it; `known` spares a list call when we just wrote them all. */
async function readVault(
  ctx: HandlerContext,
  wire: Wire,
  prior?: PriorState,
  known?: RemoteCredential[],
): Promise<RemoteObject> {
  const id = String(wire.id);
  const creds = known ?? (await listCredentials(ctx, id));
  return {
    id,
    spec: {
      ...(wire.display_name && wire.display_name !== logicalName(ctx.owner)
        ? { display_name: wire.display_name }
        : {}),
      credentials: carryPriorSecrets(creds.map(credentialFromWire) as Record<string, unknown>[], prior),
      metadata: userMetadata(wire.metadata),
    },
    owner: ownerOf(wire.metadata),
    extra: { credential_ids: Object.fromEntries(creds.map((c) => [c.display_name ?? c.id, c.id])) },
  };
}

/**
 * Adds declared credentials; on an adopted vault keeps exact matches and replaces the rest.
 * Returns the credentials the vault now holds (`fresh`: a vault we just created, nothing to list).
 */
async function ensureCredentials(
  ctx: HandlerContext,
  vaultId: string,
  decls: CredentialDecl[],
  mode: "fresh" | "adopt" | "reconcile",
): Promise<RemoteCredential[]> {
  const existing = mode === "fresh" ? [] : await listCredentials(ctx, vaultId);
  const pruneUndeclared = mode === "reconcile";
  const result: RemoteCredential[] = [];
  if (pruneUndeclared) {
    for (const stale of existing.filter((r) => !decls.some((d) => d.name === r.display_name))) {
      await removeTolerant(ctx.http, "DELETE", `/vaults/${vaultId}/credentials/${stale.id}`, ctx.signal);
    }
  }
  for (const decl of decls) {
    const body = credentialToWire(decl);
    const secret = (body.auth as { secret_value: string }).secret_value;
    ctx.http.addSecret(secret);
    const kept = existing.find((remote) => isExactCredentialMatch(decl, remote));
    if (kept) {
      result.push(kept);
      continue;
    }
    for (const stale of existing.filter((r) => r.display_name === decl.name && !r.archived_at)) {
      await removeTolerant(ctx.http, "DELETE", `/vaults/${vaultId}/credentials/${stale.id}`, ctx.signal);
    }
    result.push(
      await send<RemoteCredential>(ctx, ctx.http, {
        method: "POST",
        path: `/vaults/${vaultId}/credentials`,
        json: body,
      }),
    );
  }
  // Undeclared credentials of an adopted (not reconciled) vault stay and are shown as they are.
  return mode === "adopt"
    ? [
        ...result,
        ...existing.filter(
          (r) => !result.some((x) => x.id === r.id) && !decls.some((d) => d.name === r.display_name),
        ),
      ]
    : result;
}

export const vaultHandler: KindHandler = {
  sensitive: ["credentials.*.secret_value", "credentials.*.access_token"],
  replaceOn: ["credentials"],
  createBeforeDestroy: true,
  desired(spec) {
    const decl = spec as VaultDecl;
    return {
      ...(decl.display_name !== undefined ? { display_name: decl.display_name } : {}),
      credentials: (decl.credentials ?? []).map((c) => {
        const policy = resolvePolicy(c);
        return {
          name: c.name,
          type: c.type,
          secret_name: c.secret_name,
          secret_value: c.secret_value === undefined ? undefined : String(c.secret_value),
          networking: { allowed_hosts: policy.allowedHosts },
          injection_location: { header: policy.header, body: policy.body },
        };
      }),
      metadata: { ...(decl.metadata ?? {}) },
    };
  },
  async create(ctx, spec) {
    const decl = spec as VaultDecl;
    // Validate every credential before the first request, so bad input creates nothing.
    for (const c of decl.credentials ?? []) credentialToWire(c);
    const payload = {
      display_name: decl.display_name ?? logicalName(ctx.owner),
      metadata: withOwnership(decl.metadata, ctx.owner),
    };
    let vault: Wire;
    let mode: "fresh" | "adopt" = "fresh";
    try {
      vault = await send(ctx, ctx.http, { method: "POST", path: "/vaults", json: payload });
    } catch (error) {
      if (!isConflict(error)) throw error;
      const mine = await findOwnedVault(ctx);
      if (!mine) throw error;
      vault = mine;
      mode = "adopt";
    }
    const credentials = await ensureCredentials(ctx, String(vault.id), decl.credentials ?? [], mode);
    return readVault(ctx, vault, undefined, credentials);
  },
  // The list shows the vault; its credentials are still read from their own list per vault.
  ...pageListReader("/vaults"),
  async read(ctx, id, prior, listed) {
    const wire = await listedOrGone(ctx.http, listed, `/vaults/${id}`, ctx.signal);
    if (wire === "gone" || isArchived(wire)) return "gone";
    return readVault(ctx, wire, prior);
  },
  async update(ctx, id, spec, prior) {
    const decl = spec as VaultDecl;
    for (const c of decl.credentials ?? []) credentialToWire(c);
    const vault = await send(ctx, ctx.http, {
      method: "POST",
      path: `/vaults/${id}`,
      json: {
        display_name: decl.display_name ?? logicalName(ctx.owner),
        metadata: withOwnership(decl.metadata, ctx.owner),
      },
    });
    const credentials = await ensureCredentials(ctx, id, decl.credentials ?? [], "reconcile");
    return readVault(ctx, { ...vault, id }, prior, credentials);
  },
  async remove(ctx, id) {
    await removeTolerant(ctx.http, "DELETE", `/vaults/${id}`, ctx.signal);
  },
  async findOwned(ctx, _owner, exclude) {
    const wire = await findOwnedVault(ctx, exclude);
    if (!wire) return undefined;
    return readVault(ctx, wire);
  },
  list: listVaults,
};

/**
 * Every vault of the account (archived ones flagged, their credentials not read), each live one
 * with its credentials in declaration shape: explicit host lists and injection booleans as the
 * provider holds them, so sync writes them back as they are (spec, provider_a vault rules).
 */
async function listVaults(ctx: ListContext): Promise<RemoteObject[]> {
  const all = await collect(walkPages<Wire>(ctx.http, "/vaults", { include_archived: true }, ctx.signal));
  const out: RemoteObject[] = [];
  // One credential walk at a time: an account with many vaults must not open as many requests.
  for (const wire of all) {
    const id = String(wire.id);
    const owner = listedOwnerOf(wire.metadata);
    const logical = owner?.resource ? logicalName(owner) : "";
    const archived = isArchived(wire);
    const creds = archived ? [] : await listCredentials(ctx, id);
    out.push({
      id,
      spec: {
        ...(wire.display_name && wire.display_name !== logical ? { display_name: wire.display_name } : {}),
        credentials: creds.map(credentialFromWire),
        metadata: userMetadata(wire.metadata),
      },
      ...(owner ? { owner } : {}),
      archived,
    });
  }
  return out;
}

/** This resource's live vault, passing over the `exclude` ids (a replacement's recorded vault). */
function findOwnedVault(ctx: HandlerContext, exclude?: ReadonlySet<string>): Promise<Wire | undefined> {
  return firstMatch(
    walkPages<Wire>(ctx.http, "/vaults", {}, ctx.signal),
    (v) => !isArchived(v) && !exclude?.has(String(v.id)) && sameOwner(ownerOf(v.metadata), ctx.owner),
  );
}

export type { Spec };
