"""The project's tests use the fixtures connect-runtime ships (connect_runtime.testing.pytest_plugin,
registered through the pytest11 entry point): kafka_bootstrap, worker_factory, connect_worker,
connect_client, connect_cluster and the rest. Nothing is defined here, so that what plugin authors
get is exactly what this project tests itself with."""
