import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.sourcelab.kafka.connect.apiclient.Configuration;
import org.sourcelab.kafka.connect.apiclient.KafkaConnectClient;
import org.sourcelab.kafka.connect.apiclient.request.JacksonFactory;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorPluginConfigDefinition;
import org.sourcelab.kafka.connect.apiclient.request.dto.NewConnectorDefinition;
import org.sourcelab.kafka.connect.apiclient.request.post.PostConnectorRestart;

/**
 * Drives the Maven artifact org.sourcelab:kafka-connect-client, unmodified, for
 * tests/integration/test_third_party_clients.py.
 *
 * <p>{@code java -cp <classes>:<client jars> Driver <worker URL>} reads one request a line on stdin,
 * {"op": ..., "ctx": {...}}, calls the client method named by "op" and writes one line on stdout:
 * {"ok": true, "value": ...} (the client's answer as its own Jackson mapper writes it) or
 * {"ok": false, "error": "..."}.
 */
public final class Driver {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Driver() {
    }

    private static Map<String, BiFunction<KafkaConnectClient, JsonNode, Object>> ops() {
        final Map<String, BiFunction<KafkaConnectClient, JsonNode, Object>> ops = new LinkedHashMap<>();
        ops.put("server_info", (c, x) -> c.getConnectServerVersion());
        ops.put("plugins", (c, x) -> c.getConnectorPlugins());
        ops.put("validate", (c, x) -> c.validateConnectorPluginConfig(
            new ConnectorPluginConfigDefinition(x.get("plugin").asText(), config(x, "config"))));
        ops.put("create", (c, x) -> c.addConnector(new NewConnectorDefinition(name(x), config(x, "config"))));
        ops.put("list", (c, x) -> c.getConnectors());
        ops.put("list_expand_status", (c, x) -> c.getConnectorsWithExpandedStatus());
        ops.put("list_expand_info", (c, x) -> c.getConnectorsWithExpandedInfo());
        ops.put("list_expand_all", (c, x) -> c.getConnectorsWithAllExpandedMetadata());
        ops.put("get", (c, x) -> c.getConnector(name(x)));
        ops.put("config_get", (c, x) -> c.getConnectorConfig(name(x)));
        ops.put("config_put", (c, x) -> c.updateConnectorConfig(name(x), config(x, "config2")));
        ops.put("status", (c, x) -> c.getConnectorStatus(name(x)));
        ops.put("tasks", (c, x) -> c.getConnectorTasks(name(x)));
        ops.put("task_status", (c, x) -> c.getConnectorTaskStatus(name(x), 0));
        ops.put("topics", (c, x) -> c.getConnectorTopics(name(x)));
        ops.put("restart", (c, x) -> c.restartConnector(name(x)));
        ops.put("restart_with_tasks", (c, x) -> c.restartConnector(
            new PostConnectorRestart(name(x)).withIncludeTasks(true).withOnlyFailed(false)));
        ops.put("restart_task", (c, x) -> c.restartConnectorTask(name(x), 0));
        ops.put("pause", (c, x) -> c.pauseConnector(name(x)));
        ops.put("resume", (c, x) -> c.resumeConnector(name(x)));
        ops.put("stop", (c, x) -> c.stopConnector(name(x)));
        ops.put("topics_reset", (c, x) -> c.resetConnectorTopics(name(x)));
        ops.put("delete", (c, x) -> c.deleteConnector(name(x)));
        return ops;
    }

    private static String name(final JsonNode ctx) {
        return ctx.get("name").asText();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> config(final JsonNode ctx, final String key) {
        return MAPPER.convertValue(ctx.get(key), Map.class);
    }

    private static JsonNode value(final Object answer) {
        try {
            return JacksonFactory.newInstance().valueToTree(answer);
        } catch (final IllegalArgumentException notABean) {
            return new TextNode(String.valueOf(answer));
        }
    }

    public static void main(final String[] args) throws Exception {
        final KafkaConnectClient client = new KafkaConnectClient(
            new Configuration(args[0]).useRequestTimeoutInSeconds(30));
        final Map<String, BiFunction<KafkaConnectClient, JsonNode, Object>> ops = ops();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            final JsonNode request = MAPPER.readTree(line);
            final String op = request.get("op").asText();
            final ObjectNode answer = MAPPER.createObjectNode();
            try {
                final Object result = "ops".equals(op) ? ops.keySet() : ops.get(op).apply(client, request.get("ctx"));
                answer.put("ok", true);
                answer.set("value", value(result));
            } catch (final RuntimeException e) {
                answer.put("ok", false);
                answer.put("error", e.toString());
            }
            out.println(MAPPER.writeValueAsString(answer));
        }
    }
}
