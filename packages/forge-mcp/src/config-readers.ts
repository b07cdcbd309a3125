/**
 * How one environment variable is read: each reader takes the trimmed value (undefined when
 * unset) and the variable's name, and returns the typed value or stops start-up with a
 * ConfigError whose one line names the variable, the rule and the fix. The rows that use them are
 * ./config-variables.ts.
 */

export class ConfigError extends Error {
  override name = "ConfigError";
}

export const PERMISSION_MODES = ["readonly", "modify", "full"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export type Env = Record<string, string | undefined>;

/** Reads one variable's trimmed value (undefined when unset) or stops start-up with a ConfigError. */
export type Reader<T> = ((raw: string | undefined, name: string) => T) & { choices?: readonly string[] };

/** GITLAB_X for FORGE_X. */
export function gitlabTwin(name: string): string | undefined {
  return name.startsWith("FORGE_") ? `GITLAB_${name.slice("FORGE_".length)}` : undefined;
}

const fail = (message: string): never => {
  throw new ConfigError(message);
};

export const bool = (): Reader<boolean | undefined> => (v, name) => {
  if (v === undefined) return undefined;
  const s = v.toLowerCase();
  if (["true", "1", "yes", "on"].includes(s)) return true;
  if (["false", "0", "no", "off"].includes(s)) return false;
  return fail(`${name} must be true or false, got "${v}"`);
};

export const int =
  (min: number, max: number): Reader<number | undefined> =>
  (v, name) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      return fail(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
    return n;
  };

export const url = (): Reader<string | undefined> => (v, name) => {
  if (v === undefined) return undefined;
  if (!URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol))
    return fail(`${name} must be an http(s) URL, got "${v}"`);
  return v.replace(/\/+$/, "");
};

export const text = (): Reader<string | undefined> => (v) => v;

export const list = (): Reader<string[]> => (v) =>
  (v ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** Group full paths, without the slashes an operator may put around them. */
export const groupPaths = (): Reader<string[]> => (v, name) =>
  list()(v, name).map((g) => g.replace(/^\/+|\/+$/g, ""));

/** 32 random bytes, base64: a stateless sealing secret. */
export const key32 = (): Reader<Buffer | undefined> => (v, name) => {
  if (v === undefined) return undefined;
  const buf = Buffer.from(v, "base64");
  if (buf.length !== 32 || !/^[A-Za-z0-9+/_-]+=*$/.test(v))
    return fail(
      `${name} must be 32 random bytes, base64-encoded (it decodes to ${buf.length} bytes); generate one with: openssl rand -base64 32`,
    );
  return buf;
};

export const oneOf = <const C extends readonly string[]>(
  choices: C,
  message: string,
  opts: { anyCase?: boolean } = {},
): Reader<C[number] | undefined> =>
  Object.assign(
    (v: string | undefined): C[number] | undefined => {
      if (v === undefined) return undefined;
      const s = opts.anyCase ? v.toLowerCase() : v;
      return choices.includes(s) ? s : fail(message);
    },
    { choices },
  );

export const matching =
  (re: RegExp, message: string): Reader<string | undefined> =>
  (v) =>
    v === undefined || re.test(v) ? v : fail(message);

export const atLeast =
  (chars: number, message: string): Reader<string | undefined> =>
  (v) =>
    v === undefined || v.length >= chars ? v : fail(message);

export const pattern = (): Reader<RegExp | undefined> => (v, name) => {
  if (v === undefined) return undefined;
  try {
    return new RegExp(v);
  } catch (err) {
    return fail(
      `${name} (${gitlabTwin(name)}) is not a valid regular expression (${(err as Error).message}): fix the pattern, e.g. "^delete_|^merge_"`,
    );
  }
};

export function trustProxy(): Reader<boolean | number | string> {
  return (v) => {
    if (v === undefined || v === "false") return false;
    // Express's `true` takes the LEFTMOST X-Forwarded-For entry, which the client writes itself;
    // `true` here means one proxy hop: the address that proxy saw, the rightmost entry.
    if (v === "true") return 1;
    if (/^\d+$/.test(v)) return Number(v);
    return v; // express understands "loopback", CIDR lists, ...
  };
}

/** One row of the table. */
export interface Variable {
  name: string;
  /** Names read after `name` and its GITLAB_ twin (gitlab-mcp's, or earlier ones). */
  aliases?: readonly string[];
  /** The settings field it fills; a Config field of the same name unless `input`. */
  key: string;
  /** Read only to derive other Config fields (config.ts), never a field of its own. */
  input?: boolean;
  read: Reader<unknown>;
  /** The value when unset, as it would be written in the environment. */
  default?: string;
  /** The docs' Default column when it is not `default` (or "unset"). */
  shown?: string;
  /** The docs' Meaning column (markdown). */
  doc: string;
  /** A secret: may be read from NAME_FILE under any of its names; isSecret in server.json. */
  secret?: boolean;
  /** Not secret, but may name one: NAME_FILE is read for its own name and GITLAB_ twin. */
  file?: boolean;
  /** Listed in server.json (the MCP Registry entry) with this description. */
  registry?: { description: string; required?: boolean };
}
