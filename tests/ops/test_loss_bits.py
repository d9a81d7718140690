"""cross_entropy, nll_loss and log_softmax give PyTorch's float32 bits, over random cases.

Each of 90 cases draws a shape (1-d, 2-d, or N-d with the classes on dim 1), a reduction, maybe a
class weight and ignored targets; the loss values and log_softmax's output are compared bit for
bit, and the gradients too, but for the rare last-bit differences of the emulated SLEEF exp that
log_softmax's backward evaluates (about one element in 50 000; ``g - exp(y) * sum`` may cancel,
so they are bounded against the row's scale, not in ulps).
Before nll_loss summed as PyTorch's cascade and log_softmax took SLEEF's log, about half of the
cases differed.
"""

import numpy as np
import pytest

import taimatsu as tm

CASES = 90


def _case(rng):
    nd = int(rng.choice([1, 2, 2, 2, 3, 4, 5]))
    c = int(rng.integers(1, 31))
    if nd == 1:
        shape = (c,)
    elif nd == 2:
        shape = (int(rng.integers(1, 100)), c)
    else:
        shape = (int(rng.integers(1, 6)), c) + tuple(int(rng.integers(1, 7)) for _ in range(nd - 2))
    x = (rng.standard_normal(shape) * rng.choice([0.5, 2.0, 8.0])).astype(np.float32)
    t = rng.integers(0, c, (shape[0],) + shape[2:] if nd > 1 else ())
    kw = {"reduction": ("mean", "sum", "none")[rng.integers(0, 3)]}
    if rng.random() < 0.3:
        kw["weight"] = rng.uniform(0.1, 3.0, c).astype(np.float32)
    if rng.random() < 0.3 and t.size:
        kw["ignore_index"] = int(rng.choice([-100, 0, c - 1]))
        t[rng.random(t.shape) < 0.2] = kw["ignore_index"]
    return x, t, kw


def _run(lib, fn, x, t, kw, g, dim=None):
    xt = lib.tensor(x, requires_grad=True)
    if dim is not None:
        out = fn(xt, dim)
    else:
        kw = {k: lib.tensor(v) if k == "weight" else v for k, v in kw.items()}
        out = fn(xt, lib.tensor(t), **kw)
    out.backward(lib.tensor(g.reshape(tuple(out.shape))))
    return out.detach().numpy(), xt.grad.numpy()


def _bits(a):
    return np.ascontiguousarray(a, np.float32).view(np.int32).astype(np.int64)


def test_loss_and_log_softmax_bits_match_oracle(torch_oracle):
    torch = torch_oracle
    rng = np.random.default_rng(2026)
    value_diffs, grad_diffs, grad_elems, worst = [], 0, 0, 0.0
    for i in range(CASES):
        x, t, kw = _case(rng)
        dim = 0 if x.ndim == 1 else 1
        with torch.no_grad():
            logp = torch.log_softmax(torch.from_numpy(x), dim).numpy()
            n_out = torch.nn.functional.nll_loss(
                torch.from_numpy(logp),
                torch.from_numpy(t),
                **{k: torch.from_numpy(v) if k == "weight" else v for k, v in kw.items()},
            ).numel()
        g_loss = rng.standard_normal(n_out).astype(np.float32)
        g_x = rng.standard_normal(x.shape).astype(np.float32)
        runs = [
            ("cross_entropy", x, g_loss, None),
            ("nll_loss", logp, g_loss, None),
            ("log_softmax", x, g_x, dim),
        ]
        for name, inp, g, d in runs:
            want = _run(torch, getattr(torch.nn.functional, name), inp, t, kw, g, d)
            got = _run(tm, getattr(tm.nn.functional, name), inp, t, kw, g, d)
            if not np.array_equal(_bits(want[0]), _bits(got[0])):
                value_diffs.append((i, name, x.shape, kw))
            ulps = np.abs(_bits(want[1]) - _bits(got[1]))
            if name == "nll_loss" and ulps.any():  # no exp involved: exact
                value_diffs.append((i, name + " grad", x.shape, kw))
            grad_diffs += int(np.count_nonzero(ulps))
            grad_elems += ulps.size
            scale = float(np.abs(want[1]).max(initial=0)) or 1.0
            worst = max(worst, float(np.abs(want[1] - got[1]).max(initial=0)) / scale)
    assert not value_diffs, value_diffs[:5]
    assert worst < 2e-6 and grad_diffs <= grad_elems * 1e-4, (grad_diffs, grad_elems, worst)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_cascade_sum_matches_oracle_past_one_level(torch_oracle, reduction):
    """4100 samples: partial sums three levels deep (16, 256, 4096), with and without ignored
    targets and weights (the ignored ones shift where the partial sums move up)."""
    torch = torch_oracle
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4100, 3)).astype(np.float32) * 30
    t = rng.integers(0, 3, 4100)
    w = np.float32([0.3, 1.7, 2.9])
    t_ign = t.copy()
    t_ign[rng.random(4100) < 0.1] = -100
    for tt, ww in ((t, None), (t_ign, None), (t_ign, w)):
        want = torch.nn.functional.nll_loss(
            torch.from_numpy(x), torch.from_numpy(tt),
            None if ww is None else torch.from_numpy(ww), reduction=reduction,
        )  # fmt: skip
        got = tm.nn.functional.nll_loss(
            tm.tensor(x), tm.tensor(tt), None if ww is None else tm.tensor(ww), reduction=reduction
        )
        assert _bits(want.numpy()) == _bits(got.numpy())


