import { z } from "zod";
import { tool } from "./define.js";
import { gql, result } from "./gql.js";

/** Several users by username in one call (GraphQL `users(usernames:)`; user records are no project's). */
export const userLookupTools = [
  tool({
    name: "get_users",
    description:
      "Get several users by username at once (id, username, name, state, web URL); unknown names are left out.",
    write: false,
    endpoint: "POST /api/graphql (Query.users)",
    input: { usernames: z.array(z.string().min(1)).min(1).max(100) },
    run: async (api, a) => {
      const data = await gql(
        api,
        "query($names: [String!]) { users(usernames: $names, first: 100) { nodes { id username name state webUrl } } }",
        { names: a.usernames },
        { noProjectData: true },
      );
      return result(data.users?.nodes ?? []);
    },
  }),
];
