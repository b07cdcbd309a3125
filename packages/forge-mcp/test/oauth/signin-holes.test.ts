import { describe } from "vitest";
import { SECRET } from "../helpers.js";
import { holeServers, signInHoleRows } from "./signin-holes.js";

/**
 * The sign-in holes of the third outside review (issue 36, item 4): the rows of ./signin-holes.ts
 * in passthrough mode, proxy mode with memory stores, and stateless sealed mode (with Redis:
 * ./signin-holes-redis.e2e.test.ts).
 */

describe.each([
  ["passthrough", {}, false],
  ["proxy with memory stores", { FORGE_OAUTH_CALLBACK_PROXY: "true" }, true],
  [
    "stateless sealed",
    { FORGE_OAUTH_CALLBACK_PROXY: "true", OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET },
    true,
  ],
] as const)("sign-in holes of the third review (%s)", (_mode, env, proxy) => {
  const ctx = holeServers(() => ({ ...env }));
  signInHoleRows(ctx, { proxy });
});
