"""``torch.func``'s autodiff transforms: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
linearize, built on the reverse-mode engine (``autograd.grad``).

Each call of a transformed function opens a *level*: its inputs become fresh tensors that require
grad (``x.view_as(x)`` when ``x`` already requires grad, so an outer transform or ``backward`` can
still differentiate through), and its results keep their graph only while they depend on something
an outer level (or ordinary autograd) can differentiate: a user tensor that requires grad, or the
fresh input of a transform that is still running. That is what makes ``grad(grad(f))``,
``jacrev(jacrev(f))`` and ``vmap(grad(f))`` compose, and why ``grad(f)(x)`` on a plain ``x`` returns
a tensor that does not require grad, as in PyTorch.

jvp, jacfwd and linearize use the double-VJP trick instead of ``forward_ad`` (whose single dual
level cannot nest): with ``g(u) = J^T u`` recorded for a dummy cotangent ``u``, ``J v`` is the VJP of
``g`` with respect to ``u``. The values are the forward-mode ones; the cost is two reverse passes.
Levels are tracked per process, not per thread.
"""

from __future__ import annotations

import weakref

import numpy as np

from .._tensor.core import Tensor
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.graph import AccumulateGrad
from ..utils._pytree import tree_flatten, tree_unflatten, treespec_pprint
from ._vmap import RANDOM_ERROR, _rng_state, check_randomness

# id(fresh input) -> (weak reference, level that made it); an entry leaves with its tensor.
_owner: dict = {}
_depth = [0]


class _Level:
    """One transform call: bumps the depth, turns grad mode on, remembers the caller's mode."""

    def __enter__(self):
        self.outer_grad = is_grad_enabled()
        _depth[0] += 1
        self.level = _depth[0]
        self._grad = enable_grad()
        self._grad.__enter__()
        return self

    def __exit__(self, *exc):
        self._grad.__exit__(*exc)
        _depth[0] -= 1

    def fresh(self, x, owned: bool = False) -> Tensor:
        """The tensor ``func`` sees in place of ``x``."""
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")  # noqa: TRY004 (PyTorch's type)
        if x.requires_grad and self.outer_grad and not owned:
            return x.view_as(x)
        y = x.detach().requires_grad_(True)
        key = id(y)
        _owner[key] = (weakref.ref(y, lambda _, k=key: _owner.pop(k, None)), self.level)
        return y

    def unwrap(self, t):
        """``t`` as the caller sees it: detached unless an outer level can differentiate it."""
        if (
            isinstance(t, Tensor)
            and t.requires_grad
            and not (self.outer_grad and _live(t, self.level))
        ):
            return t.detach()
        return t


def _leaf_live(t, level: int) -> bool:
    entry = _owner.get(id(t))
    return entry is None or entry[0]() is not t or entry[1] < level


def _live(t, level: int) -> bool:
    """Whether ``t``'s graph reaches a leaf that a level below ``level`` (or plain autograd) owns."""
    if t.grad_fn is None:
        return t.requires_grad and _leaf_live(t, level)
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if _leaf_live(node.variable, level):
                return True
            continue
        stack.extend(fn for fn, _ in node.next_functions)
    return False


def _grad_or_none(outputs, inputs, grad_outputs, create_graph: bool, retain_graph=None):
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs or not inputs:
        return [None] * len(inputs)
    return list(_autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
                               create_graph=create_graph, retain_graph=retain_graph))  # fmt: skip


def _zeros_for_none(grads, refs):
    return [r.new_zeros(r.shape) if g is None else g for g, r in zip(grads, refs)]


# ---- argnums ------------------------------------------------------------------------------------


def _check_argnums(argnums, nargs: int) -> tuple:
    if isinstance(argnums, int):
        nums = (argnums,)
    elif isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        nums = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")  # noqa: TRY004 (PyTorch's type)
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")  # noqa: TRY004 (PyTorch's type)
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    normal = tuple(a % nargs for a in nums)
    if len(set(normal)) != len(normal):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return normal


def _diff_args(args: tuple, argnums):
    """The differentiated arguments: one pytree for an int ``argnums``, a tuple for a tuple."""
    nums = _check_argnums(argnums, len(args))
    return nums, (args[nums[0]] if isinstance(argnums, int) else tuple(args[i] for i in nums))


