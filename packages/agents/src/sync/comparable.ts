// Where a provider lists objects in the shape agents.yaml declares them while its handler compares
// another shape (provider_b: `tools.permissions` against `{builtin, ask}`, `delivery` as one
// word), a remote key is only a change when the two agree neither as written nor once both go
// through the handler's `desired`. Keys that agree there are dropped before reconcile, so an
// unchanged object never rewrites the file just because the spellings differ.
import { sameValue } from "../plan/diff.js";
import type { Spec } from "../providers/types.js";

type Desired = (spec: Spec, ctx: { configDir: string }) => Promise<Spec> | Spec;

export async function withoutComparableAgreement(
  declared: Spec,
  remote: Spec,
  desired: Desired | undefined,
  configDir: string,
): Promise<Spec> {
  if (!desired) return remote;
  let mine: Spec;
  let theirs: Spec;
  try {
    mine = await desired(declared, { configDir });
    // The remote cannot show everything (secrets, references by id): the declaration fills those.
    theirs = await desired({ ...declared, ...remote }, { configDir });
  } catch {
    // A remote shape the handler cannot take (e.g. a credential without its secret) is compared
    // key by key as listed, as before.
    return remote;
  }
  return Object.fromEntries(
    Object.entries(remote).filter(([key]) => !(key in mine && sameValue(mine[key], theirs[key]))),
  );
}
