"""The public plugin API of connect-runtime: everything a connector author imports.

Subclass :class:`SourceConnector` and :class:`SourceTask`, return :class:`SourceRecord` objects with
source partitions and offsets, and the runtime delivers them to Kafka exactly once.
"""

from connect_runtime.api.config_def import (
    NO_DEFAULT,
    ConfigDef,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Importance,
    Range,
    ValidString,
    Width,
    non_empty_string,
)
from connect_runtime.api.config_provider import ConfigProvider
from connect_runtime.api.connector import Connector, ConnectorContext, SourceConnector, SourceConnectorContext
from connect_runtime.api.converter import Converter, HeaderConverter
from connect_runtime.api.data import (
    Date,
    Decimal,
    Field,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    SchemaBuilderException,
    SchemaType,
    Struct,
    Time,
    Timestamp,
    Values,
    validate_value,
)
from connect_runtime.api.delegated_delivery import DelegatedDelivery
from connect_runtime.api.errors import ConfigException, ConnectException, DataException, RetriableException
from connect_runtime.api.exactly_once import ConnectorTransactionBoundaries, ExactlyOnceSupport
from connect_runtime.api.override_policy import (
    ClientType,
    ConnectorClientConfigOverridePolicy,
    ConnectorClientConfigRequest,
)
from connect_runtime.api.record import Header, RecordMetadata, SourceRecord, header_schema
from connect_runtime.api.rest_extension import (
    ConnectClusterDetails,
    ConnectClusterState,
    ConnectorHealth,
    ConnectorState,
    ConnectorType,
    ConnectRestExtension,
    ConnectRestExtensionContext,
    TaskState,
)
from connect_runtime.api.runtime_info import runtime_version
from connect_runtime.api.storage import OffsetStorageReader, freeze_partition
from connect_runtime.api.task import SourceTask, SourceTaskContext
from connect_runtime.api.transaction import TransactionContext
from connect_runtime.api.transformation import Predicate, Transformation

__all__ = [
    "NO_DEFAULT",
    "ClientType",
    "ConfigDef",
    "ConfigException",
    "ConfigKey",
    "ConfigProvider",
    "ConfigType",
    "ConfigValue",
    "ConnectClusterDetails",
    "ConnectClusterState",
    "ConnectException",
    "ConnectRestExtension",
    "ConnectRestExtensionContext",
    "Connector",
    "ConnectorClientConfigOverridePolicy",
    "ConnectorClientConfigRequest",
    "ConnectorContext",
    "ConnectorHealth",
    "ConnectorState",
    "ConnectorTransactionBoundaries",
    "ConnectorType",
    "Converter",
    "DataException",
    "Date",
    "Decimal",
    "DelegatedDelivery",
    "ExactlyOnceSupport",
    "Field",
    "Header",
    "HeaderConverter",
    "Importance",
    "OffsetStorageReader",
    "Predicate",
    "Range",
    "RecordMetadata",
    "RetriableException",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SchemaBuilderException",
    "SchemaType",
    "SourceConnector",
    "SourceConnectorContext",
    "SourceRecord",
    "SourceTask",
    "SourceTaskContext",
    "Struct",
    "TaskState",
    "Time",
    "Timestamp",
    "TransactionContext",
    "Transformation",
    "ValidString",
    "Values",
    "Width",
    "freeze_partition",
    "header_schema",
    "non_empty_string",
    "runtime_version",
    "validate_value",
]
