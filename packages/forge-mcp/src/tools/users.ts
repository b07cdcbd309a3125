import { z } from "zod";
import { pagination, tool } from "./define.js";

export const userTools = [
  tool({
    name: "get_current_user",
    description: "Who am I: the forge user behind the current token.",
    write: false,
    input: {},
    run: (api) => api.get("/user"),
  }),
  tool({
    name: "list_users",
    description: "Find users by name, username or email.",
    write: false,
    input: { search: z.string().optional(), username: z.string().optional(), ...pagination },
    run: (api, q) => api.get("/users", q),
  }),
];
