import { Cron } from "croner";
import type { ProviderCapabilities } from "../../model/capabilities.js";
import { didYouMean } from "../../model/suggest.js";
import type { ChannelDecl, DeploymentDecl } from "../schema/index.js";
import { deliveryOf } from "../targets.js";
import type { RuleContext } from "./context.js";
import { checkMountPath, checkUniqueMountPaths } from "./mounts.js";

/** Large files repeat a handful of schedules; parsing each distinct one once keeps validate fast. */
const cronCache = new Map<string, boolean>();
const zoneCache = new Map<string, boolean>();

function isValidCron(expression: string): boolean {
  let valid = cronCache.get(expression);
  if (valid === undefined) {
    valid = expression.trim().split(/\s+/).length === 5;
    if (valid) {
      try {
        new Cron(expression, { paused: true });
      } catch {
        valid = false;
      }
    }
    cronCache.set(expression, valid);
  }
  return valid;
}

function isValidTimeZone(zone: string): boolean {
  let valid = zoneCache.get(zone);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      valid = true;
    } catch {
      valid = false;
    }
    zoneCache.set(zone, valid);
  }
  return valid;
}

export function checkDeployments(ctx: RuleContext): void {
  for (const [name, deployment] of ctx.declarations<DeploymentDecl>("deployments")) {
    const base = ["deployments", name];
    deployment.initial_events?.forEach((event, index) => {
      if (event.type === "user.define_outcome" && event.description === undefined) {
        for (const { provider, caps } of ctx.targets(deployment)) {
          if (!caps.deployments.outcomeDescriptionRequired) continue;
          ctx.report(
            "AGENTS1508",
            `deployments.${name}: ${provider} requires \`description\` on a user.define_outcome event`,
            [...base, "initial_events", index],
            "add `description:` saying what the outcome is",
          );
        }
      }
      if (
        event.type === "user.define_outcome" &&
        event.rubric !== undefined &&
        event.rubric_file !== undefined
      ) {
        ctx.report(
          "AGENTS1502",
          `deployments.${name}: give \`rubric\` or \`rubric_file\`, not both`,
          [...base, "initial_events", index, "rubric_file"],
          "keep one of them",
        );
      }
    });
    if (deployment.schedule) {
      if (!isValidCron(deployment.schedule.expression)) {
        ctx.report(
          "AGENTS1503",
          `deployments.${name}: "${deployment.schedule.expression}" is not a valid 5-field cron expression`,
          [...base, "schedule", "expression"],
          'fields are minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"',
        );
      }
      const zone = deployment.schedule.timezone;
      if (zone !== undefined && !isValidTimeZone(zone)) {
        ctx.report(
          "AGENTS1504",
          `deployments.${name}: "${zone}" is not a known time zone`,
          [...base, "schedule", "timezone"],
          'use an IANA name such as "UTC" or "Europe/Berlin"',
        );
      }
    }
    deployment.resources?.forEach((resource, index) => {
      if (resource.type === "file" && resource.mount_path === undefined) {
        for (const { provider, caps } of ctx.targets(deployment)) {
          if (!caps.deployments.fileMountPathRequired) continue;
          ctx.report(
            "AGENTS1509",
            `deployments.${name}: ${provider} requires \`mount_path\` on a file resource`,
            [...base, "resources", index],
            `add \`mount_path:\` (relative paths are placed under ${caps.mountRoot})`,
          );
        }
      }
      if (resource.type === "file" && resource.file_id === undefined && resource.source === undefined) {
        ctx.report(
          "AGENTS1507",
          `deployments.${name}: a file resource needs \`file_id\` or \`source\``,
          [...base, "resources", index],
          "give `source:` (a local file, uploaded at apply) or `file_id:` (an already uploaded file)",
        );
      }
    });
    for (const { provider, caps } of ctx.targets(deployment)) {
      checkDeploymentShape(ctx, name, deployment, provider, caps);
      if (deployment.tunnel !== undefined && caps.deployments.tunnel === "dropped") {
        ctx.warn(
          "AGENTS1505",
          `deployments.${name}: the ${provider} deployment API takes no tunnel; it is dropped and server-side runs execute without it`,
          [...base, "tunnel"],
          "use a Session for private-network MCP access, or remove `tunnel`",
        );
      } else if (deployment.tunnel !== undefined && caps.deployments.tunnel === "unsupported") {
        ctx.report(
          "AGENTS1051",
          `deployments.${name}: ${provider} has no BYOC tunnels`,
          [...base, "tunnel"],
          caps.kinds.tunnels.supported ? undefined : caps.kinds.tunnels.alternative,
        );
      }
      if (deployment.schedule && caps.deployments.schedule === "not_enforced") {
        ctx.warn(
          "AGENTS1506",
          `deployments.${name}: ${provider} does not run schedules; the deployment runs only when triggered`,
          [...base, "schedule"],
          "trigger runs from an external cron",
        );
      }
      deployment.resources?.forEach((resource, index) => {
        const path = [...base, "resources", index];
        if (resource.type === "git_repository" && !caps.agents.sessionResources.supported) {
          ctx.report(
            "AGENTS1220",
            `deployments.${name}: ${provider} does not attach git repositories`,
            path,
            caps.agents.sessionResources.alternative,
          );
        }
        if (resource.type === "memory_store" && !caps.kinds.memory_stores.supported) {
          ctx.report(
            "AGENTS1050",
            `deployments.${name}: ${provider} does not support memory_stores`,
            path,
            caps.kinds.memory_stores.alternative,
          );
        }
        if (resource.type !== "memory_store")
          checkMountPath(ctx, resource.mount_path, [...path, "mount_path"], provider, caps);
      });
      checkUniqueMountPaths(
        ctx,
        (deployment.resources ?? []).flatMap((resource, index) =>
          resource.type === "memory_store"
            ? []
            : [{ value: resource.mount_path, path: [...base, "resources", index, "mount_path"] }],
        ),
        caps,
      );
      if ((deployment.memory_stores ?? []).length > 0 && !caps.kinds.memory_stores.supported) {
        ctx.report(
          "AGENTS1050",
          `deployments.${name}: ${provider} does not support memory_stores`,
          [...base, "memory_stores"],
          caps.kinds.memory_stores.alternative,
        );
      }
    }
  }
}

