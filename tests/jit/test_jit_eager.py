"""``torch.jit`` in eager mode against PyTorch: what the decorators set and return, ``fork``/``wait``,
``isinstance`` on TorchScript container types, the warnings and errors; and the compiler entry
points, which taimatsu refuses with NotImplementedError rather than pretending to compile."""

# ruff: noqa: UP006, UP007, UP045  (typing.List/Dict/Optional/Union: the spellings TorchScript code uses)
from __future__ import annotations

import warnings
from typing import Dict, List, Optional, Tuple, Union  # noqa: UP035

import pytest

import taimatsu

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

BOTH = (taimatsu, torch)


def outcome(fn):
    """(result or exception, [(warning category, message)])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got = ("ok", fn())
        except Exception as e:  # noqa: BLE001  (the exception is what is compared)
            got = (type(e).__name__, str(e))
    return got, [(w.category.__name__, str(w.message)) for w in caught]


def same(program):
    """``program(module)`` gives the same result, exception and warnings under both."""
    ours, theirs = (outcome(lambda m=m: program(m)) for m in BOTH)
    assert ours == theirs
    return ours


def test_is_scripting_is_tracing():
    same(lambda m: (m.jit.is_scripting(), m.jit.is_tracing()))


def _marked(m, decorate):
    def fn(x):
        return x + 1

    out = decorate(m, fn)
    return out is fn, getattr(fn, "_torchscript_modifier", None)


@pytest.mark.parametrize(
    "decorate",
    [
        lambda m, f: m.jit.ignore(f),
        lambda m, f: m.jit.ignore()(f),
        lambda m, f: m.jit.ignore(drop=True)(f),
        lambda m, f: m.jit.ignore(drop=False)(f),
        lambda m, f: m.jit.ignore(drop_on_export=True)(f),
        lambda m, f: m.jit.ignore(3),
        lambda m, f: m.jit.unused(f),
        lambda m, f: m.jit.export(f),
    ],
)
def test_modifier_decorators(decorate):
    same(lambda m: _marked(m, decorate))


def test_unused_property():
    def program(m):
        prop = property(lambda self: 1, lambda self, v: None)
        out = m.jit.unused(prop)
        return out is prop, prop.fget._torchscript_modifier, prop.fset._torchscript_modifier

    same(program)


def _overloads(m):
    class Model(m.nn.Module):
        @m.jit._overload_method
        def forward(self, x: int) -> int: ...

        @m.jit._overload_method
        def forward(self, x: float) -> float:  # noqa: F811
            pass

        def forward(self, x):  # noqa: F811  (the implementation after the declarations)
            return x * 2

    return Model()(3)


def _bad_overload(m):
    class Model(m.nn.Module):
        @m.jit._overload_method
        def forward(self, x: int) -> int:
            return x

    return Model


def _bad_free_overload(m):
    @m.jit._overload
    def double(x: int) -> int:
        """A docstring is not ``pass``."""
        return 2 * x

    return double


@pytest.mark.parametrize("program", [_overloads, _bad_overload, _bad_free_overload])
def test_overload_declarations(program):
    same(program)


class IfaceA:
    def one(self, x: torch.Tensor) -> torch.Tensor:
        pass


class IfaceB:
    def one(self, x: torch.Tensor) -> torch.Tensor:
        pass


class ModIfaceA(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pass


class ModIfaceB(taimatsu.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pass


class Derived(IfaceB):
    pass


def test_interface():
    (name_a, w_a), (name_b, w_b) = (
        outcome(lambda m=m, c=c: m.jit.interface(c).__torch_script_interface__)
        for m, c in ((torch, IfaceA), (taimatsu, IfaceB))
    )
    assert name_a == ("ok", f"__torch__.{__name__}.IfaceA") and w_a == w_b
    assert name_b == ("ok", f"__torch__.{__name__}.IfaceB")
    ours = outcome(lambda: taimatsu.jit.interface(ModIfaceB).__torch_script_interface__)
    theirs = outcome(lambda: torch.jit.interface(ModIfaceA).__torch_script_interface__)
    assert ours[0][1].replace("B", "A") == theirs[0][1] and ours[1] == theirs[1]
    same(lambda m: m.jit.interface(3))
    same(lambda m: m.jit.interface(Derived))


def test_fork_wait():
    def program(m):
        fut = m.jit.fork(lambda x, k=0: x * 2 + k, m.tensor([1.0, 2.0]), k=1)
        return fut.done(), fut.value().tolist(), m.jit.wait(fut).tolist(), type(fut).__name__

    same(program)
    with pytest.warns(DeprecationWarning):
        assert isinstance(taimatsu.jit.fork(len, []), taimatsu.futures.Future)

    def failing(m):
        m.jit.fork(lambda: 1 / 0)
        return "forked"

    same(failing)


def test_script_if_tracing():
    def program(m):
        def add_one(x):
            """Adds one."""
            return x + 1

        wrapped = m.jit.script_if_tracing(add_one)
        attrs = sorted(vars(wrapped))
        return (wrapped is add_one, attrs, wrapped.__name__, wrapped.__doc__, wrapped(2),
                getattr(wrapped, "__original_fn") is add_one,
                getattr(wrapped, "__script_if_tracing_wrapper"))  # fmt: skip

    same(program)


@pytest.mark.parametrize(
    "obj, target",
    [
        ([1, 2], List[int]),
        ([1, "a"], List[int]),
        ([[1], [2]], List[List[int]]),
        ([[1], ["x"]], List[List[int]]),
        ([], List[int]),
        ({}, Dict[str, int]),
        ((), Tuple[int]),
        ({"a": 1}, Dict[str, int]),
        ({"a": "b"}, Dict[str, int]),
        ({1: 1}, Dict[str, int]),
        ({"a": [1]}, Dict[str, List[int]]),
        ((1, "a"), Tuple[int, str]),
        ((1, "a"), Tuple[int, int]),
        ((1,), Tuple[int, int]),
        ([1], Tuple[int]),
        (None, Optional[int]),
        (3, Optional[int]),
        ("s", Optional[int]),
        ([1], Optional[List[int]]),
        ("s", Union[List[int], str]),
        (3, int),
        (3, (str, int)),
        (3, (str, List[int])),
        (3, [int]),
        ([1], List),
        ({}, Dict),
        ((), Tuple),
        (None, Optional),
        ([1], list),
        ([1, 2], list[int]),
        ({"a": (1, 2)}, dict[str, tuple[int, int]]),
        (None, int | None),
        ("s", int | None),
        (3, {int: 1}),
    ],
)
def test_isinstance(obj, target):
    same(lambda m: m.jit.isinstance(obj, target))


def test_isinstance_tensor_containers():
    same(lambda m: m.jit.isinstance({"w": m.ones(2)}, Dict[str, m.Tensor]))
    same(lambda m: m.jit.isinstance([m.ones(2), 3], List[m.Tensor]))


def test_annotate_attribute_final_error():
    same(lambda m: m.jit.annotate(List[int], [1, 2]))
    same(lambda m: tuple(m.jit.Attribute(0.5, float)) + (m.jit.Attribute._fields,))
    same(lambda m: repr(m.jit.Attribute({}, Dict[str, int])))
    assert taimatsu.jit.Final is torch.jit.Final
    assert issubclass(taimatsu.jit.Error, Exception) and taimatsu.jit.Error.__name__ == "Error"
    assert taimatsu.jit.Error.__mro__[1:] == torch.jit.Error.__mro__[1:]


COMPILER_ENTRY_POINTS = [
    ("script", lambda j: j.script(lambda x: x)),
    ("trace", lambda j: j.trace(lambda x: x, (taimatsu.ones(1),))),
    ("trace_module", lambda j: j.trace_module(taimatsu.nn.Linear(1, 1), {})),
    ("save", lambda j: j.save(taimatsu.nn.Linear(1, 1), "m.pt")),
    ("load", lambda j: j.load("m.pt")),
    ("freeze", lambda j: j.freeze(taimatsu.nn.Linear(1, 1))),
    ("optimize_for_inference", lambda j: j.optimize_for_inference(taimatsu.nn.Linear(1, 1))),
    ("ScriptModule", lambda j: j.ScriptModule()),
    ("ScriptFunction", lambda j: j.ScriptFunction()),
    ("TracedModule", lambda j: j.TracedModule()),
    ("export_opnames", lambda j: j.export_opnames(taimatsu.nn.Linear(1, 1))),
]


@pytest.mark.parametrize("name, call", COMPILER_ENTRY_POINTS)
def test_compiler_entry_points_refuse(name, call):
    """Nothing claims to be compiled: each says taimatsu has no TorchScript compiler and what to use."""
    with pytest.raises(NotImplementedError) as info:
        call(taimatsu.jit)
    msg = str(info.value)
    assert f"torch.jit.{name} is not available" in msg and "does not compile" in msg
    assert "state_dict" in msg
    assert not hasattr(torch, "__taimatsu__")  # the oracle is untouched


def test_script_module_isinstance_is_false():
    """Library code tests ``isinstance(m, torch.jit.ScriptModule)`` to branch: eager modules are not."""
    lin = taimatsu.nn.Linear(2, 2)
    assert not isinstance(lin, taimatsu.jit.ScriptModule)
    assert not isinstance(lin.forward, taimatsu.jit.ScriptFunction)
    assert not isinstance(torch.nn.Linear(2, 2), torch.jit.ScriptModule)


def test_executor_settings():
    """The TorchScript executor's switches are kept (and returned) as PyTorch's, with its warnings."""

    def program(m):
        first = m.jit.set_fusion_strategy([("DYNAMIC", 3)])
        second = m.jit.set_fusion_strategy(first)
        bad = outcome(lambda: m.jit.set_fusion_strategy([("FAST", 1)]))[0]
        with m.jit.optimized_execution(False), m.jit.fuser("fuser1"), m.jit.strict_fusion():
            inside = m.jit.annotate(int, 3)
        unknown = outcome(lambda: m.jit.fuser("fuser9").__enter__())[0]
        was = m.jit.onednn_fusion_enabled()
        m.jit.enable_onednn_fusion(True)
        now = m.jit.onednn_fusion_enabled()
        m.jit.enable_onednn_fusion(was)
        return first, second, bad, inside, unknown, was, now

    same(program)
    assert taimatsu.jit.Future is taimatsu.futures.Future
    assert sorted(taimatsu.jit.__all__) == sorted(torch.jit.__all__)
    for name in ("TracerWarning", "ScriptWarning"):
        assert getattr(taimatsu.jit, name).__mro__[1:] == getattr(torch.jit, name).__mro__[1:]
    assert not isinstance(taimatsu.nn.Linear(1, 1), taimatsu.jit.TopLevelTracedModule)
