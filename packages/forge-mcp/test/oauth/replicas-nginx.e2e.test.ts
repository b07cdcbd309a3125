import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "../forge-sim.js";
import {
  freePort,
  getManual,
  postForm,
  type RunningForgeMcp,
  register,
  SECRET,
  startForgeMcp,
} from "../helpers.js";
import { startNginx } from "../nginx.js";
import { authorizeUrl, pkce } from "../oauth-client.js";

/** Two stateless replicas behind nginx (round robin): every OAuth step lands on the other replica. */

describeWith("nginx")("two stateless replicas behind nginx", () => {
  let forge: Forge;
  let nginx: Awaited<ReturnType<typeof startNginx>>;
  const replicas: RunningForgeMcp[] = [];

  beforeAll(async () => {
    forge = await startForge();
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    for (const name of ["replica-1", "replica-2"]) {
      replicas.push(
        await startForgeMcp({
          FORGE_MCP_OAUTH: "true",
          FORGE_OAUTH_CALLBACK_PROXY: "true",
          FORGE_OAUTH_CONSENT: "false",
          FORGE_OAUTH_APP_ID: APP_ID,
          FORGE_API_URL: forge.apiUrl,
          OAUTH_STATELESS_MODE: "true",
          OAUTH_STATELESS_SECRET: SECRET,
          MCP_SERVER_URL: publicUrl,
          MCP_TRUST_PROXY: "loopback",
          MCP_REPLICA_NAME: name,
        }),
      );
    }
    nginx = await startNginx(
      port,
      replicas.map((r) => Number(new URL(r.url).port)),
    );
    await seedApp(forge, [`${publicUrl}/callback`]);
  });
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(replicas.map((r) => r.close()));
    await forge?.close();
  });

  it("register, authorize, callback and token land on alternating replicas and the flow succeeds", async () => {
    const seen: Array<[string, string | null]> = [];
    const reg = await register(nginx.url, { redirect_uris: [CLIENT_CB], client_name: "lb" });
    seen.push(["register", reg.headers.get("x-replica")]);
    const clientId = reg.body.client_id as string;
    const p = pkce();

    const auth = await getManual(authorizeUrl(nginx.url, clientId, p.challenge, "lb-state"));
    seen.push(["authorize", auth.headers.get("x-replica")]);
    const atForge = await getManual(auth.location!);
    const callbackUrl = atForge.location!;
    expect(callbackUrl.startsWith(`${nginx.url}/callback?`)).toBe(true);

    // the browser carries the cookie that binds the approval to it, to whichever replica answers
    const binding = auth.headers.getSetCookie()[0]!.split(";")[0]!;
    const cb = await getManual(callbackUrl, { cookie: binding });
    seen.push(["callback", cb.headers.get("x-replica")]);
    const back = new URL(cb.location!);
    expect(back.searchParams.get("state")).toBe("lb-state");

    const tok = await postForm(`${nginx.url}/token`, {
      grant_type: "authorization_code",
      client_id: clientId,
      code: back.searchParams.get("code")!,
      code_verifier: p.verifier,
      redirect_uri: CLIENT_CB,
    });
    seen.push(["token", tok.headers.get("x-replica")]);
    expect(tok.status).toBe(200);

    for (let i = 1; i < seen.length; i++)
      expect(seen[i]![1], `${seen[i]![0]} vs ${seen[i - 1]![0]}`).not.toBe(seen[i - 1]![1]);
    expect(new Set(seen.map((s) => s[1]))).toEqual(new Set(["replica-1", "replica-2"]));

    // and the token works for tool calls through the balancer, on either replica
    const client = new Client({ name: "lb", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tok.body.access_token}` } },
      }),
    );
    const r = (await client.callTool({ name: "whoami", arguments: {} })) as {
      content: Array<{ text: string }>;
    };
    expect(JSON.parse(r.content[0]!.text).username).toBe("alice");
    await client.close();
  });
});