/** What a provider's deployment API refuses (or drops) that the file already shows. */
function checkDeploymentShape(
  ctx: RuleContext,
  name: string,
  deployment: DeploymentDecl,
  provider: string,
  caps: ProviderCapabilities,
): void {
  const base = ["deployments", name];
  const environmentRequired = caps.deployments.environmentRequired;
  const agentEnvironment = ctx.config.agents?.[deployment.agent]?.environment;
  if (
    environmentRequired &&
    deployment.environment === undefined &&
    !(environmentRequired === "or_agent" && agentEnvironment !== undefined)
  ) {
    ctx.reportAtKey(
      "AGENTS1510",
      `deployments.${name}: a ${provider} deployment needs \`environment\`${environmentRequired === "or_agent" ? ` (here or on agents.${deployment.agent})` : ""}`,
      base,
      environmentRequired === "or_agent"
        ? `add \`environment: <environment name>\` here or to agents.${deployment.agent}`
        : "add `environment: <environment name>` (declare one under `environments:`)",
    );
  }
  if (caps.deployments.initialEventsRequired && deployment.initial_events === undefined) {
    ctx.reportAtKey(
      "AGENTS1500",
      `deployments.${name}: a ${provider} deployment needs \`initial_events\``,
      base,
      "add `initial_events:` with a `- type: user.message` and `content:` saying what to do",
    );
  }
  const events = deployment.initial_events ?? [];
  if (caps.deployments.outcomeEvent === "dropped") {
    events.forEach((event, index) => {
      if (event.type !== "user.define_outcome") return;
      ctx.warn(
        "AGENTS1512",
        `deployments.${name}: ${provider} has no user.define_outcome event; it is not sent`,
        [...base, "initial_events", index, "type"],
        "remove the event, or state the outcome in a user.message",
      );
    });
  }
  if (
    caps.deployments.messageEventRequired &&
    events.length > 0 &&
    !events.some((event) => event.type === "user.message" || event.type === "system.message")
  ) {
    ctx.report(
      "AGENTS1511",
      `deployments.${name}: a ${provider} deployment needs at least one user.message or system.message initial event`,
      [...base, "initial_events"],
      "add `- type: user.message` with `content:` saying what to do",
    );
  }
  const forwardAgents = caps.deployments.forwardAgents;
  const agent = ctx.config.agents?.[deployment.agent];
  if (forwardAgents && !forwardAgents.supported && agent && deliveryOf(agent, caps) === "forward") {
    ctx.report(
      "AGENTS1513",
      `deployments.${name}: agents.${deployment.agent} uses Forward delivery, which ${provider} cannot deploy`,
      [...base, "agent"],
      forwardAgents.alternative,
    );
  }
}

