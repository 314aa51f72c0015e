"""Kafka Connect's metrics, measured as Java measures them (:mod:`.stats`).

Pure logic with no I/O and no imports from the rest of the runtime, so the worker, the cluster layer and
the REST layer can all use it.
"""
