"""``torch.fx.Proxy``: the stand-in for a value while a function is traced. Every operator,
method call and attribute read on a Proxy records a Node instead of computing; using one
for control flow (``if``, ``len``, iteration) raises PyTorch's errors."""

from __future__ import annotations

import dis
import inspect
import operator

from .node import Node

__all__ = ["Attribute", "ParameterProxy", "Proxy", "TraceError"]


class TraceError(ValueError):
    pass


# operator name -> the Python syntax the generated code writes for it
magic_methods = {
    "add": "{} + {}",
    "sub": "{} - {}",
    "mul": "{} * {}",
    "floordiv": "{} // {}",
    "truediv": "{} / {}",
    "div": "{} / {}",
    "mod": "{} % {}",
    "pow": "{} ** {}",
    "lshift": "{} << {}",
    "rshift": "{} >> {}",
    "and_": "{} & {}",
    "or_": "{} | {}",
    "xor": "{} ^ {}",
    "getitem": "{}[{}]",
    "matmul": "{} @ {}",
    "eq": "{} == {}",
    "ne": "{} != {}",
    "lt": "{} < {}",
    "gt": "{} > {}",
    "le": "{} <= {}",
    "ge": "{} >= {}",
    "pos": "+{}",
    "neg": "-{}",
    "invert": "~{}",
}
reflectable_magic_methods = {
    k: magic_methods[k]
    for k in [
        "add",
        "sub",
        "mul",
        "floordiv",
        "truediv",
        "div",
        "mod",
        "pow",
        "lshift",
        "rshift",
        "and_",
        "or_",
        "xor",
        "matmul",
    ]
}


class Proxy:
    """A traced value: ``node`` is the Node that computes it, ``tracer`` records new ones."""

    def __init__(self, node: Node, tracer=None):
        if tracer is None:
            from ._symbolic_trace import GraphAppendingTracer

            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        if k.startswith("_"):
            # dunders are copy/pickle probing; _data, _dtype... are taimatsu's internals looking
            # into a Tensor: a torch function called on a Proxy outside symbolic_trace (PyTorch
            # records it through __torch_function__; taimatsu records it during a trace only)
            # must fail here, not record reads of internals
            raise AttributeError(
                f"'{type(self).__name__}' object has no attribute '{k}' (a taimatsu function was "
                "given a Proxy: calls are recorded through the torch namespaces and the names the "
                "traced code holds, while symbolic_trace or Transformer.transform runs; see docs/fx.md)"
            )
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        frame = inspect.currentframe()
        caller = frame.f_back if frame is not None else None
        if caller is not None:
            for inst in dis.get_instructions(caller.f_code):
                if inst.offset == caller.f_lasti:
                    if inst.opname == "UNPACK_SEQUENCE":  # ``a, b = proxy``: as many getitems
                        return (self[i] for i in range(inst.argval))
                    break
        return self.tracer.iter(self)

    def __abs__(self) -> Proxy:
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def __len__(self) -> int:
        raise RuntimeError(
            "'len' is not supported in symbolic tracing by default. If you want this call to be "
            "recorded, please call torch.fx.wrap('len') at module scope"
        )

    def keys(self):
        return self.tracer.keys(self)


def _magic(name: str):
    target = getattr(operator, name)

    def impl(*args):
        tracer = args[0].tracer
        return tracer.create_proxy("call_function", target, args, {})

    impl.__name__ = f"__{name.strip('_')}__"
    return impl


def _reflected(name: str):
    target = getattr(operator, name)

    def impl(self, rhs):
        return self.tracer.create_proxy("call_function", target, (rhs, self), {})

    impl.__name__ = f"__r{name.strip('_')}__"
    return impl


# set after the class body so that defining __eq__ keeps Proxy hashable (as in PyTorch)
for _name in magic_methods:
    if _name == "div":
        continue
    setattr(Proxy, f"__{_name.strip('_')}__", _magic(_name))
for _name in reflectable_magic_methods:
    if _name == "div":
        continue
    setattr(Proxy, f"__r{_name.strip('_')}__", _reflected(_name))
del _name


class Attribute(Proxy):
    """``proxy.attr``: recorded as ``getattr`` only once used as a value; called, it becomes a
    ``call_method`` node instead."""

    def __init__(self, root: Proxy, attr: str):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self) -> Node:
        if self._node is None:
            self._node = self.tracer.create_proxy(
                "call_function", getattr, (self.root, self.attr), {}
            ).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


class ParameterProxy(Proxy):
    """A Proxy for an ``nn.Parameter`` read from the traced module."""

    def __init__(self, tracer, node: Node, name: str, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self) -> str:
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self):  # PyTorch's ParameterProxy.size takes no dim
        return self.param.size()

    def dim(self) -> int:
        return self.param.dim()

    @property
    def ndim(self) -> int:
        return self.param.ndim

    def numel(self) -> int:
        return self.param.numel()

    def nelement(self) -> int:
        return self.param.nelement()


def __getattr__(name: str):
    # GraphAppendingTracer is a Tracer, which is built on this module: defined with it
    if name == "GraphAppendingTracer":
        from ._symbolic_trace import GraphAppendingTracer

        return GraphAppendingTracer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
