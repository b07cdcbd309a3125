// The state entry of an imported object (`agents import`, or an `import:` entry applied without an
// update): what the remote shows becomes last-applied, so the next plan lists what differs from
// the file, and the entry is marked so that plan also stamps this project's ownership labels.
import type { DesiredResource } from "../plan/types.js";
import type { RemoteObject } from "../providers/types.js";
import type { ResourceState } from "../state/types.js";

export function importedEntry(
  declared: Pick<DesiredResource, "address" | "kind" | "name" | "provider" | "dependsOn">,
  remote: RemoteObject,
): ResourceState {
  return {
    address: declared.address,
    kind: declared.kind,
    name: declared.name,
    provider: declared.provider,
    id: remote.id,
    external: false,
    spec: remote.spec,
    extra: { ...remote.extra, imported: true },
    ...(remote.version !== undefined ? { version: remote.version } : {}),
    dependsOn: [...declared.dependsOn].sort(),
    updatedAt: new Date().toISOString(),
  };
}