def _replace_args(args: tuple, nums: tuple, argnums, diff) -> tuple:
    new = list(args)
    for i, v in zip(nums, (diff,) if isinstance(argnums, int) else diff):
        new[i] = v
    return tuple(new)


def _split_aux(output, has_aux: bool, api: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return output


def _unwrap_aux(lvl: _Level, aux):
    leaves, spec = tree_flatten(aux)
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")  # noqa: TRY004 (PyTorch's type)
    return tree_unflatten([lvl.unwrap(x) for x in leaves], spec)


# ---- grad ---------------------------------------------------------------------------------------


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """``func``'s gradient with respect to ``args[argnums]`` and its value: ``(grad, value)``,
    or ``((grad, (value, aux))`` with ``has_aux``. ``func`` must return a 0-d tensor."""

    def wrapper(*args, **kwargs):
        api = "grad_and_value(f)(*args)"
        with _Level() as lvl:
            nums, diff = _diff_args(args, argnums)
            leaves, spec = tree_flatten(diff)
            inputs = [lvl.fresh(x) for x in leaves]
            output = func(
                *_replace_args(args, nums, argnums, tree_unflatten(inputs, spec)), **kwargs
            )
            output, aux = _split_aux(output, has_aux, api)
            if not isinstance(output, Tensor):
                raise RuntimeError(  # noqa: TRY004 (PyTorch's type)
                    f"{api}: Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with {output.dim()} dims. "
                    "Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            create = lvl.outer_grad and _live(output, lvl.level)
            grads = _grad_or_none([output], inputs, [None], create)
            grads = [lvl.unwrap(g) for g in _zeros_for_none(grads, inputs)]
            value = lvl.unwrap(output)
            result = tree_unflatten(grads, spec)
            return (result, (value, _unwrap_aux(lvl, aux))) if has_aux else (result, value)

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """``func``'s gradient with respect to ``args[argnums]`` (``(grad, aux)`` with ``has_aux``)."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


# ---- vjp ----------------------------------------------------------------------------------------


def _check_outputs(flat, api: str, what: str) -> None:
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(  # noqa: TRY004 (PyTorch's type)
                f"{api}: expected {what} to return only tensors, got unsupported type {type(o)}"
            )


def vjp(func, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)`` (plus ``aux``): ``vjp_fn(cotangents)`` returns one gradient
    pytree per primal and can be called any number of times."""
    api = "vjp(f, *primals)"
    with _Level() as lvl:
        leaves, in_spec = tree_flatten(primals)
        inputs = [lvl.fresh(x) for x in leaves]
        output = func(*tree_unflatten(inputs, in_spec))
        output, aux = _split_aux(output, has_aux, api)
        outs, out_spec = tree_flatten(output)
        _check_outputs(outs, api, "f(*primals)")
        for o in outs:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError(
                    "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with "
                    f"dtype {o.dtype}"
                )
        result = tree_unflatten([lvl.unwrap(o) for o in outs], out_spec)
        outs_live = any(_live(o, lvl.level) for o in outs if o.requires_grad)
        aux = _unwrap_aux(lvl, aux) if has_aux else None

    def vjp_fn(cotangents, *, retain_graph: bool = True, create_graph=None):
        cts, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs to the "
                f"function. cotangents: {treespec_pprint(ct_spec)}, primal output: {treespec_pprint(out_spec)}"
            )
        for i, (c, o) in enumerate(zip(cts, outs)):
            if not isinstance(c, Tensor):
                raise RuntimeError(f"Expected tensors, got unsupported type {type(c)}")  # noqa: TRY004 (PyTorch's type)
            if c.shape != o.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and output[{i}] has a shape of "
                    f"{o.shape}."
                )
        outer = is_grad_enabled()
        with enable_grad():
            create = (
                create_graph
                if create_graph is not None
                else outer and (outs_live or any(c.requires_grad for c in cts))
            )
            grads = _zeros_for_none(
                _grad_or_none(outs, inputs, cts, bool(create), retain_graph=True), inputs
            )
        if not create:
            grads = [g.detach() for g in grads]
        elif outer:
            grads = [g if _live(g, lvl.level) else g.detach() for g in grads]
        return tree_unflatten(grads, in_spec)

    return (result, vjp_fn, aux) if has_aux else (result, vjp_fn)


# ---- forward-mode products through the double-VJP trick -----------------------------------------


