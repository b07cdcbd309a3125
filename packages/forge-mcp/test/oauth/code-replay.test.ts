import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, type Forge, seedApp, startForge } from "../forge-sim.js";
import { postForm, type RunningForgeMcp, SECRET, startForgeMcp } from "../helpers.js";
import { authorizeToCode, newClient, pkce, redeem } from "../oauth-client.js";

/**
 * RFC 6749 §4.1.2 / §10.5: a proxy code redeemed a second time is refused and the tokens its first
 * redemption produced are revoked at the forge. Memory mode and stateless mode on one replica here;
 * across replicas that needs Redis (oauth/stateless-redis.e2e.test.ts); without it a replay on another
 * replica is not seen (oauth/stateless.test.ts, src/oauth/README.md "One-time use across replicas").
 */

const modes = {
  memory: {},
  stateless: { OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET },
} as const;

async function forgeAccepts(forge: Forge, accessToken: string): Promise<boolean> {
  const r = await fetch(`${forge.origin}/oauth/token/info`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return r.status === 200;
}

describe("a replayed proxy code revokes the tokens it produced", () => {
  let forge: Forge;
  const s: Partial<Record<keyof typeof modes, RunningForgeMcp>> = {};

  beforeAll(async () => {
    forge = await startForge();
    for (const [mode, extra] of Object.entries(modes)) {
      s[mode as keyof typeof modes] = await startForgeMcp({
        FORGE_MCP_OAUTH: "true",
        FORGE_OAUTH_CALLBACK_PROXY: "true",
        FORGE_OAUTH_CONSENT: "false",
        FORGE_OAUTH_APP_ID: APP_ID,
        FORGE_API_URL: forge.apiUrl,
        ...extra,
      });
    }
    await seedApp(
      forge,
      Object.values(s).map((x) => `${x.url}/callback`),
    );
  });
  afterAll(async () => {
    await Promise.all(Object.values(s).map((x) => x.close()));
    await forge?.close();
  });

  /** A sign-in and its first redemption. */
  async function redeemedOnce(mode: keyof typeof modes) {
    const base = s[mode]!.url;
    const clientId = await newClient(base);
    const p = pkce();
    const { code } = await authorizeToCode(base, clientId, p.challenge);
    const first = await redeem(base, clientId, code!, p.verifier);
    expect(first.status).toBe(200);
    return { base, clientId, p, code: code!, first };
  }

  it.each(Object.keys(modes) as (keyof typeof modes)[])(
    "%s: the second redemption is invalid_grant; the first one's access and refresh tokens stop working",
    async (mode) => {
      const { base, clientId, p, code, first } = await redeemedOnce(mode);
      expect(await forgeAccepts(forge, first.body.access_token)).toBe(true);

      const replay = await redeem(base, clientId, code, p.verifier);
      expect(replay.status).toBe(400);
      expect(replay.body.error).toBe("invalid_grant");
      expect(replay.body.access_token).toBeUndefined();
      expect(await forgeAccepts(forge, first.body.access_token)).toBe(false);
      const refreshed = await postForm(`${base}/token`, {
        grant_type: "refresh_token",
        client_id: clientId,
        refresh_token: first.body.refresh_token,
      });
      expect(refreshed.body.error).toBe("invalid_grant");
    },
  );

  it.each(Object.keys(modes) as (keyof typeof modes)[])(
    "%s: a replay without the verifier is refused and revokes nothing (the code alone cannot sign its user out)",
    async (mode) => {
      const { base, clientId, p, code, first } = await redeemedOnce(mode);
      expect((await redeem(base, clientId, code, pkce().verifier)).body.error).toBe("invalid_grant");
      expect((await redeem(base, await newClient(base), code, p.verifier)).body.error).toBe("invalid_grant");
      expect(await forgeAccepts(forge, first.body.access_token)).toBe(true);
    },
  );
});
