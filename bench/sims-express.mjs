#!/usr/bin/env node
// Where an Express 5 request's CPU goes, and what the simulators' server setup saves: the same
// one-route JSON GET served by bare node:http, by Express 5 the usual way (app.listen), and by
// Express 5 through createExpressServer (requests born with Express's prototypes), each with and
// without 80 earlier routes and the body parsers. CPU per request in the server's own process, best
// of --reps runs (a shared machine only ever adds time).
// Usage: npm run build && node bench/sims-express.mjs [--requests N] [--reps N]
// Appends to bench/results/sims-express.md.
import { fork } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const VARIANTS = {
  "node:http": "bare node:http handler writing the same JSON",
  express: "Express 5, app.listen (re-parents req/res with Object.setPrototypeOf)",
  "express+80routes+parsers": "as above, 80 earlier routes with 2 params + express.json + express.urlencoded",
  "express/prebuilt": "Express 5 through createExpressServer",
  "express/prebuilt+80routes+parsers": "createExpressServer, 80 earlier routes + body parsers",
};

if (process.argv[2] === "--child") {
  const variant = process.argv[3];
  const express = createRequire(new URL("../packages/sims/package.json", import.meta.url))("express");
  const { createExpressServer } = await import("../packages/sims/dist/core/express-server.js");
  let server;
  if (variant === "node:http") {
    server = http.createServer((_req, res) => {
      const body = JSON.stringify({ data: [], next_page: null });
      res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": body.length,
      });
      res.end(body);
    });
  } else {
    const app = express();
    app.disable("x-powered-by");
    app.set("etag", false);
    if (variant.includes("parsers")) {
      app.use(express.json());
      app.use(express.urlencoded({ extended: false }));
    }
    if (variant.includes("80routes")) {
      for (let i = 0; i < 80; i++) app.get(`/v1/r${i}/:id/things/:x`, (_req, res) => res.json({}));
    }
    app.get("/v1/list", (_req, res) => res.json({ data: [], next_page: null }));
    server = variant.startsWith("express/prebuilt") ? createExpressServer(app) : http.createServer(app);
  }
  server.listen(0, "127.0.0.1", () =>
    process.send({ url: `http://127.0.0.1:${server.address().port}/v1/list` }),
  );
  process.on("message", (m) => {
    if (m === "cpu") process.send({ cpu: process.cpuUsage() });
    if (m === "stop") process.exit(0);
  });
} else {
  const { values } = parseArgs({
    options: { requests: { type: "string", default: "15000" }, reps: { type: "string", default: "3" } },
  });
  const amount = Number(values.requests);
  const best = {};
  for (let rep = 0; rep < Number(values.reps); rep++) {
    for (const variant of Object.keys(VARIANTS)) {
      const child = fork(new URL(import.meta.url).pathname, ["--child", variant]);
      const ask = (msg, key) =>
        new Promise((resolve) => {
          const on = (m) => {
            if (m[key] !== undefined) {
              child.off("message", on);
              resolve(m[key]);
            }
          };
          child.on("message", on);
          if (msg) child.send(msg);
        });
      const url = await ask(undefined, "url");
      await autocannon({ url, connections: 8, amount: 3000 });
      const before = await ask("cpu", "cpu");
      const r = await autocannon({ url, connections: 16, amount });
      const after = await ask("cpu", "cpu");
      child.send("stop");
      if (r.non2xx + r.errors > 0) throw new Error(`${variant}: ${r.non2xx + r.errors} failed requests`);
      const us = (after.user + after.system - before.user - before.system) / amount;
      best[variant] = Math.min(best[variant] ?? Number.POSITIVE_INFINITY, us);
    }
  }
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const rows = Object.entries(VARIANTS).map(
    ([v, what]) => `| ${v} | ${what} | ${best[v].toFixed(1)} | ${Math.round(1e6 / best[v])} |`,
  );
  for (const row of rows) console.log(row);
  appendFileSync(
    new URL("./results/sims-express.md", import.meta.url),
    `\n## ${new Date().toISOString().slice(0, 16)}Z — ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), node ${process.version}, load ${load}, ${amount} requests, 16 connections, best of ${values.reps}\n\n` +
      `| variant | what | µs CPU/request | req/s per core |\n|---|---|---|---|\n${rows.join("\n")}\n`,
  );
}
