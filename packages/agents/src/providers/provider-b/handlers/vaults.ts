// provider_b vaults (both domains): the vault first, then one call per credential. A change is a
// replacement (new vault + credentials, then the old vault deleted), as the reference applies it.
import { isConflict } from "../../common/errors.js";
import { removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { logicalName, ownerOf, userMetadata, withOwnership } from "../../common/ownership.js";
import { collect, walkAfterId } from "../../common/paging.js";
import { carryPriorSecrets } from "../../common/secrets.js";
import type { HandlerContext, KindHandler, PriorState, RemoteObject } from "../../types.js";
import type { ApiDomain } from "../client.js";
import { listVaults } from "../listing.js";
import {
  type CredentialDecl,
  credentialDesired,
  credentialFromWire,
  credentialToWire,
  secretOf,
} from "../mappers/credential.js";
import { bothDomainsKind, client, findOwnedIn, requireOneDomain, specDomain } from "./shared.js";

interface VaultDecl {
  display_name?: string;
  credentials?: CredentialDecl[];
  metadata?: Record<string, string>;
}

async function toRemote(
  ctx: HandlerContext,
  wire: Wire,
  domain: ApiDomain,
  prior?: PriorState,
  known?: (Wire & { id: string })[],
): Promise<RemoteObject> {
  const id = String(wire.id);
  // `known`: the credentials we just wrote, which spares a list call after a create.
  const creds =
    known ??
    (
      await collect(
        walkAfterId<Wire & { id: string }>(client(ctx, domain), `/vaults/${id}/credentials`, {}, ctx.signal),
      )
    ).filter((c) => !c.archived_at);
  return {
    id,
    spec: {
      ...(wire.display_name && wire.display_name !== logicalName(ctx.owner)
        ? { display_name: wire.display_name }
        : {}),
      credentials: carryPriorSecrets(
        creds.map((c) => credentialFromWire(c as never)),
        prior,
      ),
      metadata: userMetadata(wire.metadata),
      derived: { domain },
    },
    owner: ownerOf(wire.metadata),
    extra: {
      domain,
      credential_ids: Object.fromEntries(creds.map((c) => [String(c.display_name ?? c.id), c.id])),
    },
  };
}

const kind = bothDomainsKind("/vaults");

export const vaultHandler: KindHandler = {
  list: listVaults,
  sensitive: ["credentials.*.secret_value", "credentials.*.access_token"],
  createBeforeDestroy: true,
  desired(spec) {
    const decl = spec as VaultDecl;
    return {
      ...(decl.display_name !== undefined ? { display_name: decl.display_name } : {}),
      credentials: (decl.credentials ?? []).map(credentialDesired),
      metadata: { ...(decl.metadata ?? {}) },
      derived: { domain: requireOneDomain(spec, "vault") },
    };
  },
  async create(ctx, spec) {
    const domain = requireOneDomain(spec, logicalName(ctx.owner));
    const http = client(ctx, domain);
    const decl = spec as VaultDecl;
    const credentials = (decl.credentials ?? []).map(credentialToWire);
    for (const c of credentials) {
      for (const h of [ctx.http, http]) h.addSecret(secretOf(c.auth));
    }
    const body = {
      display_name: decl.display_name ?? logicalName(ctx.owner),
      metadata: withOwnership(decl.metadata, ctx.owner),
    };
    let vault: Wire;
    let adopted = false;
    try {
      vault = await send(ctx, http, { method: "POST", path: "/vaults", json: body });
    } catch (error) {
      const mine = isConflict(error) ? await findOwnedIn(ctx, http, "/vaults", ctx.owner) : undefined;
      if (!mine) throw error;
      vault = mine;
      adopted = true;
    }
    const vaultId = String(vault.id);
    const written: (Wire & { id: string })[] = [];
    try {
      const existing = adopted
        ? await collect(walkAfterId<Wire>(http, `/vaults/${vaultId}/credentials`, {}, ctx.signal))
        : [];
      for (const credential of credentials) {
        // On an adopted vault a same-named credential is replaced: its secret cannot be compared.
        for (const stale of existing.filter((c) => c.display_name === credential.display_name)) {
          await removeTolerant(http, "DELETE", `/vaults/${vaultId}/credentials/${stale.id}`, ctx.signal);
        }
        written.push(
          await send<Wire & { id: string }>(ctx, http, {
            method: "POST",
            path: `/vaults/${vaultId}/credentials`,
            json: credential,
          }),
        );
      }
    } catch (error) {
      // A half-made vault would be adopted later with missing credentials: remove it.
      if (!adopted) await removeTolerant(http, "DELETE", `/vaults/${vaultId}`, ctx.signal).catch(() => {});
      throw error;
    }
    return toRemote(ctx, vault, domain, undefined, adopted ? undefined : written);
  },
  // The list shows the vault; its credentials are still read from their own list per vault.
  ...kind.listReader(),
  async read(ctx, id, prior, listed) {
    const domain = specDomain(prior?.spec);
    const found = await kind.readLive(ctx, listed, id, domain);
    if (found === "gone") return "gone";
    return toRemote(ctx, found.wire, found.domain, prior);
  },
  async remove(ctx, id, prior) {
    await removeTolerant(
      client(ctx, specDomain(prior?.spec) ?? "managed"),
      "DELETE",
      `/vaults/${id}`,
      ctx.signal,
    );
  },
  // An adopted vault an interrupted create left without some of its credentials: add those,
  // keep the ones that match (made by that create from the same declaration), re-make a credential
  // whose shown fields differ, remove undeclared ones. The vault itself is never replaced.
  async complete(ctx, id, spec, found) {
    const domain = specDomain(found.spec) ?? requireOneDomain(spec, logicalName(ctx.owner));
    const http = client(ctx, domain);
    const credentials = ((spec as VaultDecl).credentials ?? []).map(credentialToWire);
    for (const c of credentials) {
      for (const h of [ctx.http, http]) h.addSecret(secretOf(c.auth));
    }
    const existing = (
      await collect(walkAfterId<Wire & { id: string }>(http, `/vaults/${id}/credentials`, {}, ctx.signal))
    ).filter((c) => !c.archived_at);
    const shown = (c: Wire) =>
      JSON.stringify(
        credentialFromWire({
          id: "",
          display_name: c.display_name as string,
          auth: c.auth as Record<string, unknown>,
        }),
      );
    const kept = new Set<string>();
    for (const credential of credentials) {
      const same = existing.find(
        (c) =>
          !kept.has(c.id) && c.display_name === credential.display_name && shown(c) === shown(credential),
      );
      if (same) {
        kept.add(same.id);
        continue;
      }
      await send(ctx, http, { method: "POST", path: `/vaults/${id}/credentials`, json: credential });
    }
    for (const stale of existing.filter((c) => !kept.has(c.id))) {
      await removeTolerant(http, "DELETE", `/vaults/${id}/credentials/${stale.id}`, ctx.signal);
    }
    const vault = await send(ctx, http, { method: "GET", path: `/vaults/${id}` });
    return toRemote(ctx, vault, domain);
  },
  findOwned: kind.ownedFinder((ctx, wire, domain) => toRemote(ctx, wire, domain)),
};
