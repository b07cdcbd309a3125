#!/usr/bin/env node
import { readFileSync } from "node:fs";
import type { Config } from "./config.js";
import { holdYoungGeneration, releaseYoungGeneration, tuneHeap } from "./heap.js";

// Everything else is imported in main(), once the young generation is held at its size (src/heap.ts):
// loading the modules would otherwise grow it to its largest, resident for the life of the process.

const HELP = `forge-mcp: GitLab's API as MCP tools.

Usage: forge-mcp [--help | --version]

Configured by environment variables (each FORGE_ name may also be spelled GITLAB_, and
gitlab-mcp's names are read too); NAME_FILE=/path reads a secret from a file.

  Local (stdio):       FORGE_TOKEN=<personal access token> (or GITLAB_JOB_TOKEN=$CI_JOB_TOKEN in a CI job)
                       [FORGE_API_URL=https://gitlab.example.com/api/v4] [GITLAB_PROJECT_ID=<default project>]
  Remote, OAuth:       FORGE_MCP_OAUTH=true FORGE_OAUTH_APP_ID=<application id> MCP_SERVER_URL=https://mcp.example.com
                       [FORGE_OAUTH_CALLBACK_PROXY=true] [OAUTH_STATELESS_MODE=true OAUTH_STATELESS_SECRET=...]
  Remote, own tokens:  REMOTE_AUTHORIZATION=true (each request sends Private-Token, JOB-TOKEN or Authorization: Bearer)
  Narrowing:           FORGE_PERMISSION_MODE=readonly|modify|full  FORGE_TOOLSETS=...  GITLAB_TOOLS=...
                       GITLAB_DENIED_TOOLS_REGEX=...  GITLAB_ALLOWED_PROJECT_IDS=...  GITLAB_OAUTH_ALLOWED_GROUPS=...
  Operations:          HOST, PORT, METRICS_PORT, METRICS_BEARER_TOKEN, REDIS_URL, LOG_LEVEL

Every variable, its default and its meaning: docs/forge-mcp.md ("Configuration").
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** --help and --version answer and exit; any other argument is refused (configuration is the environment). */
function handleArguments(args: string[]): void {
  if (args.length === 0) return;
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  if (args.includes("--version") || args.includes("-v")) {
    process.stdout.write(`${version()}\n`);
    process.exit(0);
  }
  process.stderr.write(
    `forge-mcp: unknown argument ${JSON.stringify(args[0])}: forge-mcp takes --help or --version; it is configured by environment variables (forge-mcp --help)\n`,
  );
  process.exit(2);
}

/** A configuration error ends the command with its one line; anything else is a bug and throws. */
function refuseConfiguration(err: unknown, ConfigError: new (...args: never[]) => Error): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`forge-mcp: invalid configuration: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}

async function main(): Promise<void> {
  handleArguments(process.argv.slice(2));
  holdYoungGeneration();
  const { ConfigError, loadConfig, TOOLSET_NAMES } = await import("./config.js");
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    refuseConfiguration(err, ConfigError);
  }
  // The rest once the configuration holds: a refused one answers without loading the server.
  const { ALL_TOOL_NAMES, stdioCatalogue, toolExposure } = await import("./tools/index.js");
  try {
    // the masking files are read and checked now, so a bad one stops start-up like any variable
    toolExposure(config);
  } catch (err) {
    refuseConfiguration(err, ConfigError);
  }
  const { createLogger } = await import("./logger.js");
  const { createServer, listen, toolObserver } = await import("./server.js");
  const logger = createLogger(config.logLevel);
  for (const warning of config.warnings) logger.warn(warning);
  const unknownTools = config.extraTools.filter((n) => !ALL_TOOL_NAMES.includes(n));
  if (unknownTools.length > 0)
    logger.warn(
      { tools: unknownTools },
      `GITLAB_TOOLS names tools forge-mcp does not have (ignored): ${unknownTools.join(", ")}`,
    );
  if (config.unknownToolsets.length > 0) {
    logger.warn(
      { toolsets: config.unknownToolsets },
      `FORGE_TOOLSETS names toolsets forge-mcp does not have (ignored): ${config.unknownToolsets.join(", ")}; known: ${TOOLSET_NAMES.join(", ")}`,
    );
  }

  if (config.transport === "http") {
    const { handler, close, metricsApp } = await createServer(config, { logger });
    tuneHeap();
    const server = await listen(handler, config.host, config.port);
    const metricsServer =
      metricsApp && config.metricsPort !== undefined
        ? await listen(metricsApp, config.metricsHost, config.metricsPort)
        : undefined;
    if (metricsServer) {
      const a = metricsServer.address();
      logger.info(
        { host: config.metricsHost, port: typeof a === "object" && a ? a.port : config.metricsPort },
        "metrics at /metrics",
      );
    }
    const addr = server.address();
    const port = typeof addr === "object" && addr ? addr.port : config.port;
    logger.info(
      {
        host: config.host,
        port,
        oauth: config.remoteOAuth ? (config.callbackProxy ? "proxy" : "passthrough") : "off",
        remoteAuthorization: config.remoteAuthorization,
        stateless: config.stateless,
      },
      "forge-mcp listening",
    );
    if (
      !config.remoteOAuth &&
      !config.remoteAuthorization &&
      !["127.0.0.1", "localhost", "::1"].includes(config.host)
    ) {
      logger.warn(
        { host: config.host },
        "FORGE_MCP_OAUTH is off: anyone who can reach /mcp acts with FORGE_TOKEN; bind to loopback or enable OAuth",
      );
    }
    const stop = () => {
      server.close();
      metricsServer?.close();
      // close() ends the listen streams a 2026-07-28 client holds open, which server.close waits for
      void close();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    return;
  }

  const { serveStdio } = await import("./mcp/stdio.js");
  const { localOAuthLogin, refreshingToken } = await import("./forge/local-oauth.js");
  const { sessionAsker } = await import("./tools/confirm.js");
  releaseYoungGeneration();
  let token: string | (() => Promise<string>) | undefined = config.forgeToken;
  if (config.localOAuth) {
    if (!config.oauthAppId) {
      process.stderr.write(
        "forge-mcp: invalid configuration: FORGE_USE_OAUTH=true needs FORGE_OAUTH_APP_ID\n",
      );
      process.exit(1);
    }
    const login = {
      rootUrl: config.forgeRootUrl,
      appId: config.oauthAppId,
      redirectUri: config.localOAuthRedirectUri,
      scopes: config.oauthScopes,
      timeoutMs: config.forgeTimeoutMs,
      logger,
    };
    token = refreshingToken(await localOAuthLogin(login), login);
  }
  if (!token) {
    process.stderr.write(
      "forge-mcp: invalid configuration: stdio mode needs FORGE_TOKEN (or GITLAB_PERSONAL_ACCESS_TOKEN, or GITLAB_JOB_TOKEN), or FORGE_USE_OAUTH=true\n",
    );
    process.exit(1);
  }
  const catalogue = stdioCatalogue(config, token, {
    confirm: { mode: config.confirmDestructive, asker: sessionAsker },
    observe: toolObserver(logger, undefined),
  });
  const { requestStateSealer } = await import("./oauth/seal.js");
  await serveStdio(catalogue, requestStateSealer());
}

main().catch((err: Error) => {
  process.stderr.write(`forge-mcp: ${err.message}\n`);
  process.exit(1);
});
