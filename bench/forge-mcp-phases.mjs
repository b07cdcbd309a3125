// Preload for forge-mcp (node --import ./bench/forge-mcp-phases.mjs dist/main.js): where the
// milliseconds of each /mcp call go inside forge-mcp. Per HTTP request it records, on one clock
// shared with the bench (performance.timeOrigin + performance.now(), ms since the epoch):
//   a  the 'request' event (headers parsed; the handler chain starts)
//   b  the forge request is created (undici:request:create): express, the body, the SDK, the tool
//   c  its headers are written to a socket (undici:client:sendHeaders): waiting for a connection
//   d  the forge's answer headers arrive (undici:request:headers): the forge's own time
//   e  its body is complete (undici:request:trailers)
//   f  the answer to the client is written ('finish')
// plus the event loop's delay and the garbage collections (perf_hooks) and how many sockets were opened each way. On SIGUSR2
// it writes JSON to FORGE_MCP_PHASES_OUT. Measurement only: it changes nothing forge-mcp does.
import { AsyncLocalStorage } from "node:async_hooks";
import dc from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import http from "node:http";
import { monitorEventLoopDelay, PerformanceObserver, performance } from "node:perf_hooks";

const out = process.env.FORGE_MCP_PHASES_OUT;
const now = () => performance.timeOrigin + performance.now();
const als = new AsyncLocalStorage();
const records = [];
const forgeRequests = new WeakMap();
let inboundSockets = 0;
let forgeConnects = 0;
// one loop-delay histogram per second, so the bench can pick its measured windows
const loop = [];
let h = monitorEventLoopDelay({ resolution: 10 });
h.enable();
const tick = setInterval(() => {
  // the histogram holds the intervals between samples: the delay is what exceeds the 10 ms
  const late = (ns) => Math.max(0, ns / 1e6 - 10);
  loop.push({ t: now(), p50: late(h.percentile(50)), p99: late(h.percentile(99)), mean: late(h.mean) });
  h.disable();
  h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
}, 1000);
tick.unref();

// every garbage collection: when (ms since the epoch), how long (ms), which kind (1 scavenge,
// 2 mark-compact, 4 incremental marking, 8 weak callbacks)
const gcs = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    gcs.push({ t: performance.timeOrigin + e.startTime, ms: e.duration, kind: e.detail?.kind });
}).observe({ entryTypes: ["gc"] });

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event === "connection") inboundSockets++;
  if (event !== "request") return emit.call(this, event, ...args);
  const res = args[1];
  const rec = { a: now() };
  // with --phases the bench stamps when its client wrote the request (the same clock)
  const sent = Number(args[0].headers["x-bench-sent"]);
  if (sent) rec.s = sent;
  records.push(rec);
  res.once("finish", () => {
    rec.f = now();
  });
  requestRecords.set(args[0], rec);
  return als.run(rec, () => emit.call(this, event, ...args));
};
// A listener of the request's own events ('data', 'end': how the /mcp lane reads the body) runs in
// the socket's async context, not in the one the 'request' event was emitted in: carry the call's
// record into those too, or every forge request made after reading the body goes unattributed
const requestRecords = new WeakMap();
const emitIncoming = http.IncomingMessage.prototype.emit;
http.IncomingMessage.prototype.emit = function (event, ...args) {
  const rec = requestRecords.get(this);
  return rec && als.getStore() !== rec
    ? als.run(rec, () => emitIncoming.call(this, event, ...args))
    : emitIncoming.call(this, event, ...args);
};
dc.subscribe("undici:request:create", ({ request }) => {
  const rec = als.getStore();
  if (!rec || rec.b !== undefined) return;
  rec.b = now();
  forgeRequests.set(request, rec);
});
dc.subscribe("undici:client:sendHeaders", ({ request }) => {
  const rec = forgeRequests.get(request);
  if (rec) rec.c = now();
});
dc.subscribe("undici:request:headers", ({ request }) => {
  const rec = forgeRequests.get(request);
  if (rec) rec.d = now();
});
dc.subscribe("undici:request:trailers", ({ request }) => {
  const rec = forgeRequests.get(request);
  if (rec) rec.e = now();
});
dc.subscribe("undici:client:connected", () => {
  forgeConnects++;
});

// SIGUSR2: the bench asks for the records before it stops the process
process.on("SIGUSR2", () => {
  if (out) writeFileSync(out, JSON.stringify({ records, loop, gcs, inboundSockets, forgeConnects }));
});
