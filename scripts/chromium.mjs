// The command line every headless Chromium of the repository starts with: no sandbox (the tests
// run as root in a container), no GPU, and none of the background traffic a fresh profile would
// send (first-run, component updates, sync), so a run talks to loopback only. Used by the
// playground test (packages/agents/test/e2e/playground.test.ts) and scripts/conformance.mjs.
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
