"""Shared test helpers.

`torch_oracle`: real PyTorch, the reference taimatsu is compared with. The library never
imports torch; tests that need it ask for this fixture and are skipped when torch is absent.
"""

import sys
from pathlib import Path

import pytest

# Test helper modules (opdb.py, opdb_*.py) import each other by plain name.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def torch_oracle():
    """The `torch` module, or skip the test when PyTorch is not installed."""
    return pytest.importorskip("torch")
