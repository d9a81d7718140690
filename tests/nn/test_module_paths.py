"""PyTorch's module paths: every class and public function that PyTorch defines in a public module of
its ``torch.nn`` and ``torch.optim`` trees is reachable under the same path in taimatsu
(``torch.nn.modules.activation.MultiheadAttention`` -> ``taimatsu.nn.modules.activation``), because
pickles and ``safe_globals`` name classes by these paths. What taimatsu deliberately lacks is listed in
``ABSENT`` with the reason; the test fails when a new gap appears and when a listed gap is closed."""

from __future__ import annotations

import importlib
import inspect
import io
import pkgutil

import pytest

import taimatsu

torch = pytest.importorskip("torch")

TREES = ("torch.nn", "torch.optim")

# Whole modules left out of the walk, and why.
NOT_WALKED = {
    "torch.nn.parallel": "DataParallel/DistributedDataParallel are the distributed issue's, not this test's",
    "torch.nn.functional": "checked name by name in tests/tensor/test_namespace_coverage.py",
}

_NO_FLEX = "a compiler feature (block masks compiled into kernels); taimatsu has no compiler"
_FUNCTIONAL_OPTIM = (
    "PyTorch's functional optimizer step (foreach/fused dispatch); taimatsu's maths lives in the "
    "Optimizer class's step"
)
_NO_BASE = "an intermediate base class of PyTorch's hierarchy that taimatsu's classes do not use"

# A module path (everything in it) or "module.Name" -> why taimatsu does not have it.
ABSENT = {
    "torch.nn.factory_kwargs": "PyTorch's internal helper for module constructors' device/dtype kwargs",
    "torch.nn.attention": "SDPA kernel selection (sdpa_kernel, SDPBackend): taimatsu has one SDPA implementation",
    "torch.nn.attention.bias": "CausalBias subclasses Tensor for SDPA kernel dispatch: not implemented",
    "torch.nn.attention.flex_attention": _NO_FLEX,
    "torch.nn.attention.varlen": "variable-length flash attention, a CUDA kernel: not implemented",
    "torch.nn.cpp": "wrappers around C++-frontend modules; taimatsu has no C++ frontend",
    "torch.nn.modules.conv._ConvTransposeMixin": "deprecated base PyTorch keeps for old subclasses",
    "torch.nn.modules.lazy._LazyProtocol": "a typing Protocol for PyTorch's type checker",
    "torch.nn.modules.linear_cross_entropy._ChunkViews": "PyTorch's chunking internals",
    "torch.nn.modules.linear_cross_entropy._ChunkContext": "PyTorch's chunking internals",
    "torch.nn.modules.linear_cross_entropy_options._AutoDefault": "PyTorch's sentinel type",
    "torch.nn.modules.module._WrappedHook": "PyTorch's weakref hook wrapper; taimatsu stores hooks directly",
    "torch.nn.modules.padding._CircularPadNd": _NO_BASE,
    "torch.nn.modules.padding._ReflectionPadNd": _NO_BASE,
    "torch.nn.modules.padding._ReplicationPadNd": _NO_BASE,
    "torch.nn.modules.pooling._AvgPoolNd": _NO_BASE,
    "torch.nn.modules.rnn.apply_permutation": "deprecated internal helper of PackedSequence",
    "torch.nn.parameter._ParameterMeta": "a metaclass making isinstance(t, Parameter) true for tensors flagged as params",
    "torch.nn.parameter._BufferMeta": "a metaclass for isinstance checks on Buffer",
    "torch.nn.utils.rnn.PackedSequence_": "the NamedTuple base PyTorch builds PackedSequence on",
    "torch.nn.utils.rnn.bind": "a private-use helper (a deprecated public name)",
    "torch.optim.Muon": "not implemented yet",
    "torch.optim.swap_in_optimizer_params_and_state": "not implemented yet",
    "torch.optim.lr_scheduler._enable_get_lr_call": "PyTorch's internal context manager",
    "torch.optim.lr_scheduler._initial_mode": "PyTorch's internal context manager",
    "torch.optim.lr_scheduler._SchedulePhase": "SequentialLR/OneCycleLR internals",
    **{
        f"torch.optim.{n}.{n}": _FUNCTIONAL_OPTIM
        for n in [
            "adadelta",
            "adagrad",
            "adam",
            "adamax",
            "adamw",
            "asgd",
            "nadam",
            "radam",
            "rmsprop",
            "rprop",
            "sgd",
        ]
    },
}