export function checkChannels(ctx: RuleContext): void {
  for (const [name, channel] of ctx.declarations<ChannelDecl>("channels")) {
    const base = ["channels", name];
    const mode = channel.mode ?? "fixed";
    if (mode === "pairing") {
      for (const field of ["agent", "identity"] as const) {
        if (channel[field] !== undefined) {
          ctx.warn(
            "AGENTS1602",
            `channels.${name}: \`${field}\` is ignored in pairing mode`,
            [...base, field],
            `remove \`${field}\`, or use mode: fixed`,
          );
        }
      }
    } else {
      if (channel.agent === undefined) {
        ctx.reportAtKey(
          "AGENTS1600",
          `channels.${name}: a fixed channel needs \`agent\``,
          base,
          "add `agent: <agent name>`, or use mode: pairing",
        );
      }
      if (channel.identity === undefined && ctx.config.defaults?.identity === undefined) {
        ctx.reportAtKey(
          "AGENTS1601",
          `channels.${name}: a fixed channel needs \`identity\` (or defaults.identity)`,
          base,
          "add `identity: <identity name>` or set defaults.identity",
        );
      }
    }
    for (const { provider, caps } of ctx.targets(channel)) {
      if (!caps.kinds.channels.supported) continue; // reported by the kind check
      const types = caps.channels.types;
      const required = types[channel.type];
      if (required === undefined) {
        ctx.report(
          "AGENTS1604",
          `channels.${name}: ${provider} has no channel type "${channel.type}"${didYouMean(channel.type, Object.keys(types))}`,
          [...base, "type"],
          `${provider} channel types: ${Object.keys(types).join(", ")}`,
        );
      } else {
        const missing = required.filter((key) => channel.credentials?.[key] === undefined);
        if (required.length === 0 && Object.keys(channel.credentials ?? {}).length > 0) {
          ctx.report(
            "AGENTS1606",
            `channels.${name}: ${channel.type} channels are connected by scanning a QR code and take no credentials`,
            [...base, "credentials"],
            "remove `credentials`",
          );
        }
        if (missing.length > 0) {
          ctx.report(
            "AGENTS1605",
            `channels.${name}: ${channel.type} channels need credentials ${missing.join(", ")}`,
            channel.credentials ? [...base, "credentials"] : base,
            `add under credentials: ${missing.map((k) => `${k}: \${VAR}`).join(", ")}`,
          );
        }
      }
      const agent = channel.agent !== undefined ? ctx.config.agents?.[channel.agent] : undefined;
      if (
        mode === "fixed" &&
        agent &&
        caps.channels.fixedModeRequiresForwardAgent &&
        deliveryOf(agent, caps) !== "forward"
      ) {
        ctx.report(
          "AGENTS1603",
          `channels.${name}: a fixed ${provider} channel needs a Forward agent, but agents.${channel.agent} uses managed delivery`,
          [...base, "agent"],
          caps.agents.deliveryKey
            ? `set delivery.${caps.agents.deliveryKey}.type: forward on agents.${channel.agent}`
            : undefined,
        );
      }
    }
  }
}
