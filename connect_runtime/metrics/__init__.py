"""Kafka Connect's metrics: Java's stats (:mod:`.stats`) and the table of its metric names (:mod:`.registry`).

Pure logic with no I/O and no imports from the rest of the runtime, so the worker, the cluster layer and
the REST layer can all use it.
"""
