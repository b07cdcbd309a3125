// Vaults and credentials. provider_c updates a vault in place and reconciles its credentials
// by name; provider_d has no usable update, so any change replaces the vault (new one first).

import { logicalNameOf } from "../../../model/address.js";
import { str } from "../../common/handler-kit.js";
import { listedOwnerOf, metadataPatch, ownerOf, withOwnership } from "../../common/ownership.js";
import { listAll } from "../../common/paging.js";
import type { HttpClient } from "../../http.js";
import type { HandlerContext, KindHandler, ListContext, RemoteObject, Spec } from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { METADATA_LIMITS } from "../ownership.js";
import type { DialectProfile } from "../profile.js";
import { deleteIfPresent, dialectKind, getOrGone, idOf, isArchived, overlay } from "../remote.js";
import { isRecord, type Json, records } from "../spec.js";
import {
  type CredentialWire,
  canonicalVault,
  credentialToWire,
  VAULT_SENSITIVE_PATHS,
  vaultFromWire,
  vaultToWire,
} from "../vault.js";

const COMPARED = ["display_name", "metadata", "credentials"] as const;
const LIST_CONCURRENCY = 8;

/** Secrets cannot be read back; a credential that still exists keeps the last-applied (hashed) values. */
function withPriorSecrets(spec: Json, prior: Json | undefined): Json {
  if (!Array.isArray(spec.credentials)) return spec;
  const priorByName = new Map(records(prior?.credentials).map((c) => [str(c.name), c]));
  const credentials = records(spec.credentials).map((c) => {
    const before = priorByName.get(str(c.name));
    if (!before || before.type !== c.type) return c;
    const out = { ...c };
    for (const key of ["access_token", "secret_value"]) if (before[key] !== undefined) out[key] = before[key];
    return out;
  });
  return { ...spec, credentials };
}

/**
 * The spec allows `protocol` on every static_bearer credential; this dialect's wire has no such
 * field (validate warns, AGENTS1113), so it is never sent, never read back, and kept out of the
 * comparison: otherwise every plan would show it as drift.
 */
function withoutProtocol(credentials: unknown): unknown {
  if (!Array.isArray(credentials)) return credentials;
  return credentials.map((c) => {
    if (!isRecord(c) || c.protocol === undefined) return c;
    const { protocol: _dropped, ...rest } = c;
    return rest;
  });
}

