// An in-memory provider for engine unit tests: records every call, can fail chosen calls, and
// can hold a call open so tests observe parallelism. End-to-end tests use the real simulators.

import { ProviderHttpError } from "../../src/providers/http.js";
import type { KindHandler, Owner, ProviderAdapter, RemoteObject, Spec } from "../../src/providers/types.js";

export interface FakeObject {
  id: string;
  kind: string;
  spec: Spec;
  owner: Owner;
}

export class FakeRemote {
  objects = new Map<string, FakeObject>();
  calls: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  failOn = new Set<string>();
  conflictOnCreate = new Set<string>();
  delayMs = 0;
  private next = 1;

  async call<T>(label: string, fn: () => T): Promise<T> {
    this.calls.push(label);
    // In flight counts apply's steps: plan's owned-object lookups (`find`) run before any of them.
    const step = !label.startsWith("find ");
    if (step) this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((r) => setTimeout(r, this.delayMs));
      if (this.failOn.has(label))
        throw new ProviderHttpError(`fake: ${label} failed`, "fake", "POST", label, 500, "boom", false);
      return fn();
    } finally {
      if (step) this.inFlight--;
    }
  }

  handler(kind: string, extra: Partial<KindHandler> = {}): KindHandler {
    const toRemote = (o: FakeObject): RemoteObject => ({
      id: o.id,
      spec: Object.fromEntries(Object.entries(o.spec).filter(([k]) => k !== "token")),
      owner: o.owner,
    });
    return {
      create: (ctx, spec) =>
        this.call(`create ${ctx.owner.resource}`, () => {
          if (this.conflictOnCreate.has(ctx.owner.resource)) {
            throw new ProviderHttpError("fake: exists", "fake", "POST", "/", 409, "conflict", true);
          }
          const id = `${kind}-${this.next++}`;
          // `uses: ["environments/x"]` proves ordering: resolving throws when x has no id yet.
          for (const ref of (spec.uses as string[] | undefined) ?? []) {
            const [refKind, refName] = ref.split("/") as [never, string];
            ctx.resolve(refKind, refName);
          }
          const obj = { id, kind, spec: { ...spec }, owner: ctx.owner };
          this.objects.set(id, obj);
          return toRemote(obj);
        }),
      read: (_ctx, id) =>
        this.call(`read ${id}`, () => {
          const o = this.objects.get(id);
          return o ? toRemote(o) : "gone";
        }),
      update: (ctx, id, spec) =>
        this.call(`update ${ctx.owner.resource}`, () => {
          const o = this.objects.get(id);
          if (!o) throw new ProviderHttpError("fake: gone", "fake", "POST", "/", 404, "not_found", false);
          o.spec = { ...spec };
          return toRemote(o);
        }),
      remove: (ctx, id) =>
        this.call(`remove ${ctx.owner.resource}`, () => {
          this.objects.delete(id);
        }),
      findOwned: (_ctx, owner) =>
        this.call(`find ${owner.resource}`, () => {
          const o = [...this.objects.values()].find(
            (x) => x.owner.resource === owner.resource && x.owner.project === owner.project,
          );
          return o ? toRemote(o) : undefined;
        }),
      ...extra,
    };
  }

  adapter(): ProviderAdapter {
    return {
      name: "provider_c",
      connect: () => ({
        http: {
          request: async () => {
            throw new Error("the fake provider makes no HTTP calls");
          },
          addSecret() {},
        },
      }),
      kinds: {
        environments: this.handler("environments"),
        vaults: this.handler("vaults", { sensitive: ["token"], update: undefined }),
        agents: this.handler("agents", { replaceOn: ["model"] }),
        skills: this.handler("skills", { replaceOn: ["source"], createBeforeDestroy: true }),
      },
    };
  }
}
