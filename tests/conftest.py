"""Shared test helpers.

`torch_oracle`: real PyTorch, the reference taimatsu is compared with. The library never
imports torch; tests that need it ask for this fixture and are skipped when torch is absent.
"""

import sys
from pathlib import Path

import pytest

# Test helper modules (opdb.py, opdb_*.py, nn_oracle.py, ...) import each other by plain name, from
# any folder of tests/ (the folders mirror the library's packages).
for _folder in sorted(
    p for p in Path(__file__).parent.iterdir() if p.is_dir() and p.name[0] not in "._"
):
    sys.path.insert(0, str(_folder))
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def torch_oracle():
    """The `torch` module, or skip the test when PyTorch is not installed."""
    return pytest.importorskip("torch")
