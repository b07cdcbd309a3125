import { cfg } from "../helpers.js";
import { A, agent, B, C, D, forward, identity, type RuleRow, twins } from "./rows.js";

const ENV_E = "environments:\n  e:\n    config: {type: cloud}\n";

/** Rule rows for mount paths, deployments and channels. */
export const RUNS_RULES: RuleRow[] = [
  {
    code: "AGENTS1400",
    rule: "absolute mount path under the provider root (provider_b: /data/)",
    ...twins(
      cfg(
        B,
        "agents:\n" +
          agent(
            "a",
            "resources:",
            "  - type: git_repository",
            "    url: https://g/r",
            "    mount_path: [[@@/workspace/r|/data/r]]",
          ),
      ),
    ),
  },
  {
    code: "AGENTS1400",
    rule: "absolute mount path under the provider root (provider_a: /mnt)",
    ...twins(
      cfg(
        A,
        "files:\n  data:\n    source: data.txt\nagents:\n" +
          agent("a", "files:", "  - file: data", "    mount_path: [[@@/data/x.txt|inputs/x.txt]]"),
      ),
    ),
  },
  {
    code: "AGENTS1400",
    rule: "a mount path is never empty",
    invalid: cfg(
      A,
      "files:\n  data:\n    source: data.txt\nagents:\n" +
        agent("a", "files:", "  - file: data", "    mount_path: @@' '"),
    ),
    valid: cfg(
      A,
      "files:\n  data:\n    source: data.txt\nagents:\n" +
        agent("a", "files:", "  - file: data", "    mount_path: x.txt"),
    ),
  },
  {
    code: "AGENTS1401",
    rule: "two resources of one deployment mount at different paths (relative ones under the root)",
    ...twins(
      cfg(
        A,
        `${ENV_E}agents:\n${agent("a")}\ndeployments:\n  d:\n    agent: a\n    environment: e\n    initial_events:\n      - {type: user.message, content: Go.}\n    resources:\n      - {type: file, file_id: file_1, mount_path: a.txt}\n      - {type: file, file_id: file_2, mount_path: [[@@/mnt/a.txt|/mnt/b.txt]]}`,
      ),
    ),
  },
  {
    code: "AGENTS1508",
    rule: "provider_c needs description on user.define_outcome",
    invalid: cfg(
      C,
      ENV_E +
        "agents:\n" +
        agent("a", "environment: e") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events:\n      - @@type: user.define_outcome\n        rubric: Good work.",
    ),
    valid: cfg(
      C,
      ENV_E +
        "agents:\n" +
        agent("a", "environment: e") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events:\n      - type: user.define_outcome\n        description: A report\n        rubric: Good work.",
    ),
  },
  {
    code: "AGENTS1509",
    rule: "provider_a needs mount_path on a deployment file resource",
    invalid: cfg(
      A,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    environment: e\n    resources:\n      - @@type: file\n        file_id: file_1\n    initial_events: [{type: user.message, content: hi}]\nenvironments:\n  e:\n    config: {type: cloud}",
    ),
    valid: cfg(
      A,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    environment: e\n    resources:\n      - type: file\n        file_id: file_1\n        mount_path: inputs/x.md\n    initial_events: [{type: user.message, content: hi}]\nenvironments:\n  e:\n    config: {type: cloud}",
    ),
  },
  {
    code: "AGENTS1510",
    rule: "provider_a deployment needs an environment",
    invalid: cfg(
      A,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  @@d:\n    agent: a\n    initial_events: [{type: user.message, content: hi}]",
    ),
    valid: cfg(
      A,
      `${ENV_E}agents:\n` +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    environment: e\n    initial_events: [{type: user.message, content: hi}]",
    ),
  },
  {
    code: "AGENTS1511",
    rule: "provider_a deployment needs a user.message initial event",
    invalid: cfg(
      A,
      `${ENV_E}agents:\n` +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    environment: e\n    initial_events:\n      @@- type: user.define_outcome\n        description: A report",
    ),
    valid: cfg(
      A,
      `${ENV_E}agents:\n` +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    environment: e\n    initial_events:\n      - type: user.message\n        content: Write a report.",
    ),
  },
  {
    code: "AGENTS1512",
    rule: "provider_a drops user.define_outcome (warning)",
    severity: "warning",
    invalid: cfg(
      A,
      `${ENV_E}agents:\n` +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    environment: e\n    initial_events:\n      - type: user.message\n        content: Write a report.\n      - type: @@user.define_outcome\n        description: A report",
    ),
    valid: cfg(
      A,
      `${ENV_E}agents:\n` +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    environment: e\n    initial_events:\n      - type: user.message\n        content: Write a report.",
    ),
  },
  {
    code: "AGENTS1513",
    rule: "provider_b cannot deploy a Forward agent",
    invalid: cfg(B, "agents:\n" + agent("a", ...forward) + "\ndeployments:\n  d:\n    agent: @@a"),
    valid: cfg(B, "agents:\n" + agent("a") + "\ndeployments:\n  d:\n    agent: a"),
  },
  {
    code: "AGENTS1500",
    rule: "initial_events 1 to 50",
    invalid: cfg(
      C,
      ENV_E +
        "agents:\n" +
        agent("a", "environment: e") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events: @@[]",
    ),
    valid: cfg(
      C,
      ENV_E +
        "agents:\n" +
        agent("a", "environment: e") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events: [{type: user.message, content: hi}]",
    ),
  },
  {
    code: "AGENTS1501",
    rule: "max_iterations 1 to 20",
    ...twins(
      cfg(
        C,
        ENV_E +
          "agents:\n" +
          agent("a", "environment: e") +
          "\ndeployments:\n  d:\n    agent: a\n    initial_events:\n      - type: user.define_outcome\n        description: d\n        max_iterations: [[@@21|20]]",
      ),
    ),
  },
  {
    code: "AGENTS1502",
    rule: "rubric and rubric_file are alternatives",
    invalid: cfg(
      C,
      ENV_E +
        "agents:\n" +
        agent("a", "environment: e") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events:\n      - type: user.define_outcome\n        description: d\n        rubric: be good\n        rubric_file: @@rubric.md",
    ),
    valid: cfg(
      C,
      ENV_E +
        "agents:\n" +
        agent("a", "environment: e") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events:\n      - type: user.define_outcome\n        description: d\n        rubric_file: rubric.md",
    ),
  },
  {
    code: "AGENTS1503",
    rule: "schedule.expression is 5-field cron",
    ...twins(
      cfg(
        C,
        ENV_E +
          "agents:\n" +
          agent("a", "environment: e") +
          "\ndeployments:\n  d:\n    agent: a\n    initial_events: [{type: user.message, content: hi}]\n    schedule:\n      expression: [[@@0 0 9 * * 1|0 9 * * 1-5]]",
      ),
    ),
  },
  {
    code: "AGENTS1504",
    rule: "schedule.timezone is an IANA zone",
    ...twins(
      cfg(
        C,
        ENV_E +
          "agents:\n" +
          agent("a", "environment: e") +
          "\ndeployments:\n  d:\n    agent: a\n    initial_events: [{type: user.message, content: hi}]\n    schedule:\n      expression: 0 9 * * *\n      timezone: [[@@Mars/Olympus|Europe/Berlin]]",
      ),
    ),
  },
  {
    code: "AGENTS1505",
    rule: "provider_b deployment with a tunnel: the tunnel is dropped (warning)",
    severity: "warning",
    invalid: cfg(
      B,
      "tunnels:\n  office:\n    tunnel_id: tnl_1\nagents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    tunnel: @@office",
    ),
    valid: cfg(
      B,
      "tunnels:\n  office:\n    tunnel_id: tnl_1\nagents:\n" +
        agent("a", "tunnel: office") +
        "\ndeployments:\n  d:\n    agent: a",
    ),
  },
  {
    code: "AGENTS1506",
    rule: "provider_d runs no schedules (warning)",
    severity: "warning",
    invalid: cfg(
      D,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    schedule: @@{expression: 0 9 * * *}",
    ),
    valid: cfg(
      C,
      ENV_E +
        "agents:\n" +
        agent("a", "environment: e") +
        "\ndeployments:\n  d:\n    agent: a\n    initial_events: [{type: user.message, content: hi}]\n    schedule: {expression: 0 9 * * *}",
    ),
  },
  {
    code: "AGENTS1507",
    rule: "deployment file resource needs file_id or source",
    invalid: cfg(
      D,
      "agents:\n" + agent("a") + "\ndeployments:\n  d:\n    agent: a\n    resources:\n      - @@type: file",
    ),
    valid: cfg(
      D,
      "agents:\n" +
        agent("a") +
        "\ndeployments:\n  d:\n    agent: a\n    resources:\n      - type: file\n        source: data.txt",
    ),
  },
  {
    code: "AGENTS1600",
    rule: "fixed channel needs an agent",
    invalid: cfg(B, `${identity}\nchannels:\n  @@ding:\n    type: wechat`, "  identity: alice"),
    valid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward) +
        "\nchannels:\n  ding:\n    type: wechat\n    agent: a",
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1601",
    rule: "fixed channel needs an identity",
    invalid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward) +
        "\nchannels:\n  @@ding:\n    type: wechat\n    agent: a",
    ),
    valid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward) +
        "\nchannels:\n  ding:\n    type: wechat\n    agent: a\n    identity: alice",
    ),
  },
  {
    code: "AGENTS1602",
    rule: "pairing ignores agent and identity (warning)",
    severity: "warning",
    invalid: cfg(
      B,
      "agents:\n" + agent("a") + "\nchannels:\n  group:\n    type: wechat\n    mode: pairing\n    agent: @@a",
    ),
    valid: cfg(B, "channels:\n  group:\n    type: wechat\n    mode: pairing"),
  },
  {
    code: "AGENTS1603",
    rule: "provider_b fixed channel requires a Forward agent",
    invalid: cfg(
      B,
      `${identity}\nagents:\n` + agent("a") + "\nchannels:\n  ding:\n    type: wechat\n    agent: @@a",
      "  identity: alice",
    ),
    valid: cfg(
      B,
      `${identity}\nagents:\n` +
        agent("a", ...forward) +
        "\nchannels:\n  ding:\n    type: wechat\n    agent: a",
      "  identity: alice",
    ),
  },
  {
    code: "AGENTS1604",
    rule: "channel type offered by the provider",
    invalid: cfg(B, "channels:\n  g:\n    type: @@slack\n    mode: pairing"),
    valid: cfg(
      B,
      'channels:\n  g:\n    type: feishu\n    mode: pairing\n    credentials: {app_id: a, app_secret: "${TOKEN}"}',
    ),
  },
  {
    code: "AGENTS1606",
    rule: "a QR-only channel takes no credentials",
    invalid: cfg(
      B,
      'channels:\n  c:\n    type: wechat\n    mode: pairing\n    credentials: @@{token: "${TOKEN}"}',
    ),
    valid: cfg(B, "channels:\n  c:\n    type: wechat\n    mode: pairing"),
  },
  {
    code: "AGENTS1605",
    rule: "credential-based channel types need their keys",
    invalid: cfg(
      B,
      "channels:\n  g:\n    type: dingtalk\n    mode: pairing\n    credentials: @@{client_id: a}",
    ),
    valid: cfg(
      B,
      'channels:\n  g:\n    type: dingtalk\n    mode: pairing\n    credentials: {client_id: a, client_secret: "${TOKEN}"}',
    ),
  },
];
