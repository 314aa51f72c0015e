"""The README's main job (``connect-runtime demo``) runs end to end: its own local Kafka, a worker from
``worker.properties``, the exactly-once demo connector, and a clean read_committed check."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from connect_runtime.testing.local_kafka import LocalKafka, free_port

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.kafka
def test_demo_delivers_exactly_once(tmp_path: Path) -> None:
    config = tmp_path / "worker.properties"
    # The sample config as shipped, on ports of its own so it cannot clash with anything running.
    config.write_text((REPO / "worker.properties").read_text().replace(
        "listeners=http://127.0.0.1:8083", f"listeners=http://127.0.0.1:{free_port()}"))
    data_dir = tmp_path / "kafka"
    try:
        result = subprocess.run(
            [sys.executable, "-c", "import sys; from connect_runtime.cli import main; sys.exit(main())", "demo",
             "--config", str(config), "--data-dir", str(data_dir), "--port", str(free_port()),
             "--duration", "8", "--throughput", "200"],
            capture_output=True, text=True, timeout=300, cwd=tmp_path)
    finally:
        LocalKafka(data_dir).stop()
    assert result.returncode == 0, result.stdout + result.stderr
    progress = re.findall(r"(\d+) committed records; .* duplicates=(\d+) gaps=(\d+)", result.stdout)
    assert progress, result.stdout
    committed, duplicates, gaps = (int(x) for x in progress[-1])
    assert committed > 0 and duplicates == 0 and gaps == 0, result.stdout
    assert "curl http://127.0.0.1:" in result.stdout
