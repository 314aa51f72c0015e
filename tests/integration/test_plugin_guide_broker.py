"""The plugin guide's example connector end to end, against the session's broker and real workers: the
example tests of docs/examples/tests, collected here (docs/plugins.md shows them)."""

from __future__ import annotations

from plugin_guide_examples import example_test_functions

globals().update(example_test_functions(kafka=True))
