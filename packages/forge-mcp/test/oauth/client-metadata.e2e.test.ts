import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressProblem } from "../../src/oauth/client-metadata.js";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "../forge-sim.js";
import { getManual, postForm, type RunningForgeMcp, SECRET, startForgeMcp, testClock } from "../helpers.js";
import { connectV2 } from "../sdk-clients.js";

/**
 * Client ID Metadata Documents: an https client_id is fetched (here from a test https server on
 * 127.0.0.1 with a self-signed certificate made by openssl, which is why this is an e2e file) and
 * every SSRF and document rule refuses with invalid_client and no fetch beyond the first hop.
 */

interface DocServer {
  origin: string;
  /** The self-signed certificate, trusted by forge-mcp through its test-only option. */
  ca: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function startDocServer(): Promise<DocServer> {
  const dir = mkdtempSync(join(tmpdir(), "cimd-"));
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1"],
      ...["-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
    ],
    { stdio: "ignore" },
  );
  const key = readFileSync(join(dir, "key.pem"), "utf8");
  const cert = readFileSync(join(dir, "cert.pem"), "utf8");
  rmSync(dir, { recursive: true, force: true });
  const hits = new Map<string, number>();
  let origin = "";
  const server: Server = createServer({ key, cert }, (req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const doc = (over: Record<string, unknown> = {}) => ({
      client_id: origin + path,
      client_name: `CIMD test ${path.split("/").pop()}`,
      redirect_uris: [CLIENT_CB],
      token_endpoint_auth_method: "none",
      ...over,
    });
    const json = (body: unknown, type = "application/json") => {
      res.writeHead(200, { "content-type": type, "cache-control": "max-age=300" });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    if (path.startsWith("/doc/")) return json(doc());
    if (path === "/redirect") return res.writeHead(302, { location: `${origin}/doc/target` }).end();
    if (path === "/big") return json(doc({ padding: "x".repeat(6000) }));
    if (path === "/slow") return; // never answers
    if (path === "/badjson") return json('{"client_id":');
    if (path === "/mismatch") return json(doc({ client_id: "https://other.example/cimd" }));
    if (path === "/badredirect") return json(doc({ redirect_uris: ["http://evil.example/cb"] }));
    if (path === "/html") return json(doc(), "text/html");
    if (path === "/secret") return json(doc({ client_secret: "s" }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    ca: cert,
    hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const authorize = (base: string, clientId: string) =>
  getManual(
    `${base}/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: CLIENT_CB,
      code_challenge: CHALLENGE,
      code_challenge_method: "S256",
      state: "s1",
    })}`,
  );

const OAUTH = { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: APP_ID, FORGE_OAUTH_CALLBACK_PROXY: "true" };
const STATELESS = { OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET };
const LOOPBACK_FOR_TESTS = { FORGE_MCP_CIMD_ALLOW_LOOPBACK_FOR_TESTS: "true" };
/** The table spends one fetch per row that gets as far as a fetch (an address literal counts too). */
const BIG_BUDGET = { OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE: "1000" };

describe("client ID metadata documents", () => {
  let docs: DocServer;
  let forge: Forge;
  let withSwitch: RunningForgeMcp;
  let without: RunningForgeMcp;
  const clock = testClock();

  beforeAll(async () => {
    docs = await startDocServer();
    forge = await startForge();
    const tests = { ca: docs.ca, timeoutMs: 300 };
    withSwitch = await startForgeMcp(
      { ...OAUTH, FORGE_API_URL: forge.apiUrl, ...LOOPBACK_FOR_TESTS, ...BIG_BUDGET },
      { now: clock.now, clientMetadataForTests: tests },
    );
    without = await startForgeMcp(
      { ...OAUTH, ...STATELESS, FORGE_API_URL: forge.apiUrl, ...BIG_BUDGET },
      { clientMetadataForTests: tests },
    );
  });
  afterAll(async () => {
    await withSwitch?.close();
    await without?.close();
    await forge?.close();
    await docs?.close();
  });

  it("is advertised in the authorization-server metadata", async () => {
    const r = await fetch(`${withSwitch.url}/.well-known/oauth-authorization-server`);
    expect(((await r.json()) as Record<string, unknown>).client_id_metadata_document_supported).toBe(true);
  });

  it("names the client on the consent page from its document and the URL's host", async () => {
    const r = await authorize(withSwitch.url, `${docs.origin}/doc/named`);
    expect(r.status).toBe(200);
    expect(r.text).toContain("CIMD test named");
    expect(r.text).toContain(`<strong id="client-host">${new URL(docs.origin).host}</strong>`);
  });

  // [row, server (with the test-only loopback switch or without), client_id, paths the doc server may see]
  const rows: Array<[string, "with" | "without", (o: string) => string, string[]]> = [
    ["plain http", "with", (o) => `${o.replace("https:", "http:")}/doc/a`, []],
    ["no path", "with", (o) => `${o}/`, []],
    ["a query", "with", (o) => `${o}/doc/a?x=1`, []],
    ["a fragment", "with", (o) => `${o}/doc/a#x`, []],
    ["10.x literal", "with", () => "https://10.1.2.3/cimd", []],
    ["192.168.x literal", "with", () => "https://192.168.1.1/cimd", []],
    ["169.254.x (metadata service)", "with", () => "https://169.254.169.254/latest", []],
    ["CGNAT 100.64.x", "with", () => "https://100.64.0.1/cimd", []],
    ["unique-local fc00::/7", "with", () => "https://[fd12::1]/cimd", []],
    ["link-local fe80::", "with", () => "https://[fe80::1]/cimd", []],
    ["IPv4-mapped 10.0.0.1", "with", () => "https://[::ffff:a00:1]/cimd", []],
    ["127.0.0.1 without the switch", "without", (o) => `${o}/doc/nope1`, []],
    ["::1 without the switch", "without", (o) => `${o.replace("127.0.0.1", "[::1]")}/doc/nope2`, []],
    [
      "IPv4-mapped loopback without the switch",
      "without",
      (o) => `${o.replace("127.0.0.1", "[::ffff:7f00:1]")}/doc/nope3`,
      [],
    ],
    [
      "a name resolving to 127.0.0.1 without the switch",
      "without",
      (o) => `${o.replace("127.0.0.1", "localhost")}/doc/nope4`,
      [],
    ],
    ["a redirect", "with", (o) => `${o}/redirect`, ["/redirect"]],
    ["oversize", "with", (o) => `${o}/big`, ["/big"]],
    ["slow", "with", (o) => `${o}/slow`, ["/slow"]],
    ["bad JSON", "with", (o) => `${o}/badjson`, ["/badjson"]],
    ["not JSON content", "with", (o) => `${o}/html`, ["/html"]],
    ["client_id mismatch", "with", (o) => `${o}/mismatch`, ["/mismatch"]],
    ["a redirect_uri registration refuses", "with", (o) => `${o}/badredirect`, ["/badredirect"]],
    ["a client secret", "with", (o) => `${o}/secret`, ["/secret"]],
  ];
  it.each(rows)(
    "refuses %s with invalid_client on a page, never redirected",
    async (_row, which, id, seen) => {
      const before = new Map(docs.hits);
      const r = await authorize((which === "with" ? withSwitch : without).url, id(docs.origin));
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
      expect(r.headers.get("content-type")).toMatch(/^text\/html/);
      expect(r.text).toContain("invalid_client");
      expect(r.text).not.toContain(CLIENT_CB);
      const fetched = [...docs.hits]
        .filter(([p, n]) => n !== (before.get(p) ?? 0))
        .map(([p, n]) => [p, n - (before.get(p) ?? 0)]);
      expect(fetched).toEqual(seen.map((p) => [p, 1]));
    },
  );

  it("refuses an invalid document at /token with invalid_client", async () => {
    const r = await postForm(`${withSwitch.url}/token`, {
      grant_type: "authorization_code",
      client_id: `${docs.origin}/mismatch`,
      code: "x",
      code_verifier: "y",
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: "invalid_client", error_description: expect.any(String) });
  });

  it("judges IPv4-mapped and other address forms as their IPv4 address", () => {
    expect(addressProblem("::ffff:127.0.0.1", false)).toBeDefined();
    expect(addressProblem("::ffff:7f00:1", true)).toBeUndefined();
    expect(addressProblem("::ffff:192.168.0.1", true)).toBeDefined();
    expect(addressProblem("0.0.0.0", true)).toBeDefined();
    expect(addressProblem("::", true)).toBeDefined();
    expect(addressProblem("ff02::1", true)).toBeDefined();
    expect(addressProblem("224.0.0.1", true)).toBeDefined();
    expect(addressProblem("93.184.215.14", false)).toBeUndefined();
    expect(addressProblem("2606:2800:21f:cb07:6820:80da:af6b:8b2c", false)).toBeUndefined();
  });

  it("serves a document from its cache within max-age, and fetches it again after", async () => {
    const id = `${docs.origin}/doc/cached`;
    expect((await authorize(withSwitch.url, id)).status).toBe(200);
    expect((await authorize(withSwitch.url, id)).status).toBe(200);
    expect(docs.hits.get("/doc/cached")).toBe(1);
    clock.advance(301_000);
    expect((await authorize(withSwitch.url, id)).status).toBe(200);
    expect(docs.hits.get("/doc/cached")).toBe(2);
  });

  it("spends a per-address budget of fetches: past it 429, and no fetch", async () => {
    const limited = await startForgeMcp(
      {
        ...OAUTH,
        FORGE_API_URL: forge.apiUrl,
        ...LOOPBACK_FOR_TESTS,
        OAUTH_CLIENT_METADATA_FETCH_RATE_LIMIT_PER_MINUTE: "3",
      },
      { clientMetadataForTests: { ca: docs.ca } },
    );
    try {
      for (const n of [1, 2, 3])
        expect((await authorize(limited.url, `${docs.origin}/doc/budget${n}`)).status).toBe(200);
      const over = await authorize(limited.url, `${docs.origin}/doc/budget4`);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(docs.hits.get("/doc/budget4")).toBeUndefined();
      // a cached document costs nothing
      expect((await authorize(limited.url, `${docs.origin}/doc/budget1`)).status).toBe(200);
      expect(docs.hits.get("/doc/budget1")).toBe(1);
    } finally {
      await limited.close();
    }
  });

  describe.each([
    ["passthrough", { FORGE_OAUTH_CALLBACK_PROXY: "false" }],
    ["proxy", {}],
    ["stateless proxy", STATELESS],
  ])("the official v2 client with clientMetadataUrl, %s mode", (mode, extra) => {
    let mcp: RunningForgeMcp;
    beforeAll(async () => {
      mcp = await startForgeMcp(
        { ...OAUTH, FORGE_API_URL: forge.apiUrl, ...LOOPBACK_FOR_TESTS, ...extra },
        { clientMetadataForTests: { ca: docs.ca } },
      );
      await seedApp(forge, mode === "passthrough" ? [CLIENT_CB] : [`${mcp.url}/callback`]);
    });
    afterAll(async () => {
      await mcp?.close();
    });

    it("signs in without registering and calls a tool", async () => {
      const path = `/doc/v2-${mode.replace(" ", "-")}`;
      const { client, provider } = await connectV2(mcp.url, { clientMetadataUrl: `${docs.origin}${path}` });
      expect(provider.info.client_id).toBe(`${docs.origin}${path}`);
      expect(docs.hits.get(path)).toBe(1);
      // the forge user behind the token the client obtained
      const { content, isError } = await client.callTool({ name: "whoami", arguments: {} });
      expect(isError).toBeFalsy();
      expect(JSON.parse((content as Array<{ text: string }>)[0]!.text)).toMatchObject({ username: "alice" });
      await client.close();
    });
  });
});
