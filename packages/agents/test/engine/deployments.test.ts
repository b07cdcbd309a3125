// `agents deployment list|get|pause|unpause|run --follow` through the library against the
// simulators: native deployments read and switched remotely, provider_d's emulated ones refused
// by name, and a run's session followed until the agent is idle.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getDeployment,
  listDeployments,
  openSession,
  runDeployment,
  type SessionEvent,
  sessionEvents,
  setDeploymentPaused,
} from "../../src/index.js";
import { applyAll, type SessionWorld, sessionWorld, YAML } from "./sessions-project.js";

const deployment = (provider: string, agent: string, env: string) => `
  run-${provider.slice(-1)}:
    provider: ${provider}
    agent: ${agent}
    environment: ${env}
    initial_events:
      - type: user.message
        content: Summarize what changed today.`;

const WITH_DEPLOYMENTS = `${YAML}
deployments:${deployment("provider_a", "talk-a", "env-a")}${deployment("provider_b", "talk-b", "env-b")}${deployment("provider_c", "talk-c", "env-c")}${deployment("provider_d", "talk-d", "env-d")}
`;

let world: SessionWorld;
beforeAll(async () => {
  world = await sessionWorld(WITH_DEPLOYMENTS, "agents-deployments-");
  await applyAll(world);
}, 60_000);
afterAll(() => world?.close());

describe("deployment list, get, pause, unpause", () => {
  it("list: every applied deployment from state; --remote adds each one's status", async () => {
    const options = await world.options();
    const local = await listDeployments(options);
    expect(local.map((d) => d.address)).toEqual([
      'provider_a.deployments["run-a"]',
      'provider_b.deployments["run-b"]',
      'provider_c.deployments["run-c"]',
      'provider_d.deployments["run-d"]',
    ]);
    const remote = await listDeployments(options, { remote: true });
    expect(remote.map((d) => d.status)).toEqual(["active", "active", "active", undefined]);
  });

  it.each(["run-a", "run-b", "run-c"])("%s: pause, get, unpause", async (name) => {
    const options = await world.options();
    expect((await setDeploymentPaused(options, name, true)).status).toBe("paused");
    expect((await getDeployment(options, name)).status).toBe("paused");
    expect((await setDeploymentPaused(options, name, false)).status).toBe("active");
  });

  it("an emulated deployment has nothing remote to pause: one error naming the providers that can", async () => {
    await expect(setDeploymentPaused(await world.options(), "run-d", true)).rejects.toThrow(
      'provider_d.deployments["run-d"]: provider_d deployments are emulated (nothing remote to pause); pause and unpause exist on provider_a, provider_b, provider_c',
    );
  });
});

describe("deployment run --follow", () => {
  it.each(["run-a", "run-b", "run-c", "run-d"])(
    "%s: the run's session is followed until the agent is idle",
    async (name) => {
      const options = await world.options();
      const run = await runDeployment(options, name);
      expect(run.session_id).toEqual(expect.any(String));
      const events: SessionEvent[] = [];
      await sessionEvents(await openSession(options, run.session_id!), {
        follow: true,
        untilIdle: true,
        onEvent: (e) => events.push(e),
      });
      expect(events[0]).toMatchObject({ type: "user_message", text: "Summarize what changed today." });
      expect(events.at(-1)).toMatchObject({ type: "status", status: "idle" });
    },
  );
});
