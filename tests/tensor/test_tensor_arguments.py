"""A non-Tensor where a namespace function's first argument, a tensor, belongs: PyTorch's parser
TypeError, never the AttributeError of a missing attribute (taimatsu/_tensor_arguments.py)."""

import inspect
import warnings

import pytest

import taimatsu as tm

# Global switches and stateful helpers: not functions of a tensor, or not safe to call with junk
SKIP = {
    "manual_seed", "seed", "set_printoptions", "set_default_dtype", "set_default_device",
    "set_num_threads", "set_num_interop_threads", "set_grad_enabled", "use_deterministic_algorithms",
    "set_rng_state", "load", "save", "compile", "vmap", "set_float32_matmul_precision",
    "set_warn_always", "set_anomaly_enabled", "autocast", "no_grad", "enable_grad",
    "inference_mode", "set_default_tensor_type", "set_flush_denormal", "initial_seed",
    "get_rng_state", "fork_rng", "from_file", "is_grad_enabled", "typename", "sym_int",
    "sym_float", "sym_not", "sym_max", "sym_min", "sym_ite", "cond", "while_loop", "export",
    "set_autocast_cpu_dtype", "set_autocast_gpu_dtype",
}  # fmt: skip
BAD = [None, "a", [1.0, 2.0]]


def _functions(torch):
    for name, fn in sorted(vars(tm).items()):
        if name.startswith("_") or name in SKIP or inspect.isclass(fn) or inspect.ismodule(fn):
            continue
        if callable(fn) and callable(getattr(torch, name, None)):
            yield name


def _raised(fn, arg):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(arg)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)
    return None


def test_no_attribute_error_for_a_non_tensor_first_argument(torch_oracle):
    leaks = []
    for name in _functions(torch_oracle):
        for arg in BAD:
            mine = _raised(getattr(tm, name), arg)
            if (
                mine is AttributeError
                and _raised(getattr(torch_oracle, name), arg) is not AttributeError
            ):
                leaks.append((name, type(arg).__name__))
    assert not leaks


@pytest.mark.parametrize("module", ["nn.functional", "linalg", "special", "fft"])
def test_no_attribute_error_in_submodules(torch_oracle, module):
    mine, theirs = tm, torch_oracle
    for part in module.split("."):
        mine, theirs = getattr(mine, part), getattr(theirs, part)
    leaks = []
    for name, fn in sorted(vars(mine).items()):
        if name.startswith("_") or inspect.isclass(fn) or not callable(fn):
            continue
        if not callable(getattr(theirs, name, None)):
            continue
        for arg in BAD:
            if (
                _raised(fn, arg) is AttributeError
                and _raised(getattr(theirs, name), arg) is not AttributeError
            ):
                leaks.append((name, type(arg).__name__))
    assert not leaks


SUBMODULE_CALLS = [
    "linalg.inv", "linalg.cholesky", "linalg.norm", "linalg.svd", "linalg.pinv", "special.erf",
    "special.expit", "fft.rfft", "fft.fftshift", "nn.functional.relu", "nn.functional.gelu",
    "nn.functional.logsigmoid", "nn.functional.conv3d", "nn.functional.softplus",
]  # fmt: skip


@pytest.mark.parametrize("arg", BAD)
@pytest.mark.parametrize("call", SUBMODULE_CALLS)
def test_submodule_messages(torch_oracle, call, arg):
    texts = []
    for lib in (torch_oracle, tm):
        fn = lib
        for part in call.split("."):
            fn = getattr(fn, part)
        with pytest.raises(TypeError) as info:
            fn(arg)
        texts.append(str(info.value).split("\n")[0].split(", but expected")[0])
    assert texts[1] == texts[0]


CALLS = [
    "exp", "sigmoid", "relu", "reshape", "sort", "tril", "clone", "isnan", "nonzero", "numel",
    "trace", "det", "unique", "bincount", "histc", "abs_", "lu", "where", "hardshrink", "any",
    "std", "atleast_2d", "meshgrid", "broadcast_tensors", "repeat_interleave", "t", "flatten",
]  # fmt: skip


@pytest.mark.parametrize("arg", BAD + [3])
@pytest.mark.parametrize("name", CALLS)
def test_messages(torch_oracle, name, arg):
    texts = []
    for lib in (torch_oracle, tm):
        with pytest.raises(TypeError) as info:
            getattr(lib, name)(arg)
        texts.append(str(info.value).split("\n")[0].split(", but expected")[0])
    assert texts[1] == texts[0]


def test_keyword_and_tensor_arguments_still_work(torch_oracle):
    x = tm.tensor([1.0, -2.0])
    assert tm.exp(input=x).tolist() == pytest.approx(
        torch_oracle.exp(torch_oracle.tensor([1.0, -2.0])).tolist()
    )
    with pytest.raises(
        TypeError, match=r"exp\(\): argument 'input' \(position 1\) must be Tensor, not NoneType"
    ):
        tm.exp(input=None)


ONCE_IN_PYTORCH = {"chain_matmul", "cholesky", "cross", "lu", "nuclear_norm"}
WARNING_CALLS = {
    "meshgrid": lambda T: T.meshgrid(T.ones(2), T.ones(3)),
    "cross": lambda T: T.cross(T.ones(3, 3), T.ones(3, 3)),
    "chain_matmul": lambda T: T.chain_matmul(T.ones(2, 2), T.ones(2, 2)),
    "cov": lambda T: T.cov(T.ones(1, 1)),
    "cholesky": lambda T: T.cholesky(T.eye(2)),
    "lu": lambda T: T.lu(T.eye(2)),
    "nuclear_norm": lambda T: T.nuclear_norm(T.eye(2)),
    "scatter_reduce_arg": lambda T: T.scatter(
        T.zeros(3), 0, T.tensor([0]), T.ones(1), reduce="add"
    ),
    "sort_out_resized": lambda T: T.sort(T.ones(3), out=(T.zeros(2), T.zeros(2, dtype=T.long))),
}


@pytest.mark.parametrize("name", sorted(WARNING_CALLS))
def test_warnings_name_the_callers_line_through_the_guard(torch_oracle, name):
    # the guard's frame lies between the user and the function: warnings still name the user's line
    import taimatsu._flags as flags

    flags._warned_once.clear()
    from taimatsu.linalg import decompositions

    decompositions._warned.clear()
    caught = {}
    for lib in (torch_oracle, tm):
        with warnings.catch_warnings(record=True) as caught[lib]:
            warnings.simplefilter("always")
            WARNING_CALLS[name](lib)
    if name not in ONCE_IN_PYTORCH:  # PyTorch warns these once per process, maybe earlier
        assert [w.category for w in caught[tm]] == [w.category for w in caught[torch_oracle]]
    # (PyTorch's own Python functions name their own line for some of these; taimatsu the caller's)
    assert caught[tm] and all(w.filename == __file__ for w in caught[tm])
