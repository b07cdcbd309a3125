import type { Path } from "../source.js";
import type { RuleContext } from "./context.js";

/**
 * Secrets belong in .env, never in agents.yaml (docs/configuration.md#variables-and-secrets): a secret
 * field whose value was written literally, not as `${VAR}`, is flagged. Only the field is named, never the
 * value.
 */
export function checkInlineSecrets(ctx: RuleContext): void {
  const { config } = ctx;
  const paths: Path[] = [];
  for (const name of Object.keys(config.providers ?? {})) paths.push(["providers", name, "api_key"]);
  for (const [name, vault] of Object.entries(config.vaults ?? {})) {
    vault.credentials?.forEach((credential, i) => {
      const field = credential.type === "static_bearer" ? "access_token" : "secret_value";
      paths.push(["vaults", name, "credentials", i, field]);
    });
  }
  for (const [name, agent] of Object.entries(config.agents ?? {})) {
    for (let i = 0; i < (agent.resources ?? []).length; i++) {
      paths.push(["agents", name, "resources", i, "authorization_token"]);
    }
  }
  for (const [name, deployment] of Object.entries(config.deployments ?? {})) {
    deployment.resources?.forEach((resource, i) => {
      if (resource.type === "git_repository")
        paths.push(["deployments", name, "resources", i, "authorization_token"]);
    });
  }
  for (const [name, channel] of Object.entries(config.channels ?? {})) {
    for (const key of Object.keys(channel.credentials ?? {}))
      paths.push(["channels", name, "credentials", key]);
  }
  for (const path of paths) {
    const raw = ctx.source.written(path);
    if (raw === undefined || raw.includes("${")) continue;
    const field = path.filter((segment) => typeof segment === "string").join(".");
    if (path[path.length - 1] === "authorization_token") {
      // The spec: a git token's value is never written in the file — an error, not a warning.
      ctx.report(
        "AGENTS1008",
        `${field} is a git token written inline; its value is never written in agents.yaml`,
        path,
        `write it as \${GIT_TOKEN} and put GIT_TOKEN=... in .env (git-ignored)`,
      );
      continue;
    }
    ctx.warn(
      "AGENTS1007",
      `${field} is written inline; secrets belong in .env`,
      path,
      `write it as \${VARIABLE} and put VARIABLE=... in .env (git-ignored)`,
    );
  }
}
