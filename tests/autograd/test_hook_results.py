"""What backward hooks and custom Functions may hand back to the engine, and the errors for
what they may not (taimatsu/autograd/hook_results.py, autograd/function.py,
nn/modules/_hooks.py), against PyTorch: the same value, or the same exception and text."""

import warnings

import pytest

import taimatsu


def _leaf_size(T):
    x = T.ones(2, requires_grad=True)
    x.register_hook(lambda g: T.ones(3))
    (x * 2).sum().backward()
    return x.grad


def _nonleaf_dtype(T):
    y = T.ones(2, requires_grad=True)
    z = y * 2
    z.register_hook(lambda g: T.ones(2, dtype=T.float64))
    z.sum().backward()
    return y.grad


def _not_a_tensor(T):
    z = T.ones(2, requires_grad=True) * 2
    z.register_hook(lambda g: 5)
    z.sum().backward()


def _callable_object(T):
    class Hook:
        def __call__(self, g):
            return T.ones(3)

    z = T.ones(2, requires_grad=True) * 2
    z.register_hook(Hook())
    z.sum().backward()


def _sparse_result(T):
    z = T.ones(2, requires_grad=True) * 2
    z.register_hook(lambda g: g.to_sparse())
    z.sum().backward()


def _replaced(T):
    x = T.ones(2, requires_grad=True)
    z = x * 2
    z.register_hook(lambda g: g * 3)
    z.sum().backward()
    return x.grad


def _node_hook_count(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (T.ones(3),))
    y.sum().backward()


def _node_prehook_dtype(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (T.ones(2, dtype=T.float64),))
    y.sum().backward()


def _node_hook_list(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: [T.ones(2), None])
    y.sum().backward()


def _node_hook_none_replaced(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (T.ones(2), T.ones(2)))
    y.sum().backward()


def _node_hook_scaled(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 3, None))
    y.sum().backward()
    return x.grad


def _module_hook_size(T):
    m = T.nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: (T.ones(3),))
    m(T.ones(1, 2, requires_grad=True)).sum().backward()


def _module_pre_hook_size(T):
    m = T.nn.Linear(2, 2)
    m.register_full_backward_pre_hook(lambda mod, go: (T.ones(5),))
    m(T.ones(1, 2, requires_grad=True)).sum().backward()


def _module_hook_scaled(T):
    m = T.nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 2,))
    x = T.ones(1, 2, requires_grad=True)
    m(x).sum().backward()
    return x.grad.shape


def _legacy_module_hook_size(T):
    m = T.nn.Linear(2, 2)

    def my_hook(mod, gi, go):
        return tuple(None if g is None else T.ones(7) for g in gi)

    m.register_backward_hook(my_hook)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m(T.ones(1, 2, requires_grad=True)).sum().backward()


def _saving_a_number(T):
    class BadSave(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    return BadSave


def _function_saves_a_number(T):
    _saving_a_number(T).apply(T.ones(1, requires_grad=True))


def _function_saves_a_number_without_grad(T):
    return _saving_a_number(T).apply(T.ones(1))  # nothing is saved: no error


def _function_gradient_for_a_number(T):
    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, factor):
            return x * factor

        @staticmethod
        def backward(ctx, g):
            return g * 2, T.ones(1)

    a = T.ones(2, requires_grad=True)
    Scale.apply(a, 2.0).sum().backward()


def _function_gradient_for_a_constant_tensor(T):
    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g * 2, T.ones(1)

    a = T.ones(2, requires_grad=True)
    Scale.apply(a, T.ones(1)).sum().backward()
    return a.grad


CASES = [
    _leaf_size, _nonleaf_dtype, _not_a_tensor, _callable_object, _sparse_result, _replaced,
    _node_hook_count, _node_prehook_dtype, _node_hook_list, _node_hook_none_replaced,
    _node_hook_scaled, _module_hook_size, _module_pre_hook_size, _module_hook_scaled,
    _legacy_module_hook_size, _function_saves_a_number, _function_saves_a_number_without_grad,
    _function_gradient_for_a_number, _function_gradient_for_a_constant_tensor,
]  # fmt: skip


def _outcome(case, T):
    try:
        return "value", repr(case(T))
    except Exception as e:  # noqa: BLE001  the exception is the result compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__.strip("_"))
def test_like_pytorch(torch_oracle, case):
    assert _outcome(case, taimatsu) == _outcome(case, torch_oracle)


def test_full_backward_hook_without_input_gradients_warns(torch_oracle):
    # the hook still runs, with None for the inputs' gradients; the warning names the user's line
    seen = {}
    for T in (torch_oracle, taimatsu):
        m = T.nn.Linear(2, 2)
        calls = []
        m.register_full_backward_hook(lambda mod, gi, go, calls=calls: calls.append(gi))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m(T.ones(1, 2)).sum().backward()
        seen[T] = (calls, [(w.category, str(w.message), w.filename) for w in caught])
    assert seen[taimatsu] == seen[torch_oracle]
    assert seen[taimatsu][1] and seen[taimatsu][1][0][2] == __file__


@pytest.mark.parametrize(
    "expr",
    [
        "T.Tensor", "type(T.ones(1))", "type(T.Size([1]))", "type(T.float32)", "type(T.device('cpu'))",
        "type(T.ones(1, requires_grad=True).exp().grad_fn)",
        "type((T.ones(1, requires_grad=True) * 1).grad_fn.next_functions[0][0])",
        "type(T.nn.Parameter(T.ones(1)))",
    ],
)  # fmt: skip
def test_type_reprs(torch_oracle, expr):
    # the forward-hook tutorial prints type(input[0]): taimatsu's public module where PyTorch's is
    ours = repr(eval(expr, {"T": taimatsu}))
    assert ours == repr(eval(expr, {"T": torch_oracle})).replace("torch", "taimatsu")
