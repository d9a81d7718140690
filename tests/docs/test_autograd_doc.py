"""docs/autograd.md: every snippet prints exactly the output shown under it, with taimatsu and
(unless marked ``# taimatsu only``) with PyTorch."""

import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "autograd.md"
BLOCK = re.compile(r"```python\n(.*?)```\n\n```text\n(.*?)```", re.DOTALL)


def snippets(text: str) -> list[tuple[str, str]]:
    """(code, expected output) pairs: each python block and the text block right after it."""
    return BLOCK.findall(text)


def run_snippet(code: str, framework: str) -> str:
    """Run ``code`` with ``import torch`` meaning ``framework``; return what it printed."""
    if framework == "taimatsu":
        code = code.replace("import torch\n", "import taimatsu as torch\n")
        code = code.replace("from torch.", "from taimatsu.")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "__doc__", "__file__": str(DOC)})  # noqa: S102
    return out.getvalue()


CASES = snippets(DOC.read_text()) if DOC.exists() else []


def test_doc_has_snippets():
    assert len(CASES) >= 15
    python_blocks = DOC.read_text().count("```python\n")
    assert python_blocks == len(CASES), "every python block needs its ```text output block"


@pytest.mark.parametrize("code,expected", CASES, ids=[f"snippet{i}" for i in range(len(CASES))])
def test_snippet_output(torch_oracle, code, expected):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run_snippet(code, "taimatsu") == expected
        if not code.startswith("# taimatsu only"):
            assert run_snippet(code, "torch") == expected
