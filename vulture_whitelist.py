"""Names vulture cannot see used, because their users are outside the scanned code (``[tool.vulture]`` in
pyproject.toml; ``./dev test`` and tests/unit/test_dead_code.py run it). Vulture matches names, not
owners: one line keeps every attribute of that name. FastAPI routes and pydantic validators and
serializers are kept by ``ignore_decorators`` there instead."""

# ruff: noqa: B018
from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# Public plugin API (connect_runtime.api): plugins call these or read these, the runtime implements them.
_.request_task_reconfiguration  # ConnectorContext: a connector asks for new task configs
_.to_connect_header  # HeaderConverter: Java's toConnectHeader, for sink-side plugins
# Values: Java's public conversions, for plugins (the runtime itself parses and prints).
_.convert_to_list
_.convert_to_map
_.convert_to_struct
_.convert_to_date
_.convert_to_time
_.convert_to_timestamp
_.convert_to_decimal
_.to_connect_schema_and_value  # JsonConverter: Java's toConnectData, for consumers of schema'd records
_.client_type  # ConnectorClientConfigRequest: what an override policy reads
_.SOURCE  # ConnectorType: what REST extensions compare with (built from the plugin's type by value)
_.SINK  # ConnectorType, as SOURCE
_.trace_message  # ConnectorState / TaskState: read by REST extensions
_.connector_state  # ConnectorHealth: read by REST extensions
_.tasks_state  # ConnectorHealth: read by REST extensions
_.connector_health  # ConnectClusterState: called by REST extensions
_.cluster_details  # ConnectClusterState: called by REST extensions
_.add_route  # ConnectRestExtensionContext: called by REST extensions
_.metadata  # SourceTask.commit_record's parameter, for the plugin's override
# The data model (connect_runtime.api.data), Java's org.apache.kafka.connect.data, for converters and plugins:
_.Type, _.is_primitive  # Schema.Type (SchemaType) and its property
_.INT8_SCHEMA, _.INT16_SCHEMA, _.INT32_SCHEMA, _.INT64_SCHEMA, _.FLOAT32_SCHEMA, _.FLOAT64_SCHEMA  # Schema's
_.BOOLEAN_SCHEMA, _.STRING_SCHEMA, _.BYTES_SCHEMA  # predefined schemas, as Java's
_.OPTIONAL_INT8_SCHEMA, _.OPTIONAL_INT16_SCHEMA, _.OPTIONAL_INT32_SCHEMA, _.OPTIONAL_INT64_SCHEMA  # as above
_.OPTIONAL_FLOAT32_SCHEMA, _.OPTIONAL_FLOAT64_SCHEMA, _.OPTIONAL_BOOLEAN_SCHEMA  # as above
_.OPTIONAL_STRING_SCHEMA, _.OPTIONAL_BYTES_SCHEMA  # as above
_.of_type, _.int8, _.int16, _.int32, _.int64, _.float32, _.float64, _.string, _.array  # SchemaBuilder's factories
_.get_without_default  # Struct
_.NULL  # SchemaAndValue.NULL
_.LOGICAL_NAME, _.SCALE_FIELD, _.SCHEMA, _.from_logical, _.to_logical  # the logical types