def _public_modules() -> list[str]:
    names = set(TREES)
    for root in TREES:
        package = importlib.import_module(root)
        for info in pkgutil.walk_packages(package.__path__, root + "."):
            parts = info.name.split(".")
            if any(p.startswith("_") for p in parts) or any(
                info.name == m or info.name.startswith(m + ".") for m in NOT_WALKED
            ):
                continue
            names.add(info.name)
    return sorted(names - set(NOT_WALKED))


def _defined_names(module_name: str) -> list[str]:
    """Classes (private ones too: pickles name ``_BatchNorm``) and public functions defined there."""
    module = importlib.import_module(module_name)
    return [
        k
        for k, v in vars(module).items()
        if getattr(v, "__module__", None) == module_name
        and (inspect.isclass(v) or (inspect.isfunction(v) and not k.startswith("_")))
    ]


def _taimatsu_at(module_name: str, name: str):
    try:
        module = importlib.import_module("taimatsu" + module_name[len("torch") :])
    except ImportError:
        return None
    return getattr(module, name, None)


def _absent_reason(module_name: str, name: str) -> str | None:
    return ABSENT.get(f"{module_name}.{name}", ABSENT.get(module_name))


@pytest.fixture(scope="module")
def torch_paths() -> list[tuple[str, str]]:
    return [(m, k) for m in _public_modules() for k in _defined_names(m)]


def test_every_torch_path_is_reachable_or_listed(torch_paths, capsys):
    missing = [
        f"{m}.{k}"
        for m, k in torch_paths
        if _taimatsu_at(m, k) is None and _absent_reason(m, k) is None
    ]
    reachable = sum(_taimatsu_at(m, k) is not None for m, k in torch_paths)
    with capsys.disabled():
        print(
            f"\ntorch.nn/torch.optim module paths: {reachable}/{len(torch_paths)} reachable in taimatsu"
        )
    assert not missing, "not reachable at PyTorch's path and not in ABSENT: " + ", ".join(missing)


def test_absent_list_is_current(torch_paths):
    walked = {f"{m}.{k}" for m, k in torch_paths} | {m for m, _ in torch_paths}
    stale = [key for key in ABSENT if key not in walked]
    closed = [
        f"{m}.{k}"
        for m, k in torch_paths
        if _taimatsu_at(m, k) is not None and f"{m}.{k}" in ABSENT
    ]
    assert not stale, "ABSENT names what PyTorch no longer defines: " + ", ".join(stale)
    assert not closed, "now reachable, remove from ABSENT: " + ", ".join(closed)


def test_paths_hold_the_same_objects(torch_paths):
    """No copies: where PyTorch's path and its public name are one object, so are taimatsu's."""
    publics = ("torch.nn", "torch.optim")
    split = []
    for m, k in torch_paths:
        ours, theirs = _taimatsu_at(m, k), getattr(importlib.import_module(m), k)
        for public in publics:
            same_in_torch = getattr(importlib.import_module(public), k, None) is theirs
            if ours is not None and same_in_torch and _taimatsu_at(public, k) is not ours:
                split.append(f"{m}.{k}")
    assert not split, "a different object at PyTorch's path than at the public name: " + ", ".join(
        split
    )


