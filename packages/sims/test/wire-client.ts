import { zipSync } from "fflate";

/** A tiny HTTP client for the conformance suites: real sockets, raw bodies, no SDK in between. */
export interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

export function client(base: string, headers: Record<string, string>) {
  return async function call(
    method: string,
    path: string,
    payload?: unknown,
    extra: Record<string, string> = {},
  ): Promise<Reply> {
    const isForm = payload instanceof FormData;
    const res = await fetch(base + path, {
      method,
      headers: {
        ...headers,
        ...(payload !== undefined && !isForm ? { "content-type": "application/json" } : {}),
        ...extra,
      },
      ...(payload === undefined ? {} : { body: isForm ? payload : JSON.stringify(payload) }),
    });
    const text = await res.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // non-JSON bodies (downloads) stay text
    }
    return { status: res.status, body, headers: res.headers };
  };
}

export type Call = ReturnType<typeof client>;

export function form(
  fields: Record<string, string | { name: string; type?: string; bytes: Uint8Array }>,
): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === "string") f.append(k, v);
    else f.append(k, new Blob([v.bytes], { type: v.type ?? "application/octet-stream" }), v.name);
  }
  return f;
}

const enc = new TextEncoder();

/** A skill zip; `folder` wraps every entry in one top-level directory. */
export function skillZip(name: string, folder?: string, description = "does things"): Uint8Array {
  const prefix = folder ? `${folder}/` : "";
  return zipSync({
    [`${prefix}SKILL.md`]: enc.encode(`---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`),
    [`${prefix}scripts/run.sh`]: enc.encode("echo hi\n"),
  });
}

/** Reads SSE frames from a stream until `count` data frames arrived, then aborts. */
export async function readSse(url: string, headers: Record<string, string>, count: number): Promise<any[]> {
  const ac = new AbortController();
  const res = await fetch(url, { headers, signal: ac.signal });
  const reader = res.body!.getReader();
  const frames: any[] = [];
  let buf = "";
  while (frames.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += new TextDecoder().decode(value);
    let idx = buf.indexOf("\n\n");
    while (idx >= 0) {
      const frame = buf.slice(0, idx);
      buf = buf.slice(idx + 2);
      if (!frame.startsWith("event: heartbeat")) {
        const data = frame.split("\n").find((l) => l.startsWith("data: "));
        if (data) frames.push(JSON.parse(data.slice(6)));
      }
      idx = buf.indexOf("\n\n");
    }
  }
  ac.abort();
  return frames.slice(0, count);
}