class _Linearized:
    """``func`` run once at fresh primals, with ``g(u) = J^T u`` recorded for dummy cotangents
    ``u``; ``apply(tangents)`` returns ``J t`` for each output."""

    def __init__(self, lvl: _Level, func, primals: tuple, has_aux: bool, api: str, what: str):
        self.lvl = lvl
        leaves, self.in_spec = tree_flatten(primals)
        for p in leaves:
            if isinstance(p, Tensor) and not (p.is_floating_point() or p.is_complex()):
                raise ValueError(
                    f"Expected primal to be floating point or complex, but got: {p.dtype}"
                )
        self.inputs = [lvl.fresh(x) for x in leaves]
        output = func(*tree_unflatten(self.inputs, self.in_spec))
        output, aux = _split_aux(output, has_aux, api)
        self.outs, self.out_spec = tree_flatten(output)
        _check_outputs(self.outs, api, what)
        self.aux = aux
        self.diff = [
            o for o in self.outs if o.requires_grad and (o.is_floating_point() or o.is_complex())
        ]
        self.us = [lvl.fresh(o.new_zeros(o.shape), owned=True) for o in self.diff]
        self.gs = _grad_or_none(self.diff, self.inputs, self.us, True, retain_graph=True)
        self.gs_live = any(g is not None and _live(g, lvl.level) for g in self.gs)

    def apply(self, tangents: list) -> list:
        outer = self.lvl.outer_grad and is_grad_enabled()
        with enable_grad():
            pairs = [(g, t) for g, t in zip(self.gs, tangents) if g is not None and g.requires_grad]
            create = outer and (self.gs_live or any(t.requires_grad for t in tangents))
            if pairs and self.us:
                res = _autograd_grad([g for g, _ in pairs], self.us, [t for _, t in pairs], allow_unused=True,
                                     retain_graph=True, create_graph=create)  # fmt: skip
            else:
                res = [None] * len(self.us)
        by_out = {id(o): r for o, r in zip(self.diff, res)}
        out = []
        for o in self.outs:
            r = by_out.get(id(o))
            r = o.new_zeros(o.shape) if r is None else r
            out.append(r if create and _live(r, self.lvl.level) else r.detach())
        return out

    def primal_output(self):
        return tree_unflatten([self.lvl.unwrap(o) for o in self.outs], self.out_spec)


def _check_tangent_shapes(tangents, inputs) -> None:
    for t, p in zip(tangents, inputs):
        if not isinstance(t, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")  # noqa: TRY004 (PyTorch's type)
        if t.shape != p.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, this "
                f"is not supported. Tensor is of size {list(p.shape)} while the given forward gradient is of size "
                f"{list(t.shape)}."
            )


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J @ tangents)`` (plus ``aux``)."""
    api = "jvp(f, primals, tangents)"
    for name, v in (("primals", primals), ("tangents", tangents)):
        if not isinstance(v, tuple):
            raise RuntimeError(  # noqa: TRY004 (PyTorch's type)
                f"{api}: Expected {name} to be a tuple. E.g. it should be valid to call f(*primals)."
            )
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For example, if primals is a "
            f"tuple of 3 tensors, tangents also must be. Got primals with structure {p_spec!r} and tangents with "
            f"structure {t_spec!r}"
        )
    _check_tangent_shapes(t_leaves, p_leaves)
    with _Level() as lvl:
        lin = _Linearized(lvl, func, primals, has_aux, api, "f(*primals)")
        tangent_out = tree_unflatten(lin.apply(t_leaves), lin.out_spec)
        result = (lin.primal_output(), tangent_out)
        return (*result, _unwrap_aux(lvl, lin.aux)) if has_aux else result


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` evaluates ``J @ tangents`` at the primals."""
    with _Level() as lvl:
        lin = _Linearized(lvl, func, primals, False, "linearize", "f(*primals)")
        output = lin.primal_output()

    def jvp_fn(*tangents):
        leaves, spec = tree_flatten(tangents)
        if spec != lin.in_spec:
            raise RuntimeError(
                f"Expected the tangents {spec!r} to have the same argspec as the primals {lin.in_spec!r}"
            )
        for i, (t, p) in enumerate(zip(leaves, lin.inputs)):
            if t.shape != p.shape:
                raise RuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the shape {p.shape} of "
                    "the corresponding primal."
                )
        return tree_unflatten(lin.apply(leaves), lin.out_spec)

    return output, jvp_fn