def _fast_and_general(x, t, reduction, g):
    """cross_entropy (its fast path where it applies) and log_softmax + nll_loss by their own
    ops (the general path): values, input gradients, and the graph's node names."""
    runs = []
    for fused in (True, False):
        xt = tm.tensor(x, requires_grad=True)
        if fused:
            out = tm.nn.functional.cross_entropy(xt, tm.tensor(t), reduction=reduction)
        else:
            logp = tm.nn.functional.log_softmax(xt, 1)
            out = tm.nn.functional.nll_loss(logp, tm.tensor(t), reduction=reduction)
        names = (type(out.grad_fn).__name__, type(out.grad_fn.next_functions[0][0]).__name__)
        out.backward(tm.tensor(g))
        runs.append((out.detach().numpy(), xt.grad.numpy(), names))
    return runs


def test_cross_entropy_fast_path_matches_general_path_and_oracle(torch_oracle):
    """cross_entropy's fast path (2-d float32, int64 targets all kept, 'mean'/'sum') gives the
    bits, gradients and nodes of log_softmax + nll_loss, and PyTorch's loss, over 30 shapes
    (classes on both sides of the transposed kernel's bound and of the SIMD widths)."""
    torch = torch_oracle
    rng = np.random.default_rng(11)
    for _ in range(30):
        n, c = int(rng.integers(1, 100)), int(rng.choice([1, 2, 7, 10, 16, 17, 65, 128, 129, 300]))
        x = (rng.standard_normal((n, c)) * rng.choice([0.5, 3.0, 20.0])).astype(np.float32)
        t = rng.integers(0, c, n)
        reduction = ("mean", "sum")[int(rng.integers(0, 2))]
        g = np.float32(rng.standard_normal())
        (fv, fg, fnames), (gv, gg, gnames) = _fast_and_general(x, t, reduction, g)
        assert _bits(fv) == _bits(gv) and fnames == gnames == (
            "NllLossBackward0",
            "LogSoftmaxBackward0",
        )
        np.testing.assert_array_equal(_bits(fg), _bits(gg))
        want = torch.nn.functional.cross_entropy(
            torch.from_numpy(x), torch.from_numpy(t), reduction=reduction
        )
        assert _bits(want.numpy()) == _bits(fv), (n, c, reduction)


@pytest.mark.parametrize(
    "case",
    ["ignored", "all_ignored", "probabilities", "weight", "none", "one_d", "spatial", "float64",
     "smoothing", "transposed", "int32_target", "out_of_range", "negative", "batch_mismatch",
     "target_2d"],
)  # fmt: skip
def test_cross_entropy_cases_around_the_fast_path_match_oracle(torch_oracle, case):
    """The cases the fast path leaves to the general one (and a non-contiguous input it takes):
    PyTorch's values and gradients, or its exception type and message."""
    torch = torch_oracle
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    t = rng.integers(0, 5, 6)
    kw = {}
    if case == "ignored":
        t[[1, 4]] = -100
    elif case == "all_ignored":
        t[:] = 2
        kw["ignore_index"] = 2
    elif case == "probabilities":
        t = rng.dirichlet(np.ones(5), 6).astype(np.float32)
    elif case == "weight":
        kw["weight"] = np.float32([0.5, 1, 2, 3, 0.25])
    elif case == "none":
        kw["reduction"] = "none"
    elif case == "one_d":
        x, t = x[0], t[0]
    elif case == "spatial":
        x, t = rng.standard_normal((3, 5, 4)).astype(np.float32), rng.integers(0, 5, (3, 4))
    elif case == "float64":
        x = x.astype(np.float64)
    elif case == "smoothing":
        kw["label_smoothing"] = 0.2
    elif case == "transposed":
        x = np.asfortranarray(x)
    elif case == "int32_target":
        t = t.astype(np.int32)
    elif case in ("out_of_range", "negative"):
        t[2] = 5 if case == "out_of_range" else -1
    elif case == "batch_mismatch":
        t = t[:4]
    elif case == "target_2d":
        t = t.reshape(2, 3)
    results = []
    for lib in (torch, tm):
        xt = lib.tensor(x, requires_grad=True)
        args = {k: lib.tensor(v) if k == "weight" else v for k, v in kw.items()}
        try:
            out = lib.nn.functional.cross_entropy(xt, lib.tensor(t), **args)
            out.sum().backward()
            results.append((out.detach().numpy(), xt.grad.numpy()))
        except Exception as e:  # noqa: BLE001 (the oracle's exception is the expected result)
            results.append((type(e).__name__, str(e)))
    (want, want_g), (got, got_g) = results
    if isinstance(want, str):
        assert (want, want_g) == (got, got_g)
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got_g, want_g, rtol=1e-5, atol=1e-7)
    assert np.isnan(got).all() == np.isnan(want).all()
