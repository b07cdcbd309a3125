import type { Request } from "express";

/**
 * Reads a multipart/form-data body with the platform's own parser (the WHATWG Request of Node's
 * fetch), so uploads are parsed as a real server would and no hand-written parser can drift.
 */
export async function readMultipart(req: Request): Promise<FormData> {
  const type = req.headers["content-type"] ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    throw Object.assign(new Error("expected multipart/form-data"), { status: 400 });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const request = new Request("http://sim.local/upload", {
    method: "POST",
    headers: { "content-type": type },
    body,
  });
  try {
    return await request.formData();
  } catch {
    throw Object.assign(new Error("malformed multipart body"), { status: 400 });
  }
}

/** A File part's bytes, or undefined when the field is absent or a plain string. */
export async function fileBytes(
  form: FormData,
  field: string,
): Promise<{ name: string; type: string; bytes: Uint8Array }[]> {
  const out: { name: string; type: string; bytes: Uint8Array }[] = [];
  for (const value of form.getAll(field)) {
    if (typeof value === "string") continue;
    out.push({ name: value.name, type: value.type, bytes: new Uint8Array(await value.arrayBuffer()) });
  }
  return out;
}
