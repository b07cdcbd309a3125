import type { Kind } from "../../model/kinds.js";
import { didYouMean } from "../../model/suggest.js";
import { agentReferences } from "../references.js";
import type { AgentDecl } from "../schema/index.js";
import { type Delivery, deliveryOf } from "../targets.js";
import type { RuleContext } from "./context.js";
import { checkMountPath, checkUniqueMountPaths } from "./mounts.js";

/** Tool names compare without case or separators: `Web-Fetch` = `web_fetch` = `webfetch`. */
export function normalizeToolName(name: string): string {
  return name.toLowerCase().replace(/[\s_-]/g, "");
}

export function checkAgents(ctx: RuleContext): void {
  for (const [name, agent] of ctx.declarations<AgentDecl>("agents")) {
    const base = ["agents", name];
    checkMcpServers(ctx, name, agent);
    checkDeliveryKeys(ctx, name, agent);
    for (const { provider, caps } of ctx.targets(agent)) {
      const delivery = deliveryOf(agent, caps);
      if (
        typeof agent.model === "object" &&
        (agent.model as Record<string, string | undefined>)[provider] === undefined
      ) {
        ctx.report(
          "AGENTS1052",
          `agents.${name}: \`model\` has no entry for ${provider}`,
          [...base, "model"],
          `add \`${provider}: <model id>\` under model`,
        );
      }
      checkTools(ctx, name, agent, provider, caps);
      if (agent.tunnel !== undefined && !caps.kinds.tunnels.supported) {
        ctx.report(
          "AGENTS1051",
          `agents.${name}: ${provider} has no BYOC tunnels`,
          [...base, "tunnel"],
          caps.kinds.tunnels.alternative,
        );
      }
      if ((agent.memory_stores ?? []).length > 0 && !caps.kinds.memory_stores.supported) {
        ctx.report(
          "AGENTS1050",
          `agents.${name}: ${provider} does not support memory_stores`,
          [...base, "memory_stores"],
          caps.kinds.memory_stores.alternative,
        );
      }
      const forms = caps.agents.mcpServerForms;
      agent.mcp_servers?.forEach((server, i) => {
        const form = server.type ?? (server.url !== undefined ? "url" : "official");
        if (!forms.includes(form)) {
          ctx.report(
            "AGENTS1207",
            `agents.${name}: ${provider} does not accept ${form === "url" ? "MCP servers by URL" : "official MCP servers by name"}`,
            [...base, "mcp_servers", i],
            `${provider} accepts ${forms.map((f) => (f === "url" ? "servers by `url`" : "official servers (`type: official`)")).join(" and ")}`,
          );
        }
      });
      if (agent.environment_variables !== undefined && !caps.agents.environmentVariables.supported) {
        ctx.report(
          "AGENTS1217",
          `agents.${name}: ${provider} does not support agent environment_variables`,
          [...base, "environment_variables"],
          caps.agents.environmentVariables.alternative,
        );
      } else if (agent.environment_variables !== undefined) {
        for (const key of Object.keys(agent.environment_variables)) {
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
            ctx.reportAtKey(
              "AGENTS1224",
              `agents.${name}: environment variable name "${key}" is not an identifier`,
              [...base, "environment_variables", key],
              "use letters, digits and `_`, not starting with a digit (e.g. `API_MODE`)",
            );
        }
        const forbids = caps.agents.sessionEnvironmentValueForbids;
        if (forbids !== undefined && delivery !== "forward")
          for (const [key, value] of Object.entries(agent.environment_variables))
            if (String(value).includes(forbids))
              ctx.warn(
                "AGENTS1225",
                `agents.${name}: environment variable ${key} has a "${forbids}" in its value, which ${provider}'s managed session form cannot carry: agents session start refuses this agent (apply does not)`,
                [...base, "environment_variables", key],
                `remove the "${forbids}" from the value, or pass it another way (a vault credential, a file)`,
              );
      }
      if (agent.managed_tool_config !== undefined && delivery !== "forward") {
        ctx.report(
          "AGENTS1210",
          `agents.${name}: \`managed_tool_config\` needs Forward delivery, but the agent uses ${delivery} delivery on ${provider}`,
          [...base, "managed_tool_config"],
          caps.agents.deliveryKey
            ? `set delivery.${caps.agents.deliveryKey}.type: forward, or remove managed_tool_config`
            : "remove managed_tool_config (Forward delivery exists only on providers that offer it)",
        );
      }
      checkDefaultMemoryStore(ctx, name, agent, provider, delivery, caps.agents.deliveryKey);
      const envName = agent.environment;
      const env = envName !== undefined ? ctx.config.environments?.[envName] : undefined;
      if (delivery === "forward" && envName === undefined && caps.agents.forwardEnvironmentRequired) {
        ctx.reportAtKey(
          "AGENTS1223",
          `agents.${name}: a ${provider} Forward agent needs \`environment\` (its Forward Template is created with one)`,
          base,
          "add `environment: <environment name>` (declare one under `environments:`)",
        );
      }
      if (
        delivery === "forward" &&
        env !== undefined &&
        env.environment_id === undefined &&
        env.config?.networking?.type === "limited" &&
        !caps.agents.forwardEnvironmentNetworking.supported
      ) {
        // The Forward API has no networking field: sending the rest would silently widen egress.
        ctx.report(
          "AGENTS1221",
          `environments.${envName}: \`networking: limited\` cannot be kept, because Forward agent "${name}" uses this environment on ${provider}, whose Forward environments take no networking policy (egress would be unrestricted)`,
          ["environments", envName!, "config", "networking", "type"],
          caps.agents.forwardEnvironmentNetworking.alternative,
        );
      }
      if (
        delivery === "forward" &&
        (agent.memory_stores ?? []).length > 0 &&
        ctx.config.defaults?.identity === undefined
      ) {
        ctx.report(
          "AGENTS1218",
          `agents.${name}: explicit memory stores of a Forward agent are mounted to \`defaults.identity\`, which is not set`,
          [...base, "memory_stores"],
          "set defaults.identity to a declared identity",
        );
      }
      if (agent.resources !== undefined && !caps.agents.sessionResources.supported) {
        ctx.report(
          "AGENTS1220",
          `agents.${name}: ${provider} does not attach session resources`,
          [...base, "resources"],
          caps.agents.sessionResources.alternative,
        );
      }
      agent.resources?.forEach((resource, i) => {
        checkMountPath(ctx, resource.mount_path, [...base, "resources", i, "mount_path"], provider, caps);
      });
      // Only resources and files have mount paths: an agent with neither has nothing to compare.
      if (agent.resources !== undefined || agent.files !== undefined)
        checkUniqueMountPaths(
          ctx,
          [
            ...(agent.resources ?? []).map((resource, i) => ({
              value: resource.mount_path,
              path: [...base, "resources", i, "mount_path"],
            })),
            ...(agent.files ?? []).flatMap((file, i) =>
              typeof file === "string"
                ? []
                : [{ value: file.mount_path, path: [...base, "files", i, "mount_path"] }],
            ),
          ],
          caps,
        );
      agent.files?.forEach((file, i) => {
        if (typeof file !== "string")
          checkMountPath(ctx, file.mount_path, [...base, "files", i, "mount_path"], provider, caps);
        else if (delivery !== "forward")
          ctx.report(
            "AGENTS1222",
            `agents.${name}: a file given as a path ("${file}") is inherited only by a Forward agent, but this agent uses ${delivery} delivery on ${provider}`,
            [...base, "files", i],
            "declare the file under `files:` and mount it with {file, mount_path}, or use Forward delivery",
          );
      });
    }
  }
  checkSharedAcrossDeliveries(ctx);
}

