"""``torch.autograd.functional``: vjp, jvp, jacobian, hessian, vhp, hvp.

Built on ``autograd.grad`` the way PyTorch builds them: inputs are detached copies that
require grad (or views keeping their graph under ``create_graph``), results are detached
unless ``create_graph``, and an input the function does not use gets a zero gradient
(``strict=True`` raises instead). ``jvp`` and ``hvp`` use the double-backward trick.
``vectorize`` and the forward-mode ``strategy`` are accepted and run the reverse-mode loop (with
PyTorch's checks, and its forward-mode results' list structure).
"""

from __future__ import annotations

from . import grad as _grad
from .grad_mode import enable_grad


def _as_tuple(x, arg_name: str, fn_name: str):
    from .._tensor.core import Tensor

    is_tuple = isinstance(x, tuple)  # a list is one (non-Tensor) value, as in PyTorch
    xs = x if is_tuple else (x,)
    for i, el in enumerate(xs):
        if not isinstance(el, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                    f"value at index {i} has type {type(el)}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the given "
                f"{arg_name} has type {type(el)}."
            )
    return is_tuple, xs


def _tuple_postprocess(res, flags):
    if isinstance(flags, tuple):
        if not flags[1]:
            res = tuple(r[0] for r in res)
        if not flags[0]:
            res = res[0]
    elif not flags:
        res = res[0]
    return res


def _prepare(inputs, create_graph: bool):
    return tuple(x.view_as(x) if create_graph and x.requires_grad else x.detach().requires_grad_(True)
                 for x in inputs)  # fmt: skip


def _finish(xs, create_graph: bool):
    return tuple(x if create_graph or x is None else x.detach() for x in xs)


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs not requiring grad and returns None for unused inputs."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
                 create_graph=create_graph, retain_graph=retain_graph)  # fmt: skip


def _check_outputs_require_grad(outputs, strict: bool) -> None:
    """strict mode: an output computed without the inputs' graph is PyTorch's first error."""
    if not strict:
        return
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The outputs must be "
                "computed in a differentiable manner from the input when running in strict mode."
            )


def _fill_zeros(grads, refs, strict: bool, fn_name: str, what: str = "input"):
    out = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The output of the user-provided function is independent of {what} {i}. This is not allowed "
                    "in strict mode."
                )
            g = r.new_zeros(r.shape)
        out.append(g)
    return tuple(out)


def _validate_v(v, other, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.shape != el_other.shape:
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_other.shape} but got {el_v.shape}."
            )


