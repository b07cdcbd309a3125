import { describe, expect, it } from "vitest";
import { APP, freshForge } from "../helpers.js";

// The device authorization grant (RFC 8628) as GitLab 17.1+ serves it (gitlab-wire.md "Device code").
const { f, sim } = freshForge();

const GRANT = "urn:ietf:params:oauth:grant-type:device_code";

async function start(scope = "api") {
  const res = await fetch(`${sim.origin}/oauth/authorize_device`, {
    method: "POST",
    body: new URLSearchParams({ client_id: APP, scope }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const poll = (deviceCode: string) => f.token({ grant_type: GRANT, client_id: APP, device_code: deviceCode });

describe("device authorization grant", () => {
  it("issues codes, answers pending and slow_down, then tokens once the user approves", async () => {
    const d = await start();
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({
      verification_uri: `${sim.origin}/oauth/device`,
      expires_in: 300,
      interval: 5,
    });
    expect(d.body.verification_uri_complete).toBe(`${sim.origin}/oauth/device?user_code=${d.body.user_code}`);
    expect((await poll(d.body.device_code)).body.error).toBe("authorization_pending");
    expect((await poll(d.body.device_code)).body.error).toBe("slow_down");
    await f.advance(5);
    expect((await poll(d.body.device_code)).body.error).toBe("authorization_pending");

    const page = await fetch(d.body.verification_uri_complete);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Device authorized");
    await f.advance(5);
    const t = await poll(d.body.device_code);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: "api" });
    expect((await f.api("/user", { token: t.body.access_token })).body.username).toBe("alice");
    await f.advance(5);
    expect((await poll(d.body.device_code)).body.error).toBe("invalid_grant");
  });

  it("answers access_denied after the user denies on the consent page", async () => {
    await f.control("POST", "/seed", { autoApprove: false });
    const d = await start();
    const consent = await fetch(d.body.verification_uri_complete);
    expect(await consent.text()).toContain('value="deny"');
    const denied = await fetch(`${sim.origin}/oauth/device`, {
      method: "POST",
      body: new URLSearchParams({ user_code: d.body.user_code, decision: "deny" }),
    });
    expect(await denied.text()).toContain("Device access denied");
    const res = await poll(d.body.device_code);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("access_denied");
  });

  it("expires the device code after 300 s", async () => {
    const d = await start();
    await f.advance(300);
    expect((await poll(d.body.device_code)).body.error).toBe("expired_token");
    expect((await fetch(d.body.verification_uri_complete)).status).toBe(400);
  });

  it("refuses an unknown client (401) and a scope the application lacks (400)", async () => {
    const unknown = await fetch(`${sim.origin}/oauth/authorize_device`, {
      method: "POST",
      body: new URLSearchParams({ client_id: "ghost", scope: "api" }),
    });
    expect(unknown.status).toBe(401);
    const bad = await start("sudo");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_scope");
  });
});
