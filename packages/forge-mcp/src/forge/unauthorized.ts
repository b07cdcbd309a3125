import type { ServerResponse } from "node:http";

/**
 * When the forge answers 401 to a tool's call, the token was revoked or expired before our
 * verification cache noticed. The tool's own error would reach the client inside a 200, and the
 * official clients only refresh on an HTTP 401; so once tripped, the JSON response this request
 * was about to send is replaced by 401 `invalid_token` with the RFC 6750 / RFC 9728 challenge, and
 * the client refreshes at once. /mcp answers in JSON mode (one write after every tool finished),
 * so the response has not started when a tool trips this.
 */
export function forgeUnauthorizedReply(res: ServerResponse, resourceMetadataUrl: string): () => void {
  let tripped = false;
  let replaced = false;
  const writeHead = res.writeHead.bind(res) as (
    status: number,
    headers?: Record<string, string>,
  ) => ServerResponse;
  const write = res.write.bind(res);
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  const body = JSON.stringify({ error: "invalid_token", error_description: "Invalid or expired token" });
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (!tripped || replaced) return (writeHead as (...a: unknown[]) => ServerResponse)(status, ...rest);
    replaced = true;
    for (const name of ["content-type", "content-length", "transfer-encoding", "mcp-session-id"])
      res.removeHeader(name);
    return writeHead(401, {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      "www-authenticate": `Bearer error="invalid_token", error_description="Invalid or expired token", resource_metadata="${resourceMetadataUrl}"`,
    });
  }) as ServerResponse["writeHead"];
  res.write = ((...args: Parameters<ServerResponse["write"]>) =>
    replaced ? true : write(...args)) as ServerResponse["write"];
  res.end = ((...args: unknown[]) =>
    replaced ? end(body) : (end as (...a: unknown[]) => ServerResponse)(...args)) as ServerResponse["end"];
  return () => {
    tripped = true;
  };
}
