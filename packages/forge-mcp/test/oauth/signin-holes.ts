import type { IncomingMessage, ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MCP_BODY_LIMIT } from "../../src/mcp-lane.js";
import { browse } from "../browser.js";
import {
  APP_ID,
  CLIENT_CB,
  type Forge,
  forgeCallsSince,
  forgeLogSeq,
  oauthEnv,
  seedApp,
  startForge,
} from "../forge-sim.js";
import { getManual, postForm, type RunningForgeMcp, startForgeMcp } from "../helpers.js";
import { authorizeToCode, authorizeUrl, newClient, pkce, redeem } from "../oauth-client.js";

/**
 * The sign-in holes of the third outside review (issue 36, item 4), as attack rows run in every
 * sign-in mode they apply to: test/oauth/signin-holes.test.ts runs them in passthrough, proxy with
 * memory stores and stateless sealed mode, test/oauth/signin-holes-redis.e2e.test.ts in stateless
 * mode with Redis. Each server admits the group `labs` only (GITLAB_OAUTH_ALLOWED_GROUPS): in the
 * forge simulator bob is a member, alice is not. A second deployment (`other`) shares the forge
 * application and admits anyone.
 */

const ACCEPT = "application/json, text/event-stream";
const WHOAMI = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } };

export interface HoleServers {
  forge: Forge;
  mcp: RunningForgeMcp;
  other: RunningForgeMcp;
}

/** Starts the forge, the gated server of the mode (`env`) and the other deployment. */
export function holeServers(env: () => Record<string, string>): HoleServers {
  const ctx = {} as HoleServers;
  beforeAll(async () => {
    ctx.forge = await startForge();
    ctx.mcp = await startForgeMcp(oauthEnv(ctx.forge, { GITLAB_OAUTH_ALLOWED_GROUPS: "labs", ...env() }));
    ctx.other = await startForgeMcp(oauthEnv(ctx.forge));
    await seedApp(ctx.forge, [`${ctx.mcp.url}/callback`, CLIENT_CB]);
  });
  afterAll(async () => {
    await ctx.mcp?.close();
    await ctx.other?.close();
    await ctx.forge?.close();
  });
  return ctx;
}

/** A POST to /mcp with a bearer token: status and parsed body. */
export async function mcpPost(
  url: string,
  token: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: ACCEPT,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A token the forge issues to our application through its own authorize: this server never saw it. */
async function forgeDirectToken(forge: Forge, user: string): Promise<string> {
  await forge.seed({ signedInUser: user });
  const p = pkce();
  const u = new URL(`${forge.origin}/oauth/authorize`);
  u.search = new URLSearchParams({
    client_id: APP_ID,
    redirect_uri: CLIENT_CB,
    response_type: "code",
    code_challenge: p.challenge,
    code_challenge_method: "S256",
    scope: "api",
    state: "direct",
  }).toString();
  const { url } = await browse(u, CLIENT_CB);
  const t = await postForm(`${forge.origin}/oauth/token`, {
    grant_type: "authorization_code",
    client_id: APP_ID,
    code: url.searchParams.get("code")!,
    code_verifier: p.verifier,
    redirect_uri: CLIENT_CB,
  });
  expect(t.status).toBe(200);
  return t.body.access_token as string;
}

/** Signs `user` in through `base` as a new client: the client id and the token response. */
async function signIn(forge: Forge, base: string, user: string, name = "holes client") {
  await forge.seed({ signedInUser: user });
  const client = await newClient(base, name);
  const p = pkce();
  const { code } = await authorizeToCode(base, client, p.challenge);
  const t = await redeem(base, client, code!, p.verifier);
  expect(t.status).toBe(200);
  return { client, access: t.body.access_token as string, refresh: t.body.refresh_token as string };
}

const refresh = (base: string, clientId: string, token: string) =>
  postForm(`${base}/token`, { grant_type: "refresh_token", client_id: clientId, refresh_token: token });

const forgeInfo = async (forge: Forge, token: string) =>
  (await fetch(`${forge.origin}/oauth/token/info`, { headers: { authorization: `Bearer ${token}` } })).status;

/** How long the flooding client reads nothing after the server answered: a client slow to read. */
const READ_DELAY_MS = 200;

/**
 * Streams up to `total` bytes of a body (JSON whitespace) to /mcp, or another route, on a
 * connection of its own, chunked or with
 * its length stated, and reads nothing until READ_DELAY_MS after the server wrote its answer,
 * sending all the while (as a client on a busy host may). Answers the status it then reads
 * (undefined when the connection was reset before it read the answer), whether the server ended
 * the connection after the answer, and how many bytes the server had read from it by then.
 */
function bodyFlood(
  mcp: RunningForgeMcp,
  token: string | undefined,
  total: number,
  framing: Framing,
  to: { path: string; type: string } = { path: "/mcp", type: "application/json" },
) {
  const u = new URL(mcp.url);
  return new Promise<{ status: number | undefined; ended: boolean; serverRead: number }>((resolve) => {
    const socket = connect(Number(u.port), u.hostname);
    socket.pause();
    // the server's end of this connection (its peer port is this socket's own) and its answer
    let server: Socket | undefined;
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.socket.remotePort !== socket.localPort) return;
      server = req.socket;
      res.once("finish", () => setTimeout(read, READ_DELAY_MS));
    };
    mcp.http.on("request", onRequest);
    let answer = "";
    let ended = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      mcp.http.off("request", onRequest);
      clearTimeout(unanswered);
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1];
      resolve({ status: status ? Number(status) : undefined, ended, serverRead: server?.bytesRead ?? 0 });
      socket.destroy();
    };
    // a reset: whatever was not read by then is lost
    socket.on("error", finish);
    socket.on("close", finish);
    let reading = false;
    const read = () => {
      if (reading) return;
      reading = true;
      socket.on("data", (chunk: Buffer) => {
        answer += chunk.toString("latin1");
      });
      socket.once("end", () => {
        ended = true;
        finish();
      });
      socket.resume();
    };
    // a server that never answers (one reading the whole body) is read from after a while anyway
    const unanswered = setTimeout(read, 10_000);
    const head = [
      `POST ${to.path} HTTP/1.1`,
      `host: ${u.host}`,
      `content-type: ${to.type}`,
      `accept: ${ACCEPT}`,
      ...(token ? [`authorization: Bearer ${token}`] : []),
      framing === "chunked" ? "transfer-encoding: chunked" : `content-length: ${total}`,
      "",
      "",
    ].join("\r\n");
    // JSON whitespace: valid bytes of a body that never ends in time
    const data = Buffer.alloc(256 * 1024, 0x20);
    const piece =
      framing === "chunked"
        ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")])
        : data;
    let sent = 0;
    const pump = () => {
      while (sent < total && !socket.destroyed) {
        sent += data.length;
        if (!socket.write(piece)) return void socket.once("drain", pump);
      }
    };
    socket.once("connect", () => {
      socket.write(head);
      pump();
    });
  });
}