function checkTools(
  ctx: RuleContext,
  name: string,
  agent: AgentDecl,
  provider: string,
  caps: import("../../model/capabilities.js").ProviderCapabilities,
): void {
  const tools = agent.tools;
  if (!tools) return;
  const base = ["agents", name, "tools"];
  const known = caps.agents.builtinTools;
  const byNormal = new Map(known.map((tool) => [normalizeToolName(tool), tool]));
  tools.builtin.forEach((tool, i) => {
    if (!known.includes(tool)) {
      const canonical = byNormal.get(normalizeToolName(tool));
      ctx.report(
        "AGENTS1200",
        canonical
          ? `agents.${name}: write builtin tool "${tool}" as "${canonical}"`
          : `agents.${name}: ${provider} has no builtin tool "${tool}"${didYouMean(tool, known)}`,
        [...base, "builtin", i],
        `${provider} builtin tools: ${known.join(", ")}`,
      );
    }
  });
  const enabled = new Set(tools.builtin.map(normalizeToolName));
  const seen = new Map<string, string>();
  for (const [key, permission] of Object.entries(tools.permissions ?? {})) {
    const path = [...base, "permissions", key];
    const normal = normalizeToolName(key);
    const previous = seen.get(normal);
    if (previous !== undefined) {
      ctx.reportAtKey(
        "AGENTS1202",
        `agents.${name}: tools.permissions names "${key}" and "${previous}", which are the same tool`,
        path,
        "keep one entry per tool",
      );
      continue;
    }
    seen.set(normal, key);
    if (!byNormal.has(normal)) {
      ctx.reportAtKey(
        "AGENTS1201",
        `agents.${name}: tools.permissions names unknown tool "${key}"${didYouMean(key, known)}`,
        path,
        `${provider} builtin tools: ${known.join(", ")}`,
      );
    } else if (!enabled.has(normal) && caps.agents.permissionNeedsBuiltin) {
      ctx.reportAtKey(
        "AGENTS1209",
        `agents.${name}: tools.permissions sets "${key}", which is not enabled in tools.builtin; ${provider} refuses it`,
        path,
        `add ${byNormal.get(normal)} to tools.builtin, or remove the permission`,
      );
    } else if (!enabled.has(normal)) {
      ctx.diagnostics.push({
        code: "AGENTS1204",
        severity: "warning",
        message: `agents.${name}: tools.permissions sets "${key}", which is not enabled in tools.builtin`,
        ...ctx.source.keyPos(path),
        path,
        hint: `add ${byNormal.get(normal)} to tools.builtin, or remove the permission`,
      });
    }
    if (permission === "ask" && !caps.agents.askPermission.supported) {
      ctx.report(
        "AGENTS1203",
        `agents.${name}: ${provider} cannot enforce \`ask\``,
        path,
        caps.agents.askPermission.alternative,
      );
    }
  }
  if (tools.default_permission === "ask" && !caps.agents.askPermission.supported) {
    ctx.report(
      "AGENTS1203",
      `agents.${name}: ${provider} cannot enforce \`ask\``,
      [...base, "default_permission"],
      caps.agents.askPermission.alternative,
    );
  }
}

