// Drives the npm package kafka-connect-client, unmodified, for tests/integration/test_third_party_clients.py.
//
//   node driver.mjs <directory holding node_modules/kafka-connect-client> <worker URL>
//
// Reads one request a line on stdin, {"op": ..., "ctx": {...}}, calls the client method named by "op" and
// writes one line on stdout: {"ok": true, "value": {"status", "data"}} or {"ok": false, "error": "..."}.
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import path from "node:path";

const [installDir, workerUrl] = process.argv.slice(2);
const { KafkaConnectClient } = createRequire(path.join(installDir, "package.json"))("kafka-connect-client");

const url = new URL(workerUrl);
const client = new KafkaConnectClient({ protocol: url.protocol.replace(":", ""), host: url.hostname, port: url.port });
const connector = (ctx) => client.connector(ctx.name);

const ops = {
  server_info: () => client.getCluster(),
  plugins: () => client.getConnectorPlugins(),
  plugins_all: () => client.getConnectorPlugins({ connectorsOnly: false }),
  validate: (ctx) => client.validateConnectorConfig(ctx.plugin, ctx.config),
  create: (ctx) => client.createConnector(ctx.name, ctx.config),
  list: () => client.getConnectors(),
  list_expand_status: () => client.getConnectors({ expand: "status" }),
  list_expand_info: () => client.getConnectors({ expand: "info" }),
  list_expand_all: () => client.getConnectors({ expand: ["status", "info"] }),
  get: (ctx) => connector(ctx).get(),
  config_get: (ctx) => connector(ctx).getConfig(),
  config_put: (ctx) => connector(ctx).updateConfig(ctx.config2),
  status: (ctx) => connector(ctx).getStatus(),
  tasks: (ctx) => connector(ctx).getTasks(),
  task_status: (ctx) => connector(ctx).getTaskStatus(0),
  topics: (ctx) => connector(ctx).getTopics(),
  offsets: (ctx) => connector(ctx).getOffsets(),
  restart: (ctx) => connector(ctx).restart(),
  restart_with_tasks: (ctx) => connector(ctx).restart({ includeTasks: true, onlyFailed: false }),
  restart_task: (ctx) => connector(ctx).restartTask(0),
  pause: (ctx) => connector(ctx).pause(),
  resume: (ctx) => connector(ctx).resume(),
  stop: (ctx) => connector(ctx).stop(),
  topics_reset: (ctx) => connector(ctx).resetTopics(),
  offsets_alter: (ctx) => connector(ctx).alterOffsets(ctx.offsets),
  offsets_reset: (ctx) => connector(ctx).resetOffsets(),
  delete: (ctx) => connector(ctx).delete(),
};

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { op, ctx } = JSON.parse(line);
  let answer;
  try {
    if (op === "ops") {
      answer = { ok: true, value: Object.keys(ops) };
    } else {
      const response = await ops[op](ctx);
      answer = { ok: true, value: { status: response.status, data: response.data ?? null } };
    }
  } catch (err) {
    const detail = err.response ? `HTTP ${err.response.status} ${JSON.stringify(err.response.data)}` : String(err);
    answer = { ok: false, error: detail };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
