"""FileStreamSource: tails a text file (or standard input) into a topic, one record per line, as
Apache Kafka's ``FileStreamSourceConnector``. Source partition ``{"filename": <file>}``, offset
``{"position": <byte position after the line>}``: the same offsets as the Java connector, so they
move between a Java cluster and this runtime."""

from connectors.file.source import FileStreamSourceConnector, FileStreamSourceTask

__all__ = ["FileStreamSourceConnector", "FileStreamSourceTask"]
