// How the benches put a tools/call on the wire, per MCP revision (bench/forge-mcp.mjs,
// bench/forge-mcp-cpu.mjs).
//  - "2025": a plain JSON-RPC tools/call, as a 2025 client sends it once initialized (the
//    stateless server needs no session);
//  - "2026": a 2026-07-28 request as @modelcontextprotocol/client 2.4.0 puts it on the wire
//    (checked against the real client: its member order, the _meta keys, the MCP-Protocol-Version,
//    Mcp-Method and Mcp-Name headers; no initialize, no session).

export const MCP_REVISIONS = ["2025", "2026"];

const ACCEPT = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** Headers and body of one tools/call of `tool` with `args` at `revision`. */
export function mcpToolCall(revision, tool, args) {
  if (revision === "2025")
    return {
      headers: ACCEPT,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: tool, arguments: args },
      }),
    };
  if (revision !== "2026") throw new Error(`unknown revision ${revision} (2025 or 2026)`);
  return {
    headers: {
      ...ACCEPT,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": tool,
    },
    body: JSON.stringify({
      method: "tools/call",
      params: {
        name: tool,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
      jsonrpc: "2.0",
      id: 1,
    }),
  };
}

/** Whether one answer of that call is a success (a 2xx carrying an error would bench as fast). */
export function succeeded(revision, answer) {
  const r = answer?.result;
  return Boolean(r) && !r.isError && (revision === "2025" || r.resultType === "complete");
}