function checkMcpServers(ctx: RuleContext, name: string, agent: AgentDecl): void {
  const base = ["agents", name];
  const names = new Set<string>();
  agent.mcp_servers?.forEach((server, i) => {
    const path = [...base, "mcp_servers", i];
    if (names.has(server.name)) {
      ctx.report(
        "AGENTS1208",
        `agents.${name}: MCP server "${server.name}" is listed twice`,
        [...path, "name"],
        "give each MCP server of an agent its own name",
      );
    }
    names.add(server.name);
    if (server.type === "url" && server.url === undefined) {
      ctx.report(
        "AGENTS1208",
        `agents.${name}: MCP server "${server.name}" has type url but no \`url\``,
        path,
        "add `url:`",
      );
    }
    if (server.type === "official" && server.url !== undefined) {
      ctx.report(
        "AGENTS1208",
        `agents.${name}: official MCP server "${server.name}" is referenced by name and takes no \`url\``,
        [...path, "url"],
        "remove `url`, or remove `type: official` to use the server by URL",
      );
    }
  });
  agent.tools?.mcp?.forEach((toolkit, i) => {
    if (!names.has(toolkit.mcp_server_name)) {
      ctx.report(
        "AGENTS1206",
        `agents.${name}: tools.mcp names MCP server "${toolkit.mcp_server_name}", which is not in mcp_servers${didYouMean(toolkit.mcp_server_name, names)}`,
        ["agents", name, "tools", "mcp", i],
        "add the server to mcp_servers",
      );
    }
  });
}

