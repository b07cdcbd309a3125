// Provider endpoints carry the provider's API key on every request. A plain http:// endpoint on
// another machine sends that key in clear text, so it is refused unless the provider block opts
// in with `allow_insecure_http: true`. Loopback (127.0.0.0/8, ::1, localhost) is always allowed:
// nothing leaves the machine, and the simulators run there. One check for every path that sets
// an endpoint: the provider block's `base_url`/`gateway` (validate, AGENTS1036) and the
// AGENTS_BASE_URL_<PROVIDER> variables (the engine, before any request).

import { z } from "zod";
import { UnforeseeableError } from "./unforeseeable.js";

/** The provider-block field that accepts a plain http:// endpoint on another host. */
export const ALLOW_INSECURE_HTTP = "allow_insecure_http";

/** The schema of `allow_insecure_http`, shared by every provider block. */
export const allowInsecureHttpField = z
  .boolean()
  .optional()
  .describe(
    "extension: accept a plain `http://` endpoint on a host that is not loopback; the API key then travels in clear text (default false)",
  );

/** Whether a URL's host is this machine: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (host === "localhost" || host === "::1") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Why `url` must not carry the API key (a plain http:// URL to a host that is not loopback), or
 * undefined when it may. `where` names the setting in the message (a field or a variable).
 */
export function insecureEndpointProblem(
  url: string,
  where: string,
): { message: string; hint: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // not a URL: the schema (or the request) reports that
  }
  if (parsed.protocol !== "http:" || isLoopbackHost(parsed.hostname)) return undefined;
  return {
    message: `${where} is plain http:// to ${parsed.hostname}, which is not loopback: the provider's API key would travel in clear text`,
    hint: `use an https:// URL, or set \`${ALLOW_INSECURE_HTTP}: true\` in the provider block to send the key unencrypted on purpose`,
  };
}

/** The provider block's explicit opt-in. */
export function allowsInsecureHttp(block: Record<string, unknown> | undefined): boolean {
  return block?.[ALLOW_INSECURE_HTTP] === true;
}

/**
 * The AGENTS_BASE_URL_<PROVIDER> overrides in `env`, keyed by provider name. Throws when one
 * names a declared provider with a plain http:// URL to another host and its block does not opt in.
 */
export function baseUrlsFromEnv(
  env: NodeJS.ProcessEnv,
  blocks: Partial<Record<string, Record<string, unknown>>>,
): Partial<Record<string, string>> {
  const out: Partial<Record<string, string>> = {};
  for (const [key, value] of Object.entries(env)) {
    const match = /^AGENTS_BASE_URL_(.+)$/.exec(key);
    if (!match || !value) continue;
    const provider = match[1]!.toLowerCase();
    const block = blocks[provider];
    if (block && !allowsInsecureHttp(block)) {
      const problem = insecureEndpointProblem(value, key);
      if (problem)
        throw new UnforeseeableError(
          "environment",
          `${problem.message}\nhint: ${problem.hint} (providers.${provider})`,
        );
    }
    out[provider] = value;
  }
  return out;
}
