// Each declared resource is bound once to what every phase of a plan reads of it: its handler,
// its comparable spec, its state entry and what the remote showed. The phases then run over the
// bound list instead of going back to the provider registry and the state for each resource.
import { createHash } from "node:crypto";
import type { ProviderRuntime } from "../providers/registry.js";
import type { KindHandler, Spec } from "../providers/types.js";
import { hashSecrets } from "../state/secrets.js";
import type { ResourceState } from "../state/types.js";
import { breather } from "./bounded.js";
import { compareText } from "./order.js";
import type { RefreshResult } from "./refresh.js";
import type { DesiredResource } from "./types.js";

export interface BoundResource {
  resource: DesiredResource;
  handler: KindHandler;
  /** The comparable desired spec: handler `desired` applied, provider pin dropped, secrets keyed-hashed. */
  spec: Spec;
  /** The state entry, when state records the resource. */
  prior: ResourceState | undefined;
  /** What the refresh read, once it is answered (nothing when the resource was not read). */
  remote?: RefreshResult;
}

/** Binds each declared resource; `recorded` gives the state entries (none: nothing recorded). */
export async function bindDesired(
  desired: DesiredResource[],
  runtime: ProviderRuntime,
  stateKey: Buffer,
  recorded: Record<string, ResourceState> = {},
): Promise<BoundResource[]> {
  const out: BoundResource[] = [];
  // Reads may be on the wire meanwhile: let them go out and come back.
  const breathe = breather();
  for (const resource of desired) {
    const pause = breathe();
    if (pause) await pause;
    const handler = runtime.requireHandler(resource.provider, resource.kind, resource.address);
    const declared =
      (await handler.desired?.(resource.spec, { configDir: runtime.configDir, name: resource.name })) ??
      resource.spec;
    // The provider pin is already part of the address; comparing it again would only add noise.
    const { provider: _pin, ...comparable } = declared;
    const spec = hashSecrets(comparable, handler.sensitive, stateKey);
    out.push({ resource, handler, spec, prior: recorded[resource.address] });
  }
  return out;
}

/** The comparable desired spec of each resource, by address. */
export function specsOf(bound: BoundResource[]): Map<string, Spec> {
  return new Map(bound.map((b) => [b.resource.address, b.spec]));
}

/** The comparable desired spec of each resource (handler `desired` applied, secrets keyed-hashed). */
export async function prepareDesired(
  desired: DesiredResource[],
  runtime: ProviderRuntime,
  stateKey: Buffer,
): Promise<Map<string, Spec>> {
  return specsOf(await bindDesired(desired, runtime, stateKey));
}

export function configHash(desired: DesiredResource[], hashed: Map<string, Spec>): string {
  const canonical = [...desired]
    .sort((a, b) => compareText(a.address, b.address))
    // A lifecycle block counts only where there is one: hashes of files without any stay as they were.
    .map((r) => [
      r.address,
      hashed.get(r.address),
      r.external?.id ?? null,
      [...r.dependsOn].sort(),
      ...(r.lifecycle ? [r.lifecycle] : []),
    ]);
  return `sha256:${createHash("sha256").update(JSON.stringify(canonical)).digest("hex")}`;
}
