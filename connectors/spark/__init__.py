"""SparkSource: hand ingestion to PySpark and deliver every row into Kafka exactly once.

Each task launches a PySpark application (``spark.master``: ``local[*]`` by default, or a Spark
cluster) that reads ``source.path`` with ``source.format``, applies ``transform.sql``, and writes the
rows from the Spark executors in Kafka transactions together with the files' source offsets. See
docs/spark.md.
"""

from connectors.spark.connector import SparkSourceConnector, SparkSourceTask

__all__ = ["SparkSourceConnector", "SparkSourceTask"]
