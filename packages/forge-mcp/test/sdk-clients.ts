import {
  Client as ClientV2,
  type OAuthClientProvider as ProviderV2,
  StreamableHTTPClientTransport as TransportV2,
  UnauthorizedError as UnauthorizedV2,
} from "@modelcontextprotocol/client";
import type { OAuthClientProvider as ProviderV1 } from "@modelcontextprotocol/sdk/client/auth.js";
import { UnauthorizedError as UnauthorizedV1 } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { browse } from "./browser.js";
import { CLIENT_CB } from "./forge-sim.js";

/**
 * The official MCP clients with an in-memory OAuthClientProvider whose "browser" is the scripted
 * user agent: redirectToAuthorization follows the redirects and keeps the code for finishAuth.
 */

class MemoryProvider {
  info: any;
  saved: any;
  verifier = "";
  discovery: any;
  code: string | undefined;
  callbackParams = new URLSearchParams();
  readonly steps: string[] = [];
  get redirectUrl() {
    return CLIENT_CB;
  }
  get clientMetadata() {
    return {
      client_name: "forge-mcp test client",
      redirect_uris: [CLIENT_CB],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(i: any) {
    this.info = i;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: any) {
    this.saved = t;
  }
  saveDiscoveryState(d: any) {
    this.discovery = d;
  }
  discoveryState() {
    return this.discovery;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    const { url: back, hops } = await browse(url, CLIENT_CB);
    this.steps.push(...hops);
    const error = back.searchParams.get("error");
    if (error) throw new Error(`authorization failed: ${error}`);
    this.code = back.searchParams.get("code") ?? undefined;
    this.callbackParams = back.searchParams;
  }
}

/** What the signed-in client declares and registers before it connects (e.g. an elicitation handler). */
export interface ClientSetup<C> {
  capabilities?: Record<string, unknown>;
  /** v2 only: "2026" negotiates MCP 2026-07-28 (server/discover), otherwise the 2025 handshake. */
  revision?: "2025" | "2026";
  setup?: (client: C) => void;
}

export async function connectV1(mcpUrl: string, opts: ClientSetup<ClientV1> = {}) {
  const provider = new MemoryProvider();
  const url = new URL(`${mcpUrl}/mcp`);
  const client = new ClientV1({ name: "v1-test", version: "1.0.0" });
  try {
    await client.connect(new TransportV1(url, { authProvider: provider as unknown as ProviderV1 }));
    throw new Error("expected the first connect to need authorization");
  } catch (err) {
    if (!(err instanceof UnauthorizedV1)) throw err;
  }
  const pending = new TransportV1(url, { authProvider: provider as unknown as ProviderV1 });
  await pending.finishAuth(provider.code!);
  const authed = new ClientV1(
    { name: "v1-test", version: "1.0.0" },
    { capabilities: opts.capabilities ?? {} },
  );
  opts.setup?.(authed);
  const transport = new TransportV1(url, { authProvider: provider as unknown as ProviderV1 });
  await authed.connect(transport);
  return { client: authed, provider, transport };
}

/** `clientMetadataUrl`: sign in with a Client ID Metadata Document instead of registering. */
export async function connectV2(
  mcpUrl: string,
  opts: ClientSetup<ClientV2> & { clientMetadataUrl?: string } = {},
) {
  const provider = Object.assign(
    new MemoryProvider(),
    opts.clientMetadataUrl ? { clientMetadataUrl: opts.clientMetadataUrl } : {},
  );
  const url = new URL(`${mcpUrl}/mcp`);
  const client = new ClientV2({ name: "v2-test", version: "1.0.0" });
  try {
    await client.connect(new TransportV2(url, { authProvider: provider as unknown as ProviderV2 }));
    throw new Error("expected the first connect to need authorization");
  } catch (err) {
    if (!(err instanceof UnauthorizedV2)) throw err;
  }
  const pending = new TransportV2(url, { authProvider: provider as unknown as ProviderV2 });
  // v2 takes the whole callback query so it can check RFC 9207 `iss` (proxy mode sends it)
  await pending.finishAuth(provider.callbackParams);
  const authed = new ClientV2(
    { name: "v2-test", version: "1.0.0" },
    {
      capabilities: opts.capabilities ?? {},
      ...(opts.revision === "2026" && { versionNegotiation: { mode: "auto" as const } }),
    },
  );
  opts.setup?.(authed);
  const transport = new TransportV2(url, { authProvider: provider as unknown as ProviderV2 });
  await authed.connect(transport);
  return { client: authed, provider, transport };
}
