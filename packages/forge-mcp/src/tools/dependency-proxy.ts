import { z } from "zod";
import { enc } from "../forge/api.js";
import { groupId, tool } from "./define.js";
import { gql, payload, result } from "./gql.js";

/**
 * A group's dependency proxy for container images: its settings and cached blobs (GraphQL, where
 * GitLab serves them) and purging the cache (REST). The proxy secret is written, never read back.
 */

const groupPath = (g: string | number) => {
  if (typeof g === "number" || /^\d+$/.test(g))
    throw new Error(
      "the dependency proxy tools take the group's full path (GitLab's GraphQL names groups by path)",
    );
  return g;
};

export const dependencyProxyTools = [
  tool({
    name: "get_dependency_proxy_settings",
    description:
      "Get a group's dependency proxy: enabled, image prefix, cached blob count and size, TTL policy.",
    write: false,
    endpoint: "POST /api/graphql (Group.dependencyProxySetting)",
    input: { group_id: groupId },
    run: async (api, a) => {
      const path = groupPath(a.group_id);
      const data = await gql(
        api,
        "query($g: ID!) { group(fullPath: $g) { dependencyProxySetting { enabled } dependencyProxyImagePrefix dependencyProxyBlobCount dependencyProxyTotalSize dependencyProxyImageTtlPolicy { enabled ttl } } }",
        { g: path },
        { group: path },
      );
      const g = data.group;
      if (!g) throw new Error(`group ${path} was not found`);
      return result({
        enabled: g.dependencyProxySetting?.enabled ?? false,
        image_prefix: g.dependencyProxyImagePrefix,
        blob_count: g.dependencyProxyBlobCount,
        total_size: g.dependencyProxyTotalSize,
        ttl_policy: g.dependencyProxyImageTtlPolicy,
      });
    },
  }),
  tool({
    name: "update_dependency_proxy_settings",
    description:
      "Turn a group's dependency proxy on or off, or set the credentials it pulls with (identity, secret).",
    write: true,
    endpoint: "POST /api/graphql (updateDependencyProxySettings)",
    input: {
      group_id: groupId,
      enabled: z.boolean().optional(),
      identity: z.string().optional(),
      secret: z.string().optional().describe("Written to the forge, never answered back"),
    },
    run: async (api, a) => {
      const path = groupPath(a.group_id);
      const data = await gql(
        api,
        "mutation($g: ID!, $enabled: Boolean, $identity: String, $secret: String) { updateDependencyProxySettings(input: {groupPath: $g, enabled: $enabled, identity: $identity, secret: $secret}) { dependencyProxySetting { enabled identity } errors } }",
        { g: path, enabled: a.enabled, identity: a.identity, secret: a.secret },
        { group: path },
      );
      return result(payload(data, "updateDependencyProxySettings").dependencyProxySetting);
    },
  }),
  tool({
    name: "list_dependency_proxy_blobs",
    description:
      "List the image layers a group's dependency proxy has cached (cursor paging with first/after).",
    write: false,
    endpoint: "POST /api/graphql (Group.dependencyProxyBlobs)",
    input: {
      group_id: groupId,
      first: z.number().int().min(1).max(100).default(20),
      after: z.string().optional(),
    },
    run: async (api, a) => {
      const path = groupPath(a.group_id);
      const data = await gql(
        api,
        "query($g: ID!, $first: Int, $after: String) { group(fullPath: $g) { dependencyProxyBlobs(first: $first, after: $after) { nodes { id fileName size createdAt } pageInfo { hasNextPage endCursor } } } }",
        { g: path, first: a.first, after: a.after },
        { group: path },
      );
      if (!data.group) throw new Error(`group ${path} was not found`);
      return result(data.group.dependencyProxyBlobs);
    },
  }),
  tool({
    name: "purge_dependency_proxy_cache",
    description: "Empty a group's dependency proxy cache (runs in the background at the forge).",
    write: true,
    destructive: true,
    endpoint: "DELETE /groups/:id/dependency_proxy/cache",
    input: { group_id: groupId },
    run: (api, a) => api.delete(`/groups/${enc(a.group_id)}/dependency_proxy/cache`),
  }),
];