def _default_v(outputs, fn_name: str):
    if len(outputs) != 1 or outputs[0].numel() != 1:
        raise RuntimeError(
            "The vector v can only be None if the user-provided function returns a single Tensor with a "
            "single element."
        )
    return (outputs[0].new_ones(outputs[0].shape),)


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T J)``."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "vjp"
        )
        _check_outputs_require_grad(outputs, strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            _validate_v(v, outputs, is_outputs_tuple)
        else:
            v = _default_v(outputs, "vjp")
        grads = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        vjp_ = _fill_zeros(grads, inputs, strict, "vjp")
    return _tuple_postprocess(_finish(outputs, create_graph), is_outputs_tuple), _tuple_postprocess(
        _finish(vjp_, create_graph), is_inputs_tuple
    )


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), J v)``, by differentiating a VJP with respect to its cotangent."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            _validate_v(v, inputs, is_inputs_tuple)
        else:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function is a single "
                    "Tensor with a single element."
                )
            v = (inputs[0].new_ones(inputs[0].shape),)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jvp"
        )
        _check_outputs_require_grad(outputs, strict)
        grad_outputs = tuple(o.new_zeros(o.shape).requires_grad_(True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        jvp_ = _fill_zeros(grad_res, outputs, strict, "jvp", "output")
    return _tuple_postprocess(_finish(outputs, create_graph), is_outputs_tuple), _tuple_postprocess(
        _finish(jvp_, create_graph), is_outputs_tuple
    )


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):  # fmt: skip
    """The Jacobian: for output i and input j, a tensor of shape ``out_i.shape + in_j.shape``.

    ``strategy="forward-mode"`` (with ``vectorize=True``, as PyTorch requires) runs the same
    reverse-mode loop and returns PyTorch's forward-mode structure (lists, not tuples)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
            '"reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
                "`vectorize=True`."
            )
        is_in, xs = _as_tuple(inputs, "inputs", "jacobian")
        res = jacobian(func, xs)  # a tuple (per output) of tuples (per input)
        is_out = isinstance(res, tuple) and bool(res) and isinstance(res[0], tuple)
        rows = [list(r) for r in res] if is_out else [list(res)]
        return _tuple_postprocess(rows, (is_out, is_in))
    from ..ops.shape.copies import stack

    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian"
        )
        _check_outputs_require_grad(outputs, strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                "together. Please either set `strict=False` or `vectorize=False`."
            )
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            for k in range(out.numel()):
                seed = out.new_zeros(out.numel())
                seed[k] = 1
                grads = _autograd_grad((out,), inputs, (seed.view(out.shape),), create_graph=create_graph,
                                       retain_graph=True)  # fmt: skip
                for j, (g, x) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of input {j}. This is "
                                "not allowed in strict mode."
                            )
                        g = x.new_zeros(x.shape)
                    rows[j].append(g)
            per_input = []
            for j, x in enumerate(inputs):
                if rows[j]:
                    jac = stack(rows[j]).view(out.shape + x.shape)
                else:
                    jac = x.new_zeros(out.shape + x.shape)
                per_input.append(jac if create_graph else jac.detach())
            result.append(tuple(per_input))
    return _tuple_postprocess(tuple(result), (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):  # fmt: skip
    """The Hessian of a function returning a single-element tensor."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_outputs_require_grad(t_out, strict)
        if is_out_tuple or t_out[0].numel() != 1:
            raise RuntimeError(
                "The function given to hessian should return a single Tensor"
                if is_out_tuple
                else "The Tensor returned by the function given to hessian should contain a single element"
            )
        return t_out[0].squeeze()

    def jac_func(*inp):
        jac = jacobian(single_output, inp, create_graph=True)
        if strict:
            for i, j in enumerate(jac):
                if not j.requires_grad:
                    raise RuntimeError(
                        "While computing the hessian, found that the jacobian of the user-provided function with "
                        f"respect to input {i} is independent of the input. This is not allowed in strict mode. You "
                        "should ensure that your function is twice differentiable and that the jacobian depends on "
                        "the inputs (this would be violated by a linear function for example)."
                    )
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)  # fmt: skip
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _second_order(func, inputs, v, create_graph, strict, name, transpose_trick):
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _prepare(inputs, create_graph)
        if v is not None:
            _, v = _as_tuple(v, "v", name)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a single "
                "Tensor with a single element."
            )
        else:
            v = (inputs[0].new_ones(inputs[0].shape),)
        outputs = func(*inputs)
        is_out_tuple, t_out = _as_tuple(outputs, "outputs of the user-provided function", name)
        _check_outputs_require_grad(t_out, strict)
        if is_out_tuple or t_out[0].numel() != 1:
            raise RuntimeError(
                f"The function given to {name} should return a single Tensor" if is_out_tuple else
                f"The Tensor returned by the function given to {name} should contain a single element"
            )  # fmt: skip
        jac = _autograd_grad(t_out, inputs, create_graph=True)
        jac = _fill_zeros(jac, inputs, strict, name)
        if transpose_trick:  # hvp: H v = d/dg (g^T H)... computed as PyTorch does
            grad_jac = tuple(x.new_zeros(x.shape).requires_grad_(True) for x in inputs)
            double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
            res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        else:
            res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_zeros(res, inputs, strict, name)
    return _finish(t_out, create_graph)[0], _tuple_postprocess(
        _finish(res, create_graph), is_inputs_tuple
    )


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T H)``."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp", False)


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), H v)``."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp", True)


__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]