# ---- Jacobians ----------------------------------------------------------------------------------


def _one_hot(ref: Tensor, k: int) -> Tensor:
    e = ref.new_zeros(ref.numel())
    e[k] = 1
    return e.view(ref.shape)


def _assemble(jac, outs, out_spec, in_leaves, in_spec, argnums):
    """Jacobian blocks ``jac[i][j]`` (output leaf i, input leaf j) in PyTorch's nesting: the output's
    structure outside, then the ``argnums`` structure, then the argument's own structure."""
    per_out = []
    for i in range(len(outs)):
        blocks = tree_unflatten(jac[i], in_spec)
        per_out.append(blocks[0] if isinstance(argnums, int) else blocks)
    return tree_unflatten(per_out, out_spec)


def _check_chunk(chunk_size, name: str) -> None:
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"{name}: `chunk_size` should be greater than 0.")


def jacrev(
    func, argnums=0, *, has_aux: bool = False, chunk_size=None, _preallocate_and_copy: bool = False
):
    """The Jacobian by reverse mode: one VJP per output element (``chunk_size`` only validated)."""
    _check_chunk(chunk_size, "jacrev")

    def wrapper(*args, **kwargs):
        from ..ops.shape.copies import stack

        nums, diff = _diff_args(args, argnums)
        diff = (diff,) if isinstance(argnums, int) else diff

        def f(*d):
            return func(
                *_replace_args(args, nums, argnums, d[0] if isinstance(argnums, int) else d),
                **kwargs,
            )

        res = vjp(f, *diff, has_aux=has_aux)
        output, vjp_fn = res[0], res[1]
        outs, out_spec = tree_flatten(output)
        in_leaves, in_spec = tree_flatten(diff)
        jac = []
        for i, o in enumerate(outs):
            rows = []
            for k in range(o.numel()):
                cts = [
                    _one_hot(o, k) if j == i else q.new_zeros(q.shape) for j, q in enumerate(outs)
                ]
                rows.append(tree_flatten(vjp_fn(tree_unflatten(cts, out_spec)))[0])
            jac.append([
                stack([r[j] for r in rows]).view(o.shape + x.shape) if rows else x.new_zeros(o.shape + x.shape)
                for j, x in enumerate(in_leaves)
            ])  # fmt: skip
        result = _assemble(jac, outs, out_spec, in_leaves, in_spec, argnums)
        return (result, res[2]) if has_aux else result

    return wrapper


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """The Jacobian by forward products: one JVP per input element."""

    def wrapper(*args, **kwargs):
        from ..ops.shape.copies import stack

        nums, diff = _diff_args(args, argnums)
        diff = (diff,) if isinstance(argnums, int) else diff

        def f(*d):
            return func(
                *_replace_args(args, nums, argnums, d[0] if isinstance(argnums, int) else d),
                **kwargs,
            )

        # PyTorch runs f under vmap over the basis, so a random op in f meets vmap's randomness rule.
        check_randomness(randomness)
        state = _rng_state() if randomness == "error" else None
        with _Level() as lvl:
            lin = _Linearized(lvl, f, diff, has_aux, "jvp(f, primals, tangents)", "f(*primals)")
            if state is not None and not np.array_equal(state, _rng_state()):
                raise RuntimeError(RANDOM_ERROR)
            cols = []  # cols[j]: for each element of input j, the list of output tangents
            for j, x in enumerate(lin.inputs):
                cols.append([
                    lin.apply([_one_hot(x, k) if m == j else y.new_zeros(y.shape) for m, y in enumerate(lin.inputs)])
                    for k in range(x.numel())
                ])  # fmt: skip
            jac = [
                [stack([c[i] for c in cols[j]], dim=o.dim()).view(o.shape + x.shape) if cols[j]
                 else o.new_zeros(o.shape + x.shape) for j, x in enumerate(lin.inputs)]
                for i, o in enumerate(lin.outs)
            ]  # fmt: skip
            result = _assemble(jac, lin.outs, lin.out_spec, lin.inputs, lin.in_spec, argnums)
            return (result, _unwrap_aux(lvl, lin.aux)) if has_aux else result

    return wrapper


def hessian(func, argnums=0):
    """``jacfwd(jacrev(func, argnums), argnums)``, as PyTorch defines it."""
    return jacfwd(jacrev(func, argnums), argnums)
