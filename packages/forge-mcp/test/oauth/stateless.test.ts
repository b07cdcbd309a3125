import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, seedApp, startForge } from "../forge-sim.js";
import {
  getManual,
  OTHER_SECRET,
  postForm,
  type RunningForgeMcp,
  SECRET,
  startForgeMcp,
  testClock,
} from "../helpers.js";
import { authorizeToCode, authorizeUrl, newClient, pkce, redeem } from "../oauth-client.js";
import { proxyCodeVia, statelessEnv } from "../stateless-helpers.js";

/**
 * Stateless mode: every replica with the secret serves every step. All replicas share one public
 * URL here (the first one's), as they would behind a load balancer; each test picks the replica
 * per step by calling its own port.
 */

const NEW_SECRET = Buffer.alloc(32, 3).toString("base64");

describe("stateless proxy mode", () => {
  let forge: Forge;
  const r: Record<string, RunningForgeMcp> = {};
  const clock = testClock();
  let publicUrl = "";

  beforeAll(async () => {
    forge = await startForge();
    const env = (extra: Record<string, string>) => statelessEnv(forge.apiUrl, extra);
    r.a = await startForgeMcp(env({}), { now: clock.now });
    publicUrl = r.a.url;
    const shared = { MCP_SERVER_URL: publicUrl };
    r.b = await startForgeMcp(env(shared), { now: clock.now });
    r.foreign = await startForgeMcp(env({ ...shared, OAUTH_STATELESS_SECRET: OTHER_SECRET }), {
      now: clock.now,
    });
    r.rotated = await startForgeMcp(
      env({ ...shared, OAUTH_STATELESS_SECRET: NEW_SECRET, OAUTH_STATELESS_SECRET_PREVIOUS: SECRET }),
    );
    r.consent1 = await startForgeMcp(env({ ...shared, FORGE_OAUTH_CONSENT: "true" }));
    r.consent2 = await startForgeMcp(env({ ...shared, FORGE_OAUTH_CONSENT: "true" }));
    await seedApp(forge, [`${publicUrl}/callback`]);
  });
  afterAll(async () => {
    await Promise.all(Object.values(r).map((x) => x.close()));
    await forge?.close();
  });

  const codeVia = (reg: RunningForgeMcp, auth: RunningForgeMcp, cb: RunningForgeMcp) =>
    proxyCodeVia(publicUrl, reg, auth, cb);

  it("register, authorize, callback and token each on a different replica: tokens returned", async () => {
    const { clientId, p, code } = await codeVia(r.a!, r.b!, r.a!);
    expect(clientId.startsWith("fmcp1.")).toBe(true);
    const t = await redeem(r.b!.url, clientId, code, p.verifier);
    expect(t.status).toBe(200);
    expect(t.body.access_token).toBeTruthy();
  });

  it("a tampered code yields no tokens", async () => {
    const { clientId, p, code } = await codeVia(r.a!, r.a!, r.a!);
    const tampered = code.slice(0, 20) + (code[20] === "A" ? "B" : "A") + code.slice(21);
    const t = await redeem(r.b!.url, clientId, tampered, p.verifier);
    expect(t.body.error).toBe("invalid_grant");
  });

  it("a tampered client id is an unknown client", async () => {
    const clientId = await newClient(r.a!.url);
    const t = await redeem(r.a!.url, `${clientId.slice(0, -3)}AAA`, "x", pkce().verifier);
    expect(t.status).toBe(401);
    expect(t.body.error).toBe("invalid_client");
  });

  it("values sealed with a foreign secret are refused (client id, state, code)", async () => {
    const { clientId, p, code, callbackPathAndQuery, callbackCookie } = await codeVia(r.a!, r.a!, r.a!);
    expect((await redeem(r.foreign!.url, clientId, code, p.verifier)).body.error).toBe("invalid_client");
    const foreignClient = await newClient(r.foreign!.url);
    expect((await redeem(r.a!.url, foreignClient, code, p.verifier)).body.error).toBe("invalid_client");
    // the browser's binding cookie is an HMAC under the secret too: a foreign replica refuses it
    expect(
      (await getManual(`${r.foreign!.url}${callbackPathAndQuery}`, { cookie: callbackCookie })).status,
    ).toBe(403);
  });

  it("after a rotation, values sealed with the previous secret still work", async () => {
    const { clientId, p, code } = await codeVia(r.a!, r.a!, r.a!);
    const t = await redeem(r.rotated!.url, clientId, code, p.verifier);
    expect(t.status).toBe(200);
    // a replica that does not know the new secret yet refuses values sealed with it
    const fresh = await newClient(r.rotated!.url);
    expect((await getManual(`${r.a!.url}/authorize?client_id=${fresh}&response_type=code`)).status).toBe(400);
  });

  it("a replayed code on the same replica yields no tokens", async () => {
    const { clientId, p, code } = await codeVia(r.a!, r.a!, r.a!);
    expect((await redeem(r.a!.url, clientId, code, p.verifier)).status).toBe(200);
    expect((await redeem(r.a!.url, clientId, code, p.verifier)).body.error).toBe("invalid_grant");
  });

  it("without Redis, one-time is per replica: a replay on another replica within 10 minutes is bounded only by expiry and PKCE", async () => {
    const { clientId, p, code } = await codeVia(r.a!, r.a!, r.a!);
    expect((await redeem(r.a!.url, clientId, code, p.verifier)).status).toBe(200);
    // documented limitation (docs/forge-mcp.md): needs the verifier, which never crosses the browser
    expect((await redeem(r.b!.url, clientId, code, pkce().verifier)).body.error).toBe("invalid_grant");
    expect((await redeem(r.b!.url, clientId, code, p.verifier)).status).toBe(200);
  });

  it("the consent page of one replica is accepted by another, and its CSRF check still holds", async () => {
    const clientId = await newClient(r.consent1!.url, "Consent across replicas");
    const p = pkce();
    const page = await getManual(authorizeUrl(r.consent1!.url, clientId, p.challenge, "cs"));
    expect(page.status).toBe(200);
    const field = (n: string) => page.text.match(new RegExp(`name="${n}" value="([^"]+)"`))![1]!;
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
    const form = { state: field("state"), consent_token: field("consent_token"), decision: "approve" };
    expect((await postForm(`${r.consent2!.url}/authorize/consent`, form)).status).toBe(403);
    const approved = await postForm(`${r.consent2!.url}/authorize/consent`, form, { cookie });
    expect(approved.status).toBe(302);
    expect(new URL(approved.headers.get("location")!).searchParams.get("redirect_uri")).toBe(
      `${publicUrl}/callback`,
    );
    // a replica rotated to a new secret still accepts a consent page issued under the previous one
    expect((await postForm(`${r.rotated!.url}/authorize/consent`, form, { cookie })).status).toBe(302);
    // a replica with another secret cannot check the token
    expect((await postForm(`${r.foreign!.url}/authorize/consent`, form, { cookie })).status).toBe(403);
  });

  it("a sealed code older than 10 minutes yields no tokens", async () => {
    const { clientId, p, code } = await codeVia(r.a!, r.a!, r.a!);
    clock.advance(10 * 60 * 1000 + 1);
    expect((await redeem(r.b!.url, clientId, code, p.verifier)).body.error).toBe("invalid_grant");
  });

  it("the full browser flow works across replicas (proxy code from authorizeToCode)", async () => {
    const clientId = await newClient(r.b!.url);
    const p = pkce();
    const { code } = await authorizeToCode(r.a!.url, clientId, p.challenge);
    expect((await redeem(r.b!.url, clientId, code!, p.verifier)).status).toBe(200);
  });
});
