#!/usr/bin/env node
// forge-mcp demo: the forge simulator and forge-mcp (callback proxy mode) on loopback, and the
// official MCP client (v1 SDK) going through the whole OAuth flow before calling a tool.
// Run after `npm run build`: node packages/forge-mcp/demo/demo.mjs
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { Writable } from "node:stream";
import { startSim } from "@agents/sims";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLogger, createServer, loadConfig } from "../dist/index.js";

const APP_ID = "forge-mcp-demo";
const CLIENT_CB = "http://127.0.0.1:33418/callback"; // the MCP client's own (loopback) callback
const say = (s = "") => process.stdout.write(`${s}\n`);
const step = (n, s) => say(`\n${n}. ${s}`);
const short = (u) => {
  const url = new URL(u);
  return `${url.origin}${url.pathname}${url.search ? "?…" : ""}`;
};

const forge = await startSim("forge", { port: 0 });
const forgeOrigin = forge.url.replace(/\/api\/v4$/, "");

const http = createHttpServer();
await new Promise((r) => http.listen(0, "127.0.0.1", r));
const mcpUrl = `http://127.0.0.1:${http.address().port}`;
const config = loadConfig({
  FORGE_MCP_OAUTH: "true",
  FORGE_OAUTH_CALLBACK_PROXY: "true",
  FORGE_OAUTH_APP_ID: APP_ID,
  FORGE_API_URL: forge.url,
  MCP_SERVER_URL: mcpUrl,
});
const quiet = new Writable({ write: (_c, _e, cb) => cb() });
const server = await createServer(config, { logger: createLogger("info", quiet) });
http.on("request", server.app);

// The forge's OAuth application knows exactly one redirect URI: forge-mcp's callback.
await fetch(`${forgeOrigin}/_sim/seed`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    applications: [
      {
        uid: APP_ID,
        name: "forge-mcp",
        confidential: false,
        redirect_uris: [`${mcpUrl}/callback`],
        scopes: ["api", "read_api", "read_user"],
      },
    ],
  }),
});

say("forge-mcp demo: remote MCP server with forge OAuth, callback proxy mode");
say(`  forge (GitLab simulator)  ${forgeOrigin}`);
say(`  forge-mcp                 ${mcpUrl}/mcp`);
say(`  forge application         ${APP_ID}, one redirect URI: ${mcpUrl}/callback`);

/** The user's browser: follows redirects, reads our consent page and approves it. */
async function browser(start) {
  let url = new URL(start);
  let method = "GET";
  let body;
  // forge-mcp's cookies, as a browser keeps them: the consent form's nonce, and the binding that
  // lets /callback finish only in the browser that approved
  const jar = new Map();
  for (let i = 0; i < 10; i++) {
    if (url.href.startsWith(CLIENT_CB)) return url;
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const headers = {
      ...(cookie && url.origin === new URL(mcpUrl).origin ? { cookie } : {}),
      ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    };
    const res = await fetch(url, { method, headers, body, redirect: "manual" });
    if (url.origin === new URL(mcpUrl).origin)
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const eq = pair.indexOf("=");
        const value = pair.slice(eq + 1);
        if (value === "" || /max-age=0/i.test(line)) jar.delete(pair.slice(0, eq));
        else jar.set(pair.slice(0, eq), value);
      }
    const text = await res.text();
    say(`     browser: ${method} ${short(url.href)} → ${res.status}`);
    if (res.status === 302) {
      url = new URL(res.headers.get("location"), url);
      method = "GET";
      body = undefined;
    } else if (text.includes('name="consent_token"')) {
      const name = text.match(/<h1>(.*?)<\/h1>/)[1];
      const redirect = text.match(/<code id="redirect-uri">(.*?)<\/code>/)[1];
      say(`     consent page: "${name}", will return to ${redirect}; the user clicks Continue`);
      const field = (n) => text.match(new RegExp(`name="${n}" value="([^"]*)"`))[1].replace(/&amp;/g, "&");
      body = new URLSearchParams({
        state: field("state"),
        consent_token: field("consent_token"),
        decision: "approve",
      }).toString();
      url = new URL("authorize/consent", url);
      method = "POST";
    } else throw new Error(`unexpected page at ${url.href}: ${res.status}`);
  }
  throw new Error("too many redirects");
}

const store = {};
const provider = {
  get redirectUrl() {
    return CLIENT_CB;
  },
  get clientMetadata() {
    return {
      client_name: "Demo MCP client",
      redirect_uris: [CLIENT_CB],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  },
  clientInformation: () => store.client,
  saveClientInformation: (c) => {
    store.client = c;
    step(2, "forge-mcp answers 401 with WWW-Authenticate; the client reads the metadata and registers");
    say(`     registered: virtual client_id ${c.client_id}`);
  },
  tokens: () => store.tokens,
  saveTokens: (t) => {
    store.tokens = t;
    say(
      `     tokens received: a forge access token (expires in ${t.expires_in}s) and a refresh token (not shown)`,
    );
  },
  saveCodeVerifier: (v) => {
    store.verifier = v;
  },
  codeVerifier: () => store.verifier,
  state: () => {
    store.state = randomUUID();
    return store.state;
  },
  saveDiscoveryState: (d) => {
    store.discovery = d;
  },
  discoveryState: () => store.discovery,
  async redirectToAuthorization(url) {
    step(3, `The client sends the user to ${short(url.href)}`);
    const back = await browser(url);
    store.code = back.searchParams.get("code");
    step(
      4,
      `The client's callback receives a one-time proxy code (state ${back.searchParams.get("state") === store.state ? "matches" : "MISMATCH"})`,
    );
  },
};

try {
  step(1, "The MCP client connects without a token");
  const mcp = new URL(`${mcpUrl}/mcp`);
  try {
    await new Client({ name: "demo", version: "1.0.0" }).connect(
      new StreamableHTTPClientTransport(mcp, { authProvider: provider }),
    );
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  step(5, "The client exchanges the proxy code with its PKCE verifier at /token");
  await new StreamableHTTPClientTransport(mcp, { authProvider: provider }).finishAuth(store.code);

  step(6, "The client reconnects with the bearer token and calls tools");
  const client = new Client({ name: "demo", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
  const { tools } = await client.listTools();
  say(
    `     ${tools.length} tools: ${tools
      .slice(0, 6)
      .map((t) => t.name)
      .join(", ")}, …`,
  );
  const me = await client.callTool({ name: "whoami", arguments: {} });
  const user = JSON.parse(me.content[0].text);
  say(`     whoami → ${user.username} (${user.name})`);
  const users = await client.callTool({ name: "list_users", arguments: { per_page: 2 } });
  const page = JSON.parse(users.content[0].text);
  say(
    `     list_users per_page=2 → ${page.items.map((u) => u.username).join(", ")} (next page ${page.next_page ?? "none"})`,
  );
  await client.close();
  say("\nDone: discovery → registration → consent → forge → callback → token → tool call.");
} finally {
  http.closeAllConnections();
  await new Promise((r) => http.close(r));
  await server.close();
  await forge.close();
}
