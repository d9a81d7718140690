"""The top-level in-place functions (``torch.exp2_(t)``, ``torch.zero_(t)``, ...) against PyTorch:
each writes into its argument, returns it, and gives PyTorch's values."""

import numpy as np
import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

X = np.array([[0.25, -0.5, 1.5], [2.0, 0.75, -1.25]])
CASES = {
    "arccos_": lambda T, x: (x / 3,), "arccosh_": lambda T, x: (x.abs() + 1,), "arcsin_": lambda T, x: (x / 3,),
    "arcsinh_": lambda T, x: (x,), "arctan_": lambda T, x: (x,), "arctanh_": lambda T, x: (x / 3,),
    "clamp_max_": lambda T, x: (x, 0.5), "clamp_min_": lambda T, x: (x, 0.5), "conj_physical_": lambda T, x: (x,),
    "deg2rad_": lambda T, x: (x,), "exp2_": lambda T, x: (x,), "fill_": lambda T, x: (x, 2.5),
    "fix_": lambda T, x: (x,), "frac_": lambda T, x: (x,), "i0_": lambda T, x: (x,),
    "ldexp_": lambda T, x: (x, T.tensor([1.0, 2.0, 3.0], dtype=T.float64)), "log10_": lambda T, x: (x.abs(),),
    "log2_": lambda T, x: (x.abs(),), "logit_": lambda T, x: (x.abs() / 3, 1e-3), "nan_to_num_": lambda T, x: (x.log(),),
    "negative_": lambda T, x: (x,), "rad2deg_": lambda T, x: (x,), "round_": lambda T, x: (x,),
    "sinc_": lambda T, x: (x,), "square_": lambda T, x: (x,), "xlogy_": lambda T, x: (x, x.abs()),
    "zero_": lambda T, x: (x,), "detach_": lambda T, x: (x,),
    "gcd_": lambda T, x: ((x * 4).long(), T.tensor([6, 4, 3])), "lcm_": lambda T, x: ((x * 4).long(), T.tensor([6, 4, 3])),
    "addmv_": lambda T, x: (x[:, 0].clone(), x, x[0]),
    "index_put_": lambda T, x: (x, (T.tensor([0, 1]),), T.tensor(9.0, dtype=T.float64)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_function(name):
    outs = []
    for T in (taimatsu, torch):
        args = CASES[name](T, T.tensor(X))
        r = getattr(T, name)(*args)
        assert r is args[0]
        outs.append(r.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=0, equal_nan=True)