function checkDeliveryKeys(ctx: RuleContext, name: string, agent: AgentDecl): void {
  const targeted = new Set(ctx.targets(agent).map((t) => t.caps.agents.deliveryKey));
  for (const key of Object.keys(agent.delivery ?? {})) {
    if (!targeted.has(key) && ctx.only === undefined) {
      ctx.diagnostics.push({
        code: "AGENTS1216",
        severity: "warning",
        message: `agents.${name}: delivery.${key} is ignored: the agent does not target ${key}`,
        ...ctx.source.keyPos(["agents", name, "delivery", key]),
        path: ["agents", name, "delivery", key],
        hint: `remove delivery.${key}, or make the agent target ${key}`,
      });
    }
  }
}

function checkDefaultMemoryStore(
  ctx: RuleContext,
  name: string,
  agent: AgentDecl,
  provider: string,
  delivery: Delivery,
  deliveryKey: string | undefined,
): void {
  const store = agent.default_memory_store;
  if (!store) return;
  const path = ["agents", name, "default_memory_store"];
  if (delivery !== "forward") {
    ctx.report(
      "AGENTS1211",
      `agents.${name}: default_memory_store needs Forward delivery, but the agent uses ${delivery} delivery on ${provider}`,
      path,
      deliveryKey
        ? `set delivery.${deliveryKey}.type: forward`
        : "remove default_memory_store for this provider",
    );
  }
  const identityName = ctx.config.defaults?.identity;
  if (identityName === undefined) {
    ctx.report(
      "AGENTS1212",
      `agents.${name}: default_memory_store needs \`defaults.identity\``,
      path,
      "set defaults.identity to a declared identity",
    );
  } else if (
    store.delete_on_destroy === true &&
    ctx.config.identities?.[identityName]?.identity_id !== undefined
  ) {
    ctx.report(
      "AGENTS1213",
      `agents.${name}: delete_on_destroy needs an identity managed by the tool, but identities.${identityName} is an external identity_id`,
      [...path, "delete_on_destroy"],
      "external identities are never deleted and keep the store mounted; set delete_on_destroy: false or manage the identity with external_id",
    );
  }
}

const SHAREABLE: Kind[] = ["environments", "skills", "vaults", "files", "memory_stores"];

/** One locally managed resource cannot serve both Managed and Forward agents of a provider. */
function checkSharedAcrossDeliveries(ctx: RuleContext): void {
  const users = new Map<string, { delivery: Delivery; agent: string }>();
  for (const [name, agent] of ctx.declarations<AgentDecl>("agents")) {
    for (const { provider, caps } of ctx.targets(agent)) {
      const delivery = deliveryOf(agent, caps);
      for (const ref of agentReferences(agent)) {
        if (!SHAREABLE.includes(ref.kind)) continue;
        if (ref.kind === "environments" && ctx.config.environments?.[ref.name]?.environment_id !== undefined)
          continue;
        const key = `${provider}\u0000${ref.kind}\u0000${ref.name}`;
        const first = users.get(key);
        if (!first) users.set(key, { delivery, agent: name });
        else if (first.delivery !== delivery) {
          ctx.report(
            "AGENTS1219",
            `agents.${name}: ${ref.kind}.${ref.name} is already used by ${first.delivery} agent "${first.agent}" on ${provider}; a ${delivery} agent cannot share it`,
            ["agents", name, ...ref.path],
            "declare a separate resource for each delivery type",
          );
        }
      }
    }
  }
}
