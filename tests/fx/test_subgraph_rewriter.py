"""torch.fx.replace_pattern against PyTorch: the rewritten graph, its code, the matches
returned and the rewritten module's result."""

from __future__ import annotations

import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def rewrite(lib):
    class M(lib.nn.Module):
        def forward(self, x, w1, w2):
            m1 = lib.cat([w1, w2]).sum()
            m2 = lib.cat([w1, w2]).sum()
            a = lib.relu(x + w1) + lib.relu(x + 2)
            b = lib.relu(x * w1)  # x * w1 is used twice: not a self-contained match of x * y
            return x + lib.max(m1) + lib.max(m2) + a + b + x * w1

    def pattern(w1, w2):
        return lib.cat([w1, w2]).sum()

    def replacement(w1, w2):
        return lib.stack([w1, w2])

    def mul_relu(x, y):
        return lib.relu(x * y)

    def add_relu(x, y):
        return lib.relu(x + y)

    def sigmoid_mul(x, y):
        return lib.sigmoid(x * y)

    gm = lib.fx.symbolic_trace(M())
    out = []
    for p, r in ((pattern, replacement), (add_relu, sigmoid_mul), (mul_relu, sigmoid_mul)):
        matches = lib.fx.replace_pattern(gm, p, r)
        out.append(
            (
                gm.code,
                str(gm.graph),
                [
                    (m.anchor.name, sorted((k.name, str(v)) for k, v in m.nodes_map.items()))
                    for m in matches
                ],
            )
        )
    out.append(gm(lib.ones(2), lib.ones(2), lib.ones(2)).tolist())
    return out


def test_replace_pattern_matches_pytorch():
    ours, theirs = rewrite(taimatsu), rewrite(torch)
    assert ours == theirs
    assert "torch.stack" in ours[0][0]


def test_multi_output_pattern_is_refused():
    gm = taimatsu.fx.symbolic_trace(lambda x: x + 1)
    with pytest.raises(NotImplementedError, match="single value"):
        taimatsu.fx.replace_pattern(gm, lambda x: (x + 1, x - 1), lambda x: (x, x))
