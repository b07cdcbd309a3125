import { afterAll, beforeAll } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { SECRET } from "../helpers.js";
import { startRedis } from "../redis.js";
import { holeServers, signInHoleRows } from "./signin-holes.js";

/**
 * The sign-in holes of the third outside review (issue 36, item 4) in stateless mode with Redis:
 * the rows of ./signin-holes.ts.
 */

describeWith("redis-server")("sign-in holes of the third review (stateless with Redis)", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  beforeAll(async () => {
    redis = await startRedis();
  });
  const ctx = holeServers(() => ({
    FORGE_OAUTH_CALLBACK_PROXY: "true",
    OAUTH_STATELESS_MODE: "true",
    OAUTH_STATELESS_SECRET: SECRET,
    REDIS_URL: redis.url,
  }));
  afterAll(async () => {
    await redis?.stop();
  });

  signInHoleRows(ctx, { proxy: true });
});