type Framing = "chunked" | "stated length";

/**
 * The rows about what /mcp reads, for any server: `token` gives the caller's credential (undefined
 * for a server that takes none).
 */
export function mcpRequestRows(
  ctx: { forge: Forge; mcp: RunningForgeMcp },
  token: () => Promise<string | undefined>,
): void {
  // Read: the whole head and at most the chunk that crosses the limit (a stated length over it:
  // nothing of the body but what came with the head).
  // side by side: each waits READ_DELAY_MS on a connection of its own
  it.concurrent.for([
    ["chunked", MCP_BODY_LIMIT + 1024 * 1024],
    ["stated length", 1024 * 1024],
  ] as const)(
    "a body over the limit (%s), from a caller /mcp admits: the server reads at most %i bytes, answers 413 and hangs up, and a client slow to read still gets the 413",
    async ([framing, most], { expect }) => {
      const r = await bodyFlood(ctx.mcp, await token(), 128 * 1024 * 1024, framing);
      expect(r).toMatchObject({ status: 413, ended: true });
      expect(r.serverRead).toBeGreaterThan(0);
      expect(r.serverRead).toBeLessThanOrEqual(most);
    },
  );

  it.each([
    ["2025-06-18", 400],
    ["2025-11-25", 400],
    ["2025-03-26", 200],
  ])(
    "under MCP-Protocol-Version %s a batch of tools/call answers %i (400: refused, no element reaches the forge)",
    async (version, status) => {
      const access = await token();
      const batch = Array.from({ length: 5 }, (_, i) => ({ ...WHOAMI, id: i + 1 }));
      const seq = await forgeLogSeq(ctx.forge);
      const r = await mcpPost(ctx.mcp.url, access, batch, { "mcp-protocol-version": version });
      expect(r.status).toBe(status);
      const calls = await forgeCallsSince(ctx.forge, seq, "/api/v4/user");
      if (status === 400) {
        expect(r.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
        expect(calls).toBe(0);
      } else {
        expect(Array.isArray(r.body)).toBe(true);
        expect(calls).toBe(5);
      }
    },
  );
}

/** The rows; `proxy` says whether the mode runs the callback proxy (its pages and /callback). */
export function signInHoleRows(ctx: HoleServers, opts: { proxy: boolean }): void {
  // Anyone may post to these: the body parser alone read an over-limit body to its end (32 MiB
  // here) before its 413. Read now: the head and at most the chunk that crosses 16 KiB.
  it.concurrent.for([
    ["/token", "application/x-www-form-urlencoded"],
    ["/revoke", "application/x-www-form-urlencoded"],
    ["/register", "application/json"],
    // the consent form is the callback proxy's
    ...(opts.proxy ? [["/authorize/consent", "application/x-www-form-urlencoded"] as const] : []),
  ] as const)(
    "an anonymous chunked body over 16 KiB at %s: the server reads at most 1 MiB of it, answers 413 and hangs up",
    async ([path, type], { expect }) => {
      const r = await bodyFlood(ctx.mcp, undefined, 32 * 1024 * 1024, "chunked", { path, type });
      expect(r).toMatchObject({ status: 413, ended: true });
      expect(r.serverRead).toBeGreaterThan(0);
      expect(r.serverRead).toBeLessThanOrEqual(1024 * 1024);
    },
  );

  it("group gate at /mcp: a refused user's token from the forge's own authorize (public app id) gets 401, by the route and by the lane; a member's gets data", async () => {
    const refused = await forgeDirectToken(ctx.forge, "alice");
    for (let i = 0; i < 2; i++) {
      const r = await mcpPost(ctx.mcp.url, refused, WHOAMI);
      expect(r.status).toBe(401);
      expect(JSON.stringify(r.body)).not.toMatch(/alice/);
    }
    const member = await forgeDirectToken(ctx.forge, "bob");
    const lane = ctx.mcp.server.mcpPool().lane;
    for (let i = 0; i < 2; i++) {
      const r = await mcpPost(ctx.mcp.url, member, WHOAMI);
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).toMatch(/bob/);
    }
    // the second call was the lane's: a cached verdict is the gate's too
    expect(ctx.mcp.server.mcpPool().lane).toBe(lane + 1);
  });

  it("group gate at /mcp: a token a refused user got through another deployment sharing the forge application gets 401", async () => {
    const { access } = await signIn(ctx.forge, ctx.other.url, "alice");
    expect((await mcpPost(ctx.other.url, access, WHOAMI)).status).toBe(200);
    expect((await mcpPost(ctx.mcp.url, access, WHOAMI)).status).toBe(401);
  });

  it("refresh-token reuse revokes the family: replaying R0 after R0 → R1 leaves R1 unable to refresh and its access token refused", async () => {
    const { client, refresh: r0 } = await signIn(ctx.forge, ctx.mcp.url, "bob");
    const first = await refresh(ctx.mcp.url, client, r0);
    expect(first.status).toBe(200);
    const r1 = first.body.refresh_token as string;
    const a1 = first.body.access_token as string;
    expect((await mcpPost(ctx.mcp.url, a1, WHOAMI)).status).toBe(200);
    const replay = await refresh(ctx.mcp.url, client, r0);
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: "invalid_grant", error_description: expect.any(String) });
    const after = await refresh(ctx.mcp.url, client, r1);
    expect(after.status).toBe(400);
    expect(after.body.error).toBe("invalid_grant");
    expect(await forgeInfo(ctx.forge, a1)).toBe(401);
    expect((await mcpPost(ctx.mcp.url, a1, WHOAMI)).status).toBe(401);
    // no token in the log
    expect(ctx.mcp.logs.join("")).not.toContain(a1);
  });

  it("/revoke is bound to the client: no client_id or an unknown one gets 401 invalid_client, another client's revocation revokes nothing, its own client's does", async () => {
    const { client, refresh: rt } = await signIn(ctx.forge, ctx.mcp.url, "bob");
    const other = await newClient(ctx.mcp.url, "another client");
    const seq = await forgeLogSeq(ctx.forge);
    const anonymous = await postForm(`${ctx.mcp.url}/revoke`, { token: rt });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe("invalid_client");
    const unknown = await postForm(`${ctx.mcp.url}/revoke`, { token: rt, client_id: "not-a-client" });
    expect(unknown.status).toBe(401);
    const foreign = await postForm(`${ctx.mcp.url}/revoke`, { token: rt, client_id: other });
    expect(foreign.status).toBe(200);
    expect(await forgeCallsSince(ctx.forge, seq, "/oauth/revoke")).toBe(0);
    const still = await refresh(ctx.mcp.url, client, rt);
    expect(still.status).toBe(200);
    const next = still.body.refresh_token as string;
    expect((await postForm(`${ctx.mcp.url}/revoke`, { token: next, client_id: client })).status).toBe(200);
    expect((await refresh(ctx.mcp.url, client, next)).body.error).toBe("invalid_grant");
    expect(await forgeInfo(ctx.forge, still.body.access_token)).toBe(401);
  });

  mcpRequestRows(ctx, async () => (await signIn(ctx.forge, ctx.mcp.url, "bob")).access);

  const pages: Array<[string, () => Promise<{ status: number; headers: Headers; text: string }>]> = [
    [
      "the authorize error page",
      async () => {
        const client = await newClient(ctx.mcp.url, "error page");
        const u = new URL(authorizeUrl(ctx.mcp.url, client, pkce().challenge, "s"));
        u.searchParams.set("response_type", "token");
        return getManual(u.href);
      },
    ],
  ];
  if (opts.proxy)
    pages.push(
      [
        "the consent page",
        async () => {
          const client = await newClient(ctx.mcp.url, "consent page");
          return getManual(authorizeUrl(ctx.mcp.url, client, pkce().challenge, "s"));
        },
      ],
      // the same page path as the group refused page (an error page of /callback)
      ["the callback refused page", () => getManual(`${ctx.mcp.url}/callback?state=unbound&code=x`)],
    );
  it.each(pages)("%s is sent with Referrer-Policy: no-referrer", async (_name, page) => {
    const r = await page();
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(r.headers.get("referrer-policy")).toBe("no-referrer");
  });
}