# Public test toolkit (connect_runtime.testing): used by connector authors' tests and ours.
_.pytest_configure  # pytest hook of the plugin
_.pytest_sessionstart  # pytest hook of the plugin
_.pytest_unconfigure  # pytest hook of the plugin
_.pytest_sessionfinish  # pytest hook of the plugin
_.exitstatus  # pytest's Session.exitstatus, read by pytest after the session
_.pytest_runtest_makereport  # pytest hook of the plugin
_.kafka_sasl_bootstrap  # pytest fixture
_.kafka_cluster  # pytest fixture
_.network_faults, _.cut, _.blackhole, _.heal  # pytest fixture; NetworkFaults: tests and bench call these
_.connect_client  # pytest fixture
_.connect_cluster  # pytest fixture
_.registry_basic_auth  # pytest fixture
_.user_info  # BasicAuthProxy: a test's basic.auth.user.info
_.protocol_version, _.do_GET, _.do_POST, _.do_PUT, _.do_DELETE  # BasicAuthProxy's handler, read by http.server
_.start_ready  # WorkerProcess (docs/plugins.md)
_.wait_exit  # WorkerProcess (docs/plugins.md)
_.kill_mid_stream  # testing.cluster: the SIGKILL-mid-stream loop of the EOS tests
_.error_code  # ConnectRestError; also the REST error body's field (rest/models.py)
_.server_info  # ConnectClient: GET /
_.validation_errors  # ConnectClient (docs/plugins.md)
_.list_connectors  # ConnectClient: GET /connectors
_.create_connector  # ConnectClient (docs/plugins.md, scaffold templates)
_.reset_active_topics  # ConnectClient: PUT /connectors/{name}/topics/reset
_.reset_offsets  # ConnectClient (docs/plugins.md)
_.wait_running  # ConnectClient (docs/plugins.md, scaffold templates)
_.wait_task_state  # ConnectClient
_.ensure_connect_jars  # testing.java_connect: the java_connect fixture and bench/java_connect_throughput.py
_.ensure_basic_auth_jar  # testing.java_connect: tests/integration/test_rest_diff_basic_auth.py
_.wait_deleted  # ConnectClient
_.commits  # FakeTransactionContext: what a test asserts on
_.aborts  # FakeTransactionContext: what a test asserts on
_.FakeProducer  # fake of a task's producer for task loop tests
_.sent_to  # FakeProducer: what a test asserts on
_.FakeStatusListener  # fake for task loop tests
_.FakeOffsetStore  # fake for task loop tests
_.kill_executor  # LocalSparkCluster: fault tests
_.submit_env  # LocalSparkCluster: spark-submit of a test's own application
_.submit_command  # LocalSparkCluster: spark-submit of a test's own application
_.first_offset  # Transaction of read_transactions: what a test asserts on
_.last_offset  # Transaction of read_transactions: what a test asserts on

# Framework callbacks and settings.
_.handle_request  # httpx.BaseTransport
_.handle_async_request  # httpx.AsyncBaseTransport
_.model_config  # pydantic model settings
_.plugin_discovery  # WorkerConfig key that pydantic validates; nothing else reads its value
_.config_providers  # WorkerConfig key that pydantic validates; the providers are loaded from the originals
_.should_exit  # uvicorn.Server: set to end its loop
_.force_exit  # uvicorn.Server: set to skip its graceful wait
_.SET  # HeaderAction: looked up by value from the config
_.PREPARING  # ExactlyOnceSourceSupport: looked up by value from the config
_.V2  # FieldSyntaxVersion: looked up by value from the config

# Handlers of the worker ⇄ task process channel, called by name from task_protocol.MESSAGES.
_.status_changed
_.task_failed
_.topic_used
_.task_built
_.task_build_failed
_.task_closed
_.offsets_mirrored
_.metrics_reported
_.start_offsets
_.read_offsets_to_end
_.get_offsets
_.set_offsets
_.stop_task
_.change_target_state

# Console entry points ([project.scripts]).
_.distributed_main

# Metrics core (connect_runtime.metrics): the stats and the name table, used only by their unit tests until
# the worker records into them and /metrics reads them (the wiring step that comes next).
_.metric
_.group_metrics
_.Avg
_.Max
_.Min
_.Rate
_.CumulativeCount
_.Value
_.Outcomes
_.success_ratio
_.failure_ratio
_.DESTROYED  # TrackedState: Java's state set, reached when the wiring records deletions
_.StateTracker
_.change_state
_.duration_ratio
_.Sensor
_.CONNECTOR_GROUP  # the group names, for the recording code to name its group
_.TASK_GROUP
_.SOURCE_TASK_GROUP
_.WORKER_GROUP
_.WORKER_REBALANCE_GROUP
_.TASK_ERROR_GROUP
_.COORDINATOR_GROUP
# StatKind: members looked up by name from the java_metrics.tsv table
_.GAUGE
_.CUMULATIVE_SUM
_.AVG
_.MAX
_.MIN
_.RATE
_.FREQUENCY
_.RATIO
_.HISTOGRAM
_.RUNTIME_GROUP_PREFIX  # exporters name the runtime's own groups by it
_.buckets
_.gauge  # the metric-group API the worker, herder and task mirrors record through
_.state_ratios
_.CLIENT_METRICS  # exporters and the client-statistics code read it
# SubjectNameStrategy: members looked up by Java class name (STRATEGY_CLASS_NAMES)
_.TOPIC_RECORD
# antlr's error-listener hook (its argument names are antlr's), called by the .proto parser
_.syntaxError
offendingSymbol
# a protobuf descriptor field, set for protobuf to read when it compiles the file
_.oneof_index
