import { z } from "zod";
import { type ApiResult, enc, type ForgeApi } from "../forge/api.js";
import { type ForgeTool, groupId, pagination, projectId, tool } from "./define.js";

/**
 * Project and group CI/CD variables, by gitlab-mcp's names. Values are secrets: every answer shows
 * them as "[masked]" unless the call sets show_values: true (the forge still sends them; this
 * server drops them before the model sees them). A hidden variable's value the forge never sends.
 */

const MASK = "[masked]";
const showValues = z
  .boolean()
  .optional()
  .describe("Show the variables' values (default false: every value reads [masked])");
const scopeFilter = z
  .object({ environment_scope: z.string().min(1) })
  .optional()
  .describe("Which variable, when the key exists for several environment scopes: {environment_scope}");
const key = z
  .string()
  .regex(/^[A-Za-z0-9_]{1,255}$/)
  .describe("The variable's key (letters, digits, _)");
const fields = {
  variable_type: z.enum(["env_var", "file"]).optional(),
  protected: z.boolean().optional().describe("Only in pipelines of protected branches and tags"),
  masked: z.boolean().optional().describe("Masked in job logs (the value needs 8+ characters)"),
  raw: z.boolean().optional().describe("Not expanded ($ kept as is)"),
  environment_scope: z.string().optional().describe("Environment scope (default *)"),
  description: z.string().optional(),
};

/** The forge's answer with every `value` replaced, unless the caller asked to see them. */
function masked(r: ApiResult, show: boolean | undefined): ApiResult {
  if (show) return r;
  const hide = (v: unknown) =>
    v && typeof v === "object" && "value" in v && (v as { value: unknown }).value !== null
      ? { ...(v as object), value: MASK }
      : v;
  return { ...r, data: Array.isArray(r.data) ? r.data.map(hide) : hide(r.data) };
}

const filterQuery = (f: { environment_scope: string } | undefined) =>
  f ? { "filter[environment_scope]": f.environment_scope } : {};

function variableTools(
  owner: "project" | "group",
  ownerId: typeof projectId | typeof groupId,
  path: (id: string | number) => string,
  endpoint: string,
): ForgeTool[] {
  const idKey = `${owner}_id` as const;
  const idOf = (a: Record<string, unknown>) => path(a[idKey] as string | number);
  const who = owner === "project" ? "a project" : "a group";
  const run = <T>(f: (api: ForgeApi, a: T & Record<string, unknown>) => Promise<ApiResult>) =>
    (async (api: ForgeApi, a: T & Record<string, unknown>) =>
      masked(await f(api, a), a.show_values as boolean | undefined)) as never;
  return [
    tool({
      name: `list_${owner}_variables`,
      description: `List the CI/CD variables of ${who}. Values read [masked] unless show_values is true.`,
      write: false,
      endpoint: `GET ${endpoint}`,
      input: { [idKey]: ownerId, filter: scopeFilter, show_values: showValues, ...pagination },
      run: run<{ filter?: { environment_scope: string }; page?: number; per_page?: number }>((api, a) =>
        api.get(idOf(a), { page: a.page, per_page: a.per_page }).then((r) =>
          a.filter
            ? {
                ...r,
                data: (r.data as Array<{ environment_scope?: string }>).filter(
                  (v) => v.environment_scope === a.filter!.environment_scope,
                ),
              }
            : r,
        ),
      ),
    }),
    tool({
      name: `get_${owner}_variable`,
      description: `Get one CI/CD variable of ${who} by key. The value reads [masked] unless show_values is true.`,
      write: false,
      endpoint: `GET ${endpoint}/:key`,
      input: { [idKey]: ownerId, key, filter: scopeFilter, show_values: showValues },
      run: run<{ key: string; filter?: { environment_scope: string } }>((api, a) =>
        api.get(`${idOf(a)}/${enc(a.key)}`, filterQuery(a.filter)),
      ),
    }),
    tool({
      name: `create_${owner}_variable`,
      description: `Create a CI/CD variable of ${who}. The answer shows the value [masked] unless show_values is true.`,
      write: true,
      endpoint: `POST ${endpoint}`,
      input: { [idKey]: ownerId, key, value: z.string(), ...fields, show_values: showValues },
      run: run<Record<string, unknown>>((api, a) => {
        const { [idKey]: _, show_values: __, ...body } = a;
        return api.post(idOf(a), body);
      }),
    }),
    tool({
      name: `update_${owner}_variable`,
      description: `Update a CI/CD variable of ${who} (filter picks the one of several environment scopes). The answer shows the value [masked] unless show_values is true.`,
      write: true,
      endpoint: `PUT ${endpoint}/:key`,
      input: {
        [idKey]: ownerId,
        key,
        value: z.string().describe("The value (the forge requires it, also when only a flag changes)"),
        ...fields,
        filter: scopeFilter,
        show_values: showValues,
      },
      run: run<{ key: string }>((api, a) => {
        const { [idKey]: _, show_values: __, key: k, filter, ...body } = a;
        return api.put(`${idOf(a)}/${enc(k)}`, {
          ...body,
          ...(filter ? { filter } : {}),
        });
      }),
    }),
    tool({
      name: `delete_${owner}_variable`,
      description: `Delete a CI/CD variable of ${who} (filter picks the one of several environment scopes).`,
      write: true,
      destructive: true,
      endpoint: `DELETE ${endpoint}/:key`,
      input: { [idKey]: ownerId, key, filter: scopeFilter },
      run: (api, a) => {
        const x = a as Record<string, unknown> & { key: string; filter?: { environment_scope: string } };
        return api.delete(`${idOf(x)}/${enc(x.key)}`, filterQuery(x.filter));
      },
    }),
  ];
}

export const variableToolsList = [
  ...variableTools("project", projectId, (p) => `/projects/${enc(p)}/variables`, "/projects/:id/variables"),
  ...variableTools("group", groupId, (g) => `/groups/${enc(g)}/variables`, "/groups/:id/variables"),
];
