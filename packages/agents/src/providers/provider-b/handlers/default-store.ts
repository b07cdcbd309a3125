// The default memory store of a Forward (Identity, Template) pair (spec: Default memory store).
// The provider creates it with the first Forward Session; the tool only finds it (system_managed
// + read_write mount), renames it idempotently, and — when delete_on_destroy is true — captures
// its id before the Template and Identity go, then deletes it permanently afterwards.
import { send, type Wire } from "../../common/handler-kit.js";
import type { DeferredHandler, HandlerContext, PriorState } from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import {
  client,
  DEFAULT_PROVIDER_B_OPTIONS,
  deleteMemoryStorePermanently,
  type ProviderBOptions,
} from "./shared.js";

export interface DefaultStoreDecl {
  name: string;
  description?: string;
  delete_on_destroy?: boolean;
}

export interface Mount {
  memory_store_id: string;
  system_managed?: boolean;
  access?: string;
}

export const DEFAULT_STORE_CLEANUP = "provider_b.default_memory_store.delete";

export async function listMounts(
  ctx: HandlerContext,
  identityId: string,
  templateId: string,
): Promise<Mount[]> {
  const body = await send<{ data?: Mount[] }>(ctx, client(ctx, "forward"), {
    method: "GET",
    path: `/identities/${identityId}/templates/${templateId}/memory_stores`,
  });
  return body?.data ?? [];
}

function systemStoreOf(mounts: Mount[]): Mount | undefined {
  return mounts.find((m) => m.system_managed === true && m.access === "read_write");
}

type DefaultStoreStatus =
  | { status: "pending" }
  | { status: "ready"; id: string; name: string; description?: string };

/** Apply rules 2–3: locate, rename when different, or report pending (no session is created). */
export async function reconcileDefaultStore(
  ctx: HandlerContext,
  identityId: string,
  templateId: string,
  decl: DefaultStoreDecl,
): Promise<DefaultStoreStatus> {
  const store = systemStoreOf(await listMounts(ctx, identityId, templateId));
  if (!store) {
    ctx.warn(
      "default memory store pending: the provider creates it with the first Forward Session of this identity and template; run apply again after a Session exists",
    );
    return { status: "pending" };
  }
  const forward = client(ctx, "forward");
  const current = await send<Wire>(ctx, forward, {
    method: "GET",
    path: `/memory_stores/${store.memory_store_id}`,
  });
  const wantDescription = decl.description;
  const same =
    current.name === decl.name && (wantDescription === undefined || current.description === wantDescription);
  if (!same) {
    await send(ctx, forward, {
      method: "POST",
      path: `/memory_stores/${store.memory_store_id}`,
      json: { name: decl.name, ...(wantDescription !== undefined ? { description: wantDescription } : {}) },
    });
  }
  return {
    status: "ready",
    id: store.memory_store_id,
    name: decl.name,
    ...(wantDescription !== undefined ? { description: wantDescription } : {}),
  };
}

/** Read-back for drift: the store's current name/description, or `pending` until it exists. */
export async function observeDefaultStore(
  ctx: HandlerContext,
  identityId: string,
  templateId: string,
  decl: DefaultStoreDecl | undefined,
): Promise<Record<string, unknown>> {
  const store = systemStoreOf(await listMounts(ctx, identityId, templateId));
  if (!store) return { pending: true };
  const current = await send<Wire>(ctx, client(ctx, "forward"), {
    method: "GET",
    path: `/memory_stores/${store.memory_store_id}`,
  });
  return {
    name: current.name,
    ...(decl?.description !== undefined ? { description: current.description } : {}),
    ...(decl?.delete_on_destroy !== undefined ? { delete_on_destroy: decl.delete_on_destroy } : {}),
  };
}

/**
 * Destroy rules 1 and 4: before anything is removed, resolve Identity, Template and the mount
 * list (a failure aborts the destroy) and persist the store id as a deferred cleanup.
 */
export async function captureForDestroy(
  ctx: HandlerContext,
  templateId: string,
  prior: PriorState,
): Promise<void> {
  const decl = prior.spec.default_memory_store as DefaultStoreDecl | undefined;
  if (decl?.delete_on_destroy !== true) return; // rule: omitted or false retains the store
  const identityId = prior.extra?.identity_id;
  if (typeof identityId !== "string") {
    throw new UnforeseeableError(
      "state",
      `default memory store: the identity of template ${templateId} is not recorded; destroy aborted before deleting anything`,
    );
  }
  const forward = client(ctx, "forward");
  await send(ctx, forward, { method: "GET", path: `/identities/${identityId}` });
  await send(ctx, forward, { method: "GET", path: `/templates/${templateId}` });
  const store = systemStoreOf(await listMounts(ctx, identityId, templateId));
  if (!store) return; // never created: nothing to delete
  await ctx.defer({
    type: DEFAULT_STORE_CLEANUP,
    key: `${identityId}/${templateId}/${store.memory_store_id}`,
    data: { store_id: store.memory_store_id, identity_id: identityId, template_id: templateId },
    description: `permanently delete default memory store ${store.memory_store_id}`,
  });
}

/** Runs after the Template is archived and the Identity deleted (rules 2–3). */
export function defaultStoreCleanup(opts: ProviderBOptions = DEFAULT_PROVIDER_B_OPTIONS): DeferredHandler {
  return {
    async run(ctx, data) {
      const storeId = String(data.store_id);
      // The system mount goes with the Identity; detaching explicitly covers an Identity we kept.
      await client(ctx, "forward")
        .request({
          method: "DELETE",
          path: `/identities/${data.identity_id}/templates/${data.template_id}/memory_stores/${storeId}`,
          allowStatus: [404, 409],
          signal: ctx.signal,
        })
        .catch(() => undefined);
      await deleteMemoryStorePermanently(ctx, opts, storeId);
    },
  };
}
