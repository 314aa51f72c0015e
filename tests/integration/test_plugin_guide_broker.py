"""The plugin guide's example connector end to end, against the session's broker and real workers: the
example tests of docs/examples/tests, collected here (docs/plugins.md shows them)."""

from __future__ import annotations

from plugin_guide_examples import example_tests

_examples = example_tests()
test_copies_the_file_in_transactions = _examples.test_copies_the_file_in_transactions
test_exactly_once_through_a_worker_crash = _examples.test_exactly_once_through_a_worker_crash
