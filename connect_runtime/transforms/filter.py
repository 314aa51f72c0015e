"""``Filter``: drops every record it is applied to (Kafka's ``org.apache.kafka.connect.transforms.Filter``)."""

from __future__ import annotations

from connect_runtime.api.record import SourceRecord
from connect_runtime.transforms._util import BuiltinTransformation


class Filter(BuiltinTransformation):
    """Drops all records, filtering them from subsequent transformations in the chain. This is
    intended to be used conditionally to filter out records matching (or not matching) a particular
    predicate (``transforms.<alias>.predicate``). A dropped record's source offset is not committed."""

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return None