export function vaultHandler(profile: DialectProfile): KindHandler {
  const options = { injectionLocation: profile.injectionLocation };
  const kind = dialectKind(profile, "/vaults");

  const credentialsOf = (http: HttpClient, id: string, signal: AbortSignal) =>
    listAll<Json>(http, `/vaults/${id}/credentials`, { pageSize: profile.pageSize, signal });

  const mapCredentials = (spec: Spec, ctx: HandlerContext): CredentialWire[] =>
    records(spec.credentials).map((decl) => {
      const wire = credentialToWire(decl, { ...options, warn: ctx.warn });
      const auth = isRecord(wire.body.auth) ? wire.body.auth : {};
      for (const secret of [auth.token, auth.secret_value])
        if (typeof secret === "string") ctx.http.addSecret(secret);
      return wire;
    });

  const addCredential = async (ctx: HandlerContext, vaultId: string, credential: CredentialWire) => {
    const response = await ctx.http.request<Json>({
      method: "POST",
      path: `/vaults/${vaultId}/credentials`,
      json: credential.body,
      signal: ctx.signal,
    });
    return response.body;
  };

  const toRemote = (remote: Json, credentials: Json[], logical: string, prior?: Json): RemoteObject => {
    const owner = ownerOf(remote.metadata);
    const ids: Record<string, string> = {};
    for (const c of credentials) {
      const name = str(c.display_name);
      if (name && !isArchived(c)) ids[name] = idOf(c);
    }
    return {
      id: idOf(remote),
      spec: withPriorSecrets(vaultFromWire(remote, credentials, logical, options), prior),
      ...(owner ? { owner } : {}),
      archived: isArchived(remote),
      extra: { credentials: ids },
    };
  };

  const findOwned = kind.ownedFinder(async (ctx, hit, owner) =>
    toRemote(hit, await credentialsOf(ctx.http, idOf(hit), ctx.signal), logicalNameOf(owner.resource)),
  );

  // The vault walker findOwned uses, over the whole account. Credentials are read only for the
  // project's own vaults (one list per vault); other vaults come back with their metadata only.
  async function list(ctx: ListContext, project: string): Promise<RemoteObject[]> {
    const live = (await kind.listAll(ctx)).filter((v) => !isArchived(v));
    const out: RemoteObject[] = [];
    // A few credential lists in flight at once: one round trip per owned vault is the cost.
    for (let start = 0; start < live.length; start += LIST_CONCURRENCY) {
      const batch = live.slice(start, start + LIST_CONCURRENCY).map(async (vault) => {
        const owner = listedOwnerOf(vault.metadata);
        const credentials =
          owner?.project === project ? await credentialsOf(ctx.http, idOf(vault), ctx.signal) : [];
        const logical = owner?.resource ? logicalNameOf(owner.resource) : (str(vault.display_name) ?? "");
        const listed = toRemote(vault, credentials, logical);
        // Credentials are read only for the project's vaults: others show none, not "no credentials".
        if (owner?.project !== project) delete listed.spec.credentials;
        return owner ? { ...listed, owner } : listed;
      });
      out.push(...(await Promise.all(batch)));
    }
    return out;
  }

  const handler: KindHandler = {
    desired: (spec) =>
      overlay(
        spec,
        { ...canonicalVault(spec, options), credentials: withoutProtocol(spec.credentials) },
        COMPARED,
      ),
    sensitive: VAULT_SENSITIVE_PATHS,

    async create(ctx, spec) {
      const logical = logicalNameOf(ctx.owner.resource);
      const credentials = mapCredentials(spec, ctx);
      // Half a vault is worse than none: a failed credential removes it. The created credentials are
      // what the vault holds: no list needed to read them back.
      const { created, filled } = await kind.createFilled(
        ctx,
        spec,
        (metadata) => vaultToWire(spec, logical, metadata),
        async (vaultId) => {
          const added: Json[] = [];
          for (const credential of credentials) added.push(await addCredential(ctx, vaultId, credential));
          return added;
        },
      );
      return toRemote(created, filled, logical, spec);
    },

    ...kind.listReader(),
    readsWhileListing: true,

    async read(ctx, id, prior, listed) {
      // The credentials need only the vault's id: read them while the vault list is walked.
      const credentials = credentialsOf(ctx.http, id, ctx.signal);
      credentials.catch(() => {});
      const remote = await kind.readLive(ctx, listed, id);
      if (remote === "gone") return "gone";
      return toRemote(remote, await credentials, logicalNameOf(ctx.owner.resource), prior?.spec);
    },

    async remove(ctx, id) {
      await kind.remove(ctx, id);
    },

    findOwned,
    list,
  };

  if (!profile.vaultInPlaceUpdate)
    return {
      ...handler,
      createBeforeDestroy: true,
      // An adopted vault whose create answer was lost (or whose run died before its credentials
      // were added) gets the declared credentials it lacks, by name; the vault is kept. Any other
      // difference shows on the next plan and replaces it, as every change of this vault does.
      async complete(ctx, id, spec) {
        const present = new Set(
          (await credentialsOf(ctx.http, id, ctx.signal))
            .filter((c) => !isArchived(c))
            .map((c) => str(c.display_name) ?? ""),
        );
        for (const credential of mapCredentials(spec, ctx))
          if (!present.has(credential.name)) await addCredential(ctx, id, credential);
        const remote = await kind.readLive(ctx, undefined, id);
        if (remote === "gone")
          throw new UnforeseeableError("remote", `vault ${id} was deleted while its credentials were added`);
        return toRemote(
          remote,
          await credentialsOf(ctx.http, id, ctx.signal),
          logicalNameOf(ctx.owner.resource),
          spec,
        );
      },
    };

  handler.update = async (ctx, id, spec) => {
    const logical = logicalNameOf(ctx.owner.resource);
    const declared = withOwnership(spec.metadata, ctx.owner, METADATA_LIMITS);
    const current = await getOrGone(ctx.http, { path: `/vaults/${id}`, signal: ctx.signal });
    const metadata =
      profile.metadataUpdate === "patch" && current !== "gone"
        ? metadataPatch(current.metadata, declared)
        : declared;
    const response = await ctx.http.request<Json>({
      method: "POST",
      path: `/vaults/${id}`,
      json: { ...vaultToWire(spec, logical, declared), metadata },
      signal: ctx.signal,
    });
    const remoteCredentials = (await credentialsOf(ctx.http, id, ctx.signal)).filter((c) => !isArchived(c));
    const byName = new Map(remoteCredentials.map((c) => [str(c.display_name) ?? "", c]));
    const declaredNames = new Set<string>();
    for (const credential of mapCredentials(spec, ctx)) {
      declaredNames.add(credential.name);
      const existing = byName.get(credential.name);
      const existingType = existing && isRecord(existing.auth) ? existing.auth.type : existing?.type;
      if (existing && existingType === credential.type) {
        await ctx.http.request({
          method: "POST",
          path: `/vaults/${id}/credentials/${idOf(existing)}`,
          json: credential.body,
          signal: ctx.signal,
        });
        continue;
      }
      if (existing) await deleteCredential(ctx, id, idOf(existing));
      await addCredential(ctx, id, credential);
    }
    // Every credential in a vault this project owns is the project's: undeclared ones go.
    for (const [name, credential] of byName)
      if (!declaredNames.has(name)) await deleteCredential(ctx, id, idOf(credential));
    return toRemote(response.body, await credentialsOf(ctx.http, id, ctx.signal), logical, spec);
  };
  return handler;
}

async function deleteCredential(ctx: HandlerContext, vaultId: string, credentialId: string): Promise<void> {
  await deleteIfPresent(ctx, `/vaults/${vaultId}/credentials/${credentialId}`);
}