def _torch_model():
    torch.manual_seed(0)
    nn = torch.nn
    return nn.ModuleDict(
        {
            "attn": nn.MultiheadAttention(8, 2),
            "norm": nn.InstanceNorm1d(4, affine=True),
            "up": nn.Upsample(scale_factor=2),
            "fold": nn.Fold(output_size=(4, 4), kernel_size=2),
            "lrn": nn.LocalResponseNorm(2),
            "shuffle": nn.ChannelShuffle(2),
            "dist": nn.PairwiseDistance(),
            "params": nn.ParameterList([nn.Parameter(torch.randn(3))]),
        }
    )


def test_torch_pickled_model_loads_through_the_paths():
    model = _torch_model()
    buf = io.BytesIO()
    torch.save(model, buf)
    buf.seek(0)
    ours = taimatsu.load(buf, weights_only=False)
    assert type(ours["attn"]) is taimatsu.nn.MultiheadAttention
    assert type(ours["attn"].out_proj) is taimatsu.nn.modules.linear.NonDynamicallyQuantizableLinear
    assert type(ours["params"]) is taimatsu.nn.ParameterList
    x = torch.randn(5, 3, 8)
    expected, _ = model["attn"](x, x, x)
    got, _ = ours["attn"](*(taimatsu.tensor(x.numpy()),) * 3)
    assert got.detach().numpy() == pytest.approx(expected.detach().numpy(), abs=1e-6)
    assert list(ours.state_dict()) == list(model.state_dict())


def test_safe_globals_match_torch_paths():
    model = torch.nn.MultiheadAttention(8, 2)
    buf = io.BytesIO()
    torch.save(model, buf)
    classes = [
        taimatsu.nn.MultiheadAttention,
        taimatsu.nn.modules.linear.NonDynamicallyQuantizableLinear,
    ]
    buf.seek(0)
    with taimatsu.serialization.safe_globals(classes):
        ours = taimatsu.load(buf, weights_only=True)
    assert type(ours) is taimatsu.nn.MultiheadAttention
    buf.seek(0)
    with pytest.raises(
        taimatsu.serialization.pickle.UnpicklingError,
        match="torch.nn.modules.activation.MultiheadAttention",
    ):
        taimatsu.load(buf, weights_only=True)


@pytest.mark.parametrize("name", ["_single", "_pair", "_triple", "_quadruple"])
@pytest.mark.parametrize("value", [3, (1, 2), [4, 5, 6], "ab"])
def test_ntuple_parsers(name, value):
    from taimatsu.nn.modules import utils

    assert getattr(utils, name)(value) == getattr(torch.nn.modules.utils, name)(value)


def test_reverse_repeat_and_list_with_default():
    from taimatsu.nn.modules import utils

    ref = torch.nn.modules.utils
    assert utils._reverse_repeat_tuple((1, 2, 3), 2) == ref._reverse_repeat_tuple((1, 2, 3), 2)
    assert utils._list_with_default([None, 3], [1, 5, 7]) == ref._list_with_default(
        [None, 3], [1, 5, 7]
    )
    assert utils._list_with_default(4, [1]) == ref._list_with_default(4, [1])
    with pytest.raises(ValueError, match="at least 3"):
        ref._list_with_default([1, 2], [1, 2])
    with pytest.raises(ValueError, match="at least 3"):
        utils._list_with_default([1, 2], [1, 2])


def test_consume_prefix_in_state_dict():
    from taimatsu.nn.modules.utils import consume_prefix_in_state_dict_if_present

    ref = torch.nn.Sequential(torch.nn.Linear(2, 2))
    wrapped = torch.nn.ModuleDict({"module": ref}).state_dict()
    ours = taimatsu.nn.ModuleDict(
        {"module": taimatsu.nn.Sequential(taimatsu.nn.Linear(2, 2))}
    ).state_dict()
    torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(wrapped, "module.")
    consume_prefix_in_state_dict_if_present(ours, "module.")
    assert list(ours) == list(wrapped)
    assert list(ours._metadata) == list(wrapped._metadata)
