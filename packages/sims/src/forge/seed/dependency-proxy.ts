import { ownedRows, seededId, text, textOrNull } from "./records.js";

/**
 * `/_sim/seed` key `dependency_proxy`: a group's ({group, enabled?, blobs: [{file_name, size}]};
 * one per group, a second replaces the first), dumped in that shape with the blobs' ids.
 */
export const dependencyProxy = ownedRows({
  key: "dependency_proxy",
  field: "dependencyProxy",
  owner: "group",
  build: (state, x, group_id, now) => ({
    group_id,
    enabled: x.enabled !== false,
    identity: textOrNull(x.identity),
    secret_set: x.secret_set === true,
    blobs: (Array.isArray(x.blobs) ? x.blobs : []).map((b: Record<string, unknown>) => ({
      id: seededId(state, "record2", b.id),
      file_name: text(b.file_name, "sha256:0"),
      size: typeof b.size === "number" ? b.size : 0,
      created_at: text(b.created_at, now),
    })),
  }),
  replaces: (stored, seeded) => stored.group_id === seeded.group_id,
});
