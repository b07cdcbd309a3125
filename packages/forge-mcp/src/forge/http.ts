/**
 * The one place forge-mcp talks HTTP to the forge: every call has a timeout, and errors carry the
 * status and the forge's own message, never the request's credentials.
 */

export class ForgeHttpError extends Error {
  override name = "ForgeHttpError";
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface ForgeResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function forgeFetch(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs: number },
): Promise<ForgeResponse> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? "GET",
      headers: { accept: "application/json", ...init.headers },
      body: init.body,
      redirect: "manual",
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (err) {
    const e = err as Error;
    const reason = e.name === "TimeoutError" ? `timed out after ${init.timeoutMs} ms` : e.message;
    throw new ForgeHttpError(0, `forge unreachable: ${reason}`, undefined);
  }
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get("content-type") ?? "").includes("json") && text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** GitLab answers errors as {message}, {error, error_description} or {error}; message may be an object. */
export function forgeMessage(status: number, body: unknown): string {
  if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    const m = b.message ?? b.error_description ?? b.error;
    if (typeof m === "string") return m;
    if (m && typeof m === "object") return JSON.stringify(m);
  }
  if (typeof body === "string" && body.length > 0 && body.length < 300 && !body.trimStart().startsWith("<")) {
    return body;
  }
  return `HTTP ${status}`;
}
