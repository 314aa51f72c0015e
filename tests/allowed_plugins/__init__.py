"""Plugins a worker finds by dotted path because the worker setting ``plugin.allowed.packages`` lists
this package (the directory holding it is on the worker's ``PYTHONPATH``; it is no ``plugin.path``
directory)."""
