/*
 * The reference side of the differential harness (tests/java_data_harness.py drives it): Apache Kafka
 * Connect's own data classes, fed one case per JSON line on stdin, answering one JSON line per case on
 * stdout, so that one JVM serves a whole corpus.
 *
 * Case format (the Python driver documents the same):
 *   schema description S: {"type": "INT8".."STRUCT", "optional": bool, "default": V, "name": str,
 *     "version": int, "doc": str, "parameters": {str: str}, "fields": [{"name": str, "schema": S}],
 *     "key": S, "value": S}; logical types are schemas with their Java name (and "scale" parameter).
 *   value encoding V: null, or one tagged object: {"int8"|"int16"|"int32"|"int64": n},
 *     {"float32"|"float64": x or "NaN"/"Infinity"/"-Infinity"}, {"boolean": b}, {"string": s},
 *     {"bytes": base64}, {"decimal": "unscaled-free plain string, its scale is the digits after '.'"},
 *     {"date": epoch days}, {"time": millis of day}, {"timestamp": epoch millis} (all three a
 *     java.util.Date), {"array": [V]}, {"map": [[V, V]]} (pairs, so keys need not be strings),
 *     {"struct": {field: V}, "schema": S?} (the schema defaults to the one the value stands for).
 *   operations ("op"):
 *     validate {schema, value}: ConnectSchema.validateValue -> {"ok": true} | error
 *     schema_equals {schema, other} -> {"result": bool}
 *     decimal_from_logical {scale, value: "1.23"} -> {"result": base64}
 *     decimal_to_logical {scale, bytes: base64} -> {"result": plain string}
 *     date_|time_|timestamp_from_logical {value: epoch millis} -> {"result": int}
 *     date_|time_|timestamp_to_logical {value: int} -> {"result": epoch millis}
 *     json_from_connect {config, topic, schema, value} -> {"result": base64 of the bytes}
 *     json_to_connect {config, topic, bytes: base64} -> {"schema": S, "value": V}
 *     values_parse {text} -> {"schema": S, "value": V, "string": Values.convertToString of them}
 *     values_to_string {schema?, value} -> {"result": Values.convertToString}
 *     values_convert {to: boolean|byte|...|decimal, schema?, value, scale?} -> {"result": V} (Values.convertTo*)
 *     header_from_connect {topic, key, schema?, value} -> {"result": SimpleHeaderConverter's bytes, base64}
 *     header_to_connect {topic, key, bytes: base64} -> {"schema": S, "value": V} (SimpleHeaderConverter)
 *   an ARRAY or MAP schema S may have a null "key" or "value" (Values.parseString makes such schemas).
 *     converter_from_connect {class, is_key, config, topic, schema, value, read_back?} -> {"result": base64 or
 *       null} and, with read_back, {"read": {"schema": S, "value": V}} or {"read_error", "read_message"}: Java's
 *       own bytes through toConnectData of the same converter instance
 *     converter_to_connect {class, is_key, config, topic, bytes: base64 or null} -> {"schema": S, "value": V}
 *     (the converter of a class, key flag and config is made once and kept, schema caches and all)
 *     transform {class, config, records: [R]} -> {"records": [R | null | error]}: one transform instance
 *       (so its schema caches see every record of the case), each record's result or its exception;
 *       R is {"topic", "partition", "key_schema": S, "key": V, "value_schema": S, "value": V,
 *       "timestamp", "headers": [{"key", "schema": S, "value": V}]} (absent means null)
 *     predicate {class, config, records: [R]} -> {"results": [bool | error]}
 *   any exception -> {"error": simple class name, "message": its message}.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.data.Values;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

public final class ConnectDataHarness {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final long DAY_MS = 24L * 60 * 60 * 1000;

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            ObjectNode result;
            try {
                result = run(MAPPER.readTree(line));
            } catch (Throwable e) {
                result = NODES.objectNode();
                result.put("error", e.getClass().getSimpleName());
                result.put("message", e.getMessage());
            }
            out.println(MAPPER.writeValueAsString(result));
            out.flush();
        }
    }

    private static ObjectNode run(JsonNode c) throws Exception {
        ObjectNode r = NODES.objectNode();
        String op = c.get("op").asText();
        switch (op) {
            case "validate": {
                Schema schema = schema(c.get("schema"));
                ConnectSchema.validateValue(schema, value(c.get("value"), schema));
                r.put("ok", true);
                return r;
            }
            case "schema_equals":
                r.put("result", schema(c.get("schema")).equals(schema(c.get("other"))));
                return r;
            case "decimal_from_logical": {
                int scale = c.get("scale").asInt();
                r.put("result", Base64.getEncoder().encodeToString(
                        Decimal.fromLogical(Decimal.schema(scale), new BigDecimal(c.get("value").asText()))));
                return r;
            }
            case "decimal_to_logical": {
                int scale = c.get("scale").asInt();
                r.put("result", Decimal.toLogical(Decimal.schema(scale),
                        Base64.getDecoder().decode(c.get("bytes").asText())).toPlainString());
                return r;
            }
            case "date_from_logical":
            case "time_from_logical":
            case "timestamp_from_logical": {
                java.util.Date instant = new java.util.Date(c.get("value").asLong());
                r.put("result", op.startsWith("date") ? Date.fromLogical(Date.SCHEMA, instant)
                        : op.startsWith("timestamp") ? Timestamp.fromLogical(Timestamp.SCHEMA, instant)
                        : Time.fromLogical(Time.SCHEMA, instant));
                return r;
            }
            case "date_to_logical":
            case "time_to_logical":
            case "timestamp_to_logical": {
                long v = c.get("value").asLong();
                java.util.Date instant = op.startsWith("date") ? Date.toLogical(Date.SCHEMA, (int) v)
                        : op.startsWith("timestamp") ? Timestamp.toLogical(Timestamp.SCHEMA, v)
                        : Time.toLogical(Time.SCHEMA, (int) v);
                r.put("result", instant.getTime());
                return r;
            }
            case "json_from_connect": {
                Schema schema = c.hasNonNull("schema") ? schema(c.get("schema")) : null;
                byte[] bytes = converter(c).fromConnectData(c.path("topic").asText("t"), schema,
                        value(c.get("value"), schema));
                r.put("result", bytes == null ? null : Base64.getEncoder().encodeToString(bytes));
                return r;
            }
            case "json_to_connect": {
                byte[] bytes = c.hasNonNull("bytes") ? Base64.getDecoder().decode(c.get("bytes").asText()) : null;
                SchemaAndValue sv = converter(c).toConnectData(c.path("topic").asText("t"), bytes);
                r.set("schema", sv.schema() == null ? NODES.nullNode() : describe(sv.schema()));
                r.set("value", encode(sv.value(), sv.schema()));
                return r;
            }
            case "values_parse":
                return valuesParse(c);
            case "values_to_string":
                return valuesToString(c);
            case "values_convert":
                return valuesConvert(c);
            case "header_from_connect":
                return headerFromConnect(c);
            case "header_to_connect":
                return headerToConnect(c);
            case "converter_from_connect":
                return converterFromConnect(c);
            case "converter_to_connect": {
                byte[] bytes = c.hasNonNull("bytes") ? Base64.getDecoder().decode(c.get("bytes").asText()) : null;
                return readResult(keptConverter(c).toConnectData(c.path("topic").asText("t"), bytes));
            }
            case "transform":
                r.set("records", transform(c));
                return r;
            case "predicate":
                r.set("results", predicate(c));
                return r;
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    /** Values.parseString {text} -> {"schema": S, "value": V, "string": convertToString of the result}. */
    static ObjectNode valuesParse(JsonNode c) {
        SchemaAndValue sv = Values.parseString(c.get("text").isNull() ? null : c.get("text").asText());
        if (sv == null) sv = new SchemaAndValue(null, null);  // parseString("null") is null
        ObjectNode r = readResult(sv);
        r.put("string", Values.convertToString(sv.schema(), sv.value()));
        return r;
    }

    /** Values.convertToString {schema?, value} -> {"result": string or null}. */
    static ObjectNode valuesToString(JsonNode c) {
        Schema schema = c.hasNonNull("schema") ? schema(c.get("schema")) : null;
        ObjectNode r = NODES.objectNode();
        r.put("result", Values.convertToString(schema, value(c.get("value"), schema)));
        return r;
    }

    /** Values.convertTo{to} {to, schema?, value, scale?} -> {"result": V}, V tagged by the result's class. */
    static ObjectNode valuesConvert(JsonNode c) {
        Schema schema = c.hasNonNull("schema") ? schema(c.get("schema")) : null;
        Object value = value(c.get("value"), schema);
        String to = c.get("to").asText();
        Object result;
        Schema resultSchema = null;
        switch (to) {
            case "boolean": result = Values.convertToBoolean(schema, value); break;
            case "byte": result = Values.convertToByte(schema, value); break;
            case "short": result = Values.convertToShort(schema, value); break;
            case "integer": result = Values.convertToInteger(schema, value); break;
            case "long": result = Values.convertToLong(schema, value); break;
            case "float": result = Values.convertToFloat(schema, value); break;
            case "double": result = Values.convertToDouble(schema, value); break;
            case "string": result = Values.convertToString(schema, value); break;
            case "list": result = Values.convertToList(schema, value); break;
            case "map": result = Values.convertToMap(schema, value); break;
            case "date": result = Values.convertToDate(schema, value); resultSchema = Date.SCHEMA; break;
            case "time": result = Values.convertToTime(schema, value); resultSchema = Time.SCHEMA; break;
            case "timestamp": result = Values.convertToTimestamp(schema, value); resultSchema = Timestamp.SCHEMA; break;
            case "decimal": result = Values.convertToDecimal(schema, value, c.get("scale").asInt()); break;
            default: throw new IllegalArgumentException("unknown conversion " + to);
        }
        ObjectNode r = NODES.objectNode();
        r.set("result", encode(result, resultSchema));
        return r;
    }

    /** SimpleHeaderConverter.fromConnectHeader {topic, key, schema?, value} -> {"result": base64 or null}. */
    static ObjectNode headerFromConnect(JsonNode c) throws Exception {
        Schema schema = c.hasNonNull("schema") ? schema(c.get("schema")) : null;
        try (SimpleHeaderConverter converter = new SimpleHeaderConverter()) {
            byte[] bytes = converter.fromConnectHeader(c.path("topic").asText("t"), c.path("key").asText("h"),
                    schema, value(c.get("value"), schema));
            ObjectNode r = NODES.objectNode();
            r.put("result", bytes == null ? null : Base64.getEncoder().encodeToString(bytes));
            return r;
        }
    }

    /** SimpleHeaderConverter.toConnectHeader {topic, key, bytes: base64 or null} -> {"schema": S, "value": V}. */
    static ObjectNode headerToConnect(JsonNode c) throws Exception {
        byte[] bytes = c.hasNonNull("bytes") ? Base64.getDecoder().decode(c.get("bytes").asText()) : null;
        try (SimpleHeaderConverter converter = new SimpleHeaderConverter()) {
            SchemaAndValue sv = converter.toConnectHeader(c.path("topic").asText("t"), c.path("key").asText("h"),
                    bytes);
            return readResult(sv == null ? new SchemaAndValue(null, null) : sv);
        }
    }

    private static final Map<String, Converter> CONVERTERS = new HashMap<>();

    /** The converter a case names (class, key or value, config), made and configured on first use. */
    private static Converter keptConverter(JsonNode c) throws Exception {
        String key = c.get("class").asText() + "|" + c.path("is_key").asBoolean(false) + "|" + c.path("config");
        Converter converter = CONVERTERS.get(key);
        if (converter == null) {
            converter = (Converter) Class.forName(c.get("class").asText()).getDeclaredConstructor().newInstance();
            converter.configure(stringConfig(c), c.path("is_key").asBoolean(false));
            CONVERTERS.put(key, converter);
        }
        return converter;
    }

    private static ObjectNode converterFromConnect(JsonNode c) throws Exception {
        ObjectNode r = NODES.objectNode();
        Schema schema = c.hasNonNull("schema") ? schema(c.get("schema")) : null;
        Converter converter = keptConverter(c);
        String topic = c.path("topic").asText("t");
        byte[] bytes = converter.fromConnectData(topic, schema, value(c.get("value"), schema));
        r.put("result", bytes == null ? null : Base64.getEncoder().encodeToString(bytes));
        if (c.path("read_back").asBoolean(false)) {
            try {
                r.set("read", readResult(converter.toConnectData(topic, bytes)));
            } catch (Throwable e) {
                r.put("read_error", e.getClass().getSimpleName());
                r.put("read_message", e.getMessage());
            }
        }
        return r;
    }

    private static ObjectNode readResult(SchemaAndValue sv) {
        ObjectNode r = NODES.objectNode();
        r.set("schema", sv.schema() == null ? NODES.nullNode() : describe(sv.schema()));
        r.set("value", encode(sv.value(), sv.schema()));
        return r;
    }

    private static Map<String, String> stringConfig(JsonNode c) {
        Map<String, String> config = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = c.path("config").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            config.put(e.getKey(), e.getValue().asText());
        }
        return config;
    }

    private static ObjectNode error(Throwable e) {
        ObjectNode d = NODES.objectNode();
        d.put("error", e.getClass().getSimpleName());
        d.put("message", e.getMessage());
        return d;
    }

    @SuppressWarnings("unchecked")
    private static ArrayNode transform(JsonNode c) throws Exception {
        Transformation<SourceRecord> t = (Transformation<SourceRecord>) Class.forName(c.get("class").asText())
                .getDeclaredConstructor().newInstance();
        t.configure(stringConfig(c));
        ArrayNode out = NODES.arrayNode();
        try {
            for (JsonNode rd : c.get("records")) {
                try {
                    SourceRecord result = t.apply(record(rd));
                    out.add(result == null ? NODES.nullNode() : describe(result));
                } catch (Exception e) {
                    out.add(error(e));
                }
            }
        } finally {
            t.close();
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static ArrayNode predicate(JsonNode c) throws Exception {
        Predicate<SourceRecord> p = (Predicate<SourceRecord>) Class.forName(c.get("class").asText())
                .getDeclaredConstructor().newInstance();
        p.configure(stringConfig(c));
        ArrayNode out = NODES.arrayNode();
        for (JsonNode rd : c.get("records")) {
            try {
                out.add(p.test(record(rd)));
            } catch (Exception e) {
                out.add(error(e));
            }
        }
        return out;
    }

    static SourceRecord record(JsonNode d) {
        Schema keySchema = d.hasNonNull("key_schema") ? schema(d.get("key_schema")) : null;
        Schema valueSchema = d.hasNonNull("value_schema") ? schema(d.get("value_schema")) : null;
        ConnectHeaders headers = new ConnectHeaders();
        for (JsonNode h : d.path("headers")) {
            Schema hs = h.hasNonNull("schema") ? schema(h.get("schema")) : null;
            headers.add(h.get("key").asText(), value(h.get("value"), hs), hs);
        }
        Integer partition = d.hasNonNull("partition") ? d.get("partition").asInt() : null;
        Long timestamp = d.hasNonNull("timestamp") ? d.get("timestamp").asLong() : null;
        return new SourceRecord(null, null, d.path("topic").asText("t"), partition, keySchema,
                value(d.get("key"), keySchema), valueSchema, value(d.get("value"), valueSchema), timestamp, headers);
    }

    static ObjectNode describe(SourceRecord r) {
        ObjectNode d = NODES.objectNode();
        d.put("topic", r.topic());
        if (r.kafkaPartition() == null) d.putNull("partition"); else d.put("partition", r.kafkaPartition());
        d.set("key_schema", r.keySchema() == null ? NODES.nullNode() : describe(r.keySchema()));
        d.set("key", encode(r.key(), r.keySchema()));
        d.set("value_schema", r.valueSchema() == null ? NODES.nullNode() : describe(r.valueSchema()));
        d.set("value", encode(r.value(), r.valueSchema()));
        if (r.timestamp() == null) d.putNull("timestamp"); else d.put("timestamp", r.timestamp());
        ArrayNode headers = d.putArray("headers");
        for (Header h : r.headers()) {
            ObjectNode hd = headers.addObject();
            hd.put("key", h.key());
            hd.set("schema", h.schema() == null ? NODES.nullNode() : describe(h.schema()));
            hd.set("value", encode(h.value(), h.schema()));
        }
        return d;
    }

    private static JsonConverter converter(JsonNode c) {
        Map<String, Object> config = new HashMap<>();
        config.put("converter.type", "value");
        Iterator<Map.Entry<String, JsonNode>> it = c.path("config").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            config.put(e.getKey(), e.getValue().asText());
        }
        JsonConverter converter = new JsonConverter();
        converter.configure(config);
        return converter;
    }

    static Schema schema(JsonNode d) {
        SchemaBuilder b = SchemaBuilder.type(Schema.Type.valueOf(d.get("type").asText()));
        if (d.has("key") || d.has("value")) {
            // Map and array builders take their inner schemas at creation.
            if (b.type() == Schema.Type.MAP)
                b = SchemaBuilder.map(schema(d.get("key")), schema(d.get("value")));
            else
                b = SchemaBuilder.array(schema(d.get("value")));
        }
        if (d.path("optional").asBoolean(false)) b.optional();
        if (d.hasNonNull("name")) b.name(d.get("name").asText());
        if (d.hasNonNull("version")) b.version(d.get("version").asInt());
        if (d.hasNonNull("doc")) b.doc(d.get("doc").asText());
        if (d.hasNonNull("parameters")) {
            Iterator<Map.Entry<String, JsonNode>> it = d.get("parameters").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                b.parameter(e.getKey(), e.getValue().asText());
            }
        }
        if (d.has("fields"))
            for (JsonNode f : d.get("fields")) b.field(f.get("name").asText(), schema(f.get("schema")));
        if (d.hasNonNull("default")) b.defaultValue(value(d.get("default"), b));
        return b.build();
    }

    static Object value(JsonNode v, Schema context) {
        if (v == null || v.isNull()) return null;
        String tag = v.fieldNames().next();
        if (tag.equals("schema")) {
            Iterator<String> names = v.fieldNames();
            names.next();
            tag = names.next();
        }
        JsonNode x = v.get(tag);
        switch (tag) {
            case "int8": return (byte) x.asInt();
            case "int16": return (short) x.asInt();
            case "int32": return x.asInt();
            case "int64": return x.asLong();
            case "float32": return x.isTextual() ? Float.parseFloat(x.asText()) : (float) x.asDouble();
            case "float64": return x.isTextual() ? Double.parseDouble(x.asText()) : x.asDouble();
            case "boolean": return x.asBoolean();
            case "string": return x.asText();
            case "bytes": return Base64.getDecoder().decode(x.asText());
            case "decimal": return new BigDecimal(x.asText());
            case "date": return new java.util.Date(x.asLong() * DAY_MS);
            case "time":
            case "timestamp": return new java.util.Date(x.asLong());
            case "array": {
                Schema inner = context != null && context.type() == Schema.Type.ARRAY ? context.valueSchema() : null;
                List<Object> list = new ArrayList<>();
                for (JsonNode e : x) list.add(value(e, inner));
                return list;
            }
            case "map": {
                boolean isMap = context != null && context.type() == Schema.Type.MAP;
                Map<Object, Object> map = new LinkedHashMap<>();
                for (JsonNode pair : x)
                    map.put(value(pair.get(0), isMap ? context.keySchema() : null),
                            value(pair.get(1), isMap ? context.valueSchema() : null));
                return map;
            }
            case "struct": {
                Schema s = v.has("schema") ? schema(v.get("schema")) : context;
                Struct struct = new Struct(s);
                Iterator<Map.Entry<String, JsonNode>> it = x.fields();
                while (it.hasNext()) {
                    Map.Entry<String, JsonNode> e = it.next();
                    Field f = s.field(e.getKey());
                    struct.put(e.getKey(), value(e.getValue(), f == null ? null : f.schema()));
                }
                return struct;
            }
            default:
                throw new IllegalArgumentException("unknown value tag " + tag);
        }
    }

    static ObjectNode describe(Schema s) {
        ObjectNode d = NODES.objectNode();
        d.put("type", s.type().name());
        d.put("optional", s.isOptional());
        if (s.name() != null) d.put("name", s.name());
        if (s.version() != null) d.put("version", s.version());
        if (s.doc() != null) d.put("doc", s.doc());
        if (s.parameters() != null) {
            ObjectNode p = d.putObject("parameters");
            for (Map.Entry<String, String> e : s.parameters().entrySet()) p.put(e.getKey(), e.getValue());
        }
        if (s.type() == Schema.Type.STRUCT) {
            ArrayNode fields = d.putArray("fields");
            for (Field f : s.fields()) {
                ObjectNode fd = fields.addObject();
                fd.put("name", f.name());
                fd.set("schema", describe(f.schema()));
            }
        }
        // Values.parseString builds arrays and maps without element schemas when their elements have none in common.
        if (s.type() == Schema.Type.MAP)
            d.set("key", s.keySchema() == null ? NODES.nullNode() : describe(s.keySchema()));
        if (s.type() == Schema.Type.MAP || s.type() == Schema.Type.ARRAY)
            d.set("value", s.valueSchema() == null ? NODES.nullNode() : describe(s.valueSchema()));
        if (s.defaultValue() != null) d.set("default", encode(s.defaultValue(), s));
        return d;
    }

    static JsonNode encode(Object v, Schema s) {
        if (v == null) return NODES.nullNode();
        ObjectNode e = NODES.objectNode();
        if (v instanceof Byte) e.put("int8", (Byte) v);
        else if (v instanceof Short) e.put("int16", (Short) v);
        else if (v instanceof Integer) e.put("int32", (Integer) v);
        else if (v instanceof Long) e.put("int64", (Long) v);
        else if (v instanceof Float) e.put("float32", (Float) v);
        else if (v instanceof Double) e.put("float64", (Double) v);
        else if (v instanceof Boolean) e.put("boolean", (Boolean) v);
        else if (v instanceof String) e.put("string", (String) v);
        else if (v instanceof byte[]) e.put("bytes", Base64.getEncoder().encodeToString((byte[]) v));
        else if (v instanceof ByteBuffer) {
            ByteBuffer buffer = ((ByteBuffer) v).duplicate();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            e.put("bytes", Base64.getEncoder().encodeToString(bytes));
        } else if (v instanceof BigDecimal) e.put("decimal", ((BigDecimal) v).toPlainString());
        else if (v instanceof java.util.Date) {
            long ms = ((java.util.Date) v).getTime();
            String name = s == null ? null : s.name();
            if (Date.LOGICAL_NAME.equals(name)) e.put("date", Math.floorDiv(ms, DAY_MS));
            else if (Time.LOGICAL_NAME.equals(name)) e.put("time", ms);
            else e.put("timestamp", ms);
        } else if (v instanceof List) {
            ArrayNode a = e.putArray("array");
            for (Object x : (List<?>) v) a.add(encode(x, s == null ? null : s.valueSchema()));
        } else if (v instanceof Map) {
            ArrayNode a = e.putArray("map");
            for (Map.Entry<?, ?> x : ((Map<?, ?>) v).entrySet()) {
                ArrayNode pair = a.addArray();
                pair.add(encode(x.getKey(), s == null ? null : s.keySchema()));
                pair.add(encode(x.getValue(), s == null ? null : s.valueSchema()));
            }
        } else if (v instanceof Struct) {
            Struct struct = (Struct) v;
            ObjectNode fields = e.putObject("struct");
            for (Field f : struct.schema().fields())
                fields.set(f.name(), encode(struct.getWithoutDefault(f.name()), f.schema()));
        } else throw new IllegalArgumentException("cannot encode " + v.getClass());
        return e;
    }
}
