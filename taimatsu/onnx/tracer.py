"""Recording a forward pass: every op the model's code calls (not the ops those ops call inside),
with its arguments, its result and the module it ran in, through ``autograd/op_watch`` (Python's
profiling hook, on only while tracing). ``torch.onnx.export`` and ``SummaryWriter.add_graph``
build their graphs from it."""

from __future__ import annotations

from typing import NamedTuple

from ..autograd import op_watch


class OpCall(NamedTuple):
    name: str  # PyTorch's aten name: "conv2d", "view", "add", ...
    args: dict  # parameter name -> value; "*" -> the *args tuple when the function has one
    result: object
    scope: str = ""  # the running module, as PyTorch's graphs name it: "Net/Linear[fc1]"


class Recorder:
    """An op_watch watcher collecting the outermost op calls, in order."""

    # a custom autograd.Function counts as one op (the ops in its forward are not outer calls)
    _KINDS = frozenset(("op", "detach", "function"))

    def __init__(self) -> None:
        self.calls: list[OpCall] = []
        self.scopes: list[str] = []  # the modules running now, innermost last
        self.inside_opaque = 0  # > 0 while a module recorded as one op runs
        self._open: list = []

    def enter(self, site, frame, outer: bool) -> None:
        if outer and site.kind in self._KINDS and not self.inside_opaque:
            name = site.name
            if site.kind == "function":  # Function.apply: ``cls`` is the user's Function class
                name = f"prim::PythonOp[{getattr(frame.f_locals.get('cls'), '__name__', '?')}]"
            self._open.append((name, _named_arguments(frame)))

    def leave(self, site, frame, value, outer: bool) -> None:
        if outer and site.kind in self._KINDS and self._open and not self.inside_opaque:
            name, args = self._open.pop()
            scope = self.scopes[-1] if self.scopes else ""
            self.calls.append(OpCall(name, args, value, scope))


def _named_arguments(frame) -> dict:
    code = frame.f_code
    n = code.co_argcount + code.co_kwonlyargcount
    local = frame.f_locals
    args = {name: local.get(name) for name in code.co_varnames[:n]}
    if code.co_flags & 0x04:  # the function takes *args
        args["*"] = tuple(local.get(code.co_varnames[n]) or ())
    return args


def module_scopes(root) -> dict[int, str]:
    """id(module) -> its scope name: the root's class, then ``Class[attribute]`` per level."""
    names = {}
    for path, module in root.named_modules():
        scope = type(root).__name__
        owner = root
        for part in path.split(".") if path else ():
            owner = getattr(owner, part)
            scope += f"/{type(owner).__name__}[{part}]"
        names[id(module)] = scope
    return names


def recurrent_op(module) -> str | None:
    """The aten name a recurrent layer is recorded as (``lstm``, ``gru``, ``rnn_tanh``, ``rnn_relu``)."""
    from ..nn.modules.rnn import RNNBase

    if isinstance(module, RNNBase):
        return {"LSTM": "lstm", "GRU": "gru"}.get(module.mode, module.mode.lower())
    return None


def trace(fn, *args, opaque=None, **kwargs) -> tuple[object, list[OpCall]]:
    """Run ``fn`` and return its result and the op calls it made (with their module scopes when
    ``fn`` is a Module). ``opaque(module)`` may name a module to record as one op (recurrent
    layers, whose kernel runs no ops the watch can see): the call is recorded as that op with
    arguments ``module``, ``input`` and ``hx``, and nothing inside it is."""
    from ..nn.modules._global_hooks import (
        register_module_forward_hook,
        register_module_forward_pre_hook,
    )

    recorder = Recorder()
    scopes = module_scopes(fn) if hasattr(fn, "named_modules") else {}
    opaque_names: list = []  # per running module: the op name it is recorded as, or None

    def push(module, inputs):
        recorder.scopes.append(
            scopes.get(id(module), recorder.scopes[-1] if recorder.scopes else "")
        )
        name = opaque(module) if opaque is not None and not recorder.inside_opaque else None
        opaque_names.append(name)
        recorder.inside_opaque += name is not None

    def pop(module, inputs, output):
        name = opaque_names.pop()
        if name is not None:
            recorder.inside_opaque -= 1
            hx = inputs[1] if len(inputs) > 1 else None
            args = {"module": module, "input": inputs[0], "hx": hx}
            recorder.calls.append(OpCall(name, args, output, recorder.scopes[-1]))
        recorder.scopes.pop()

    handles = []
    if scopes:
        handles = [
            register_module_forward_pre_hook(push),
            register_module_forward_hook(pop, always_call=True),
        ]
    op_watch.watch(recorder)
    try:
        result = fn(*args, **kwargs)
    finally:
        op_watch.unwatch(recorder)
        for h in handles:
            h.remove()
    return result, recorder.calls
