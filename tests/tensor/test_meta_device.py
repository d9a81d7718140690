"""The meta device against PyTorch: shapes, dtypes and strides without data, reprs, errors, modules
built on it (drawing nothing from the generator) and ``to_empty``."""

import pytest

import taimatsu as tm

CASES = {
    "repr": "T.empty(2, 3, device='meta')",
    "repr_int64": "T.empty(2, 3, device='meta', dtype=T.int64)",
    "repr_empty": "T.empty(0, device='meta')",
    "repr_0d": "T.tensor(3., device='meta')",
    "repr_grad": "T.zeros(2, dtype=T.float64, device='meta', requires_grad=True)",
    "repr_grad_fn": "T.randn(2, device='meta', requires_grad=True).sum()",
    "parameter": "T.nn.Linear(3, 2, device='meta').weight",
    "item_one": "T.empty(1, device='meta').item()",
    "item_many": "T.empty(2, 3, device='meta').item()",
    "float": "float(T.empty((), device='meta'))",
    "numpy": "T.empty(2, device='meta').numpy()",
    "cpu": "T.empty(2, device='meta').cpu()",
    "to_cpu": "T.empty(2, device='meta').to('cpu')",
    "tolist": "T.empty(2, device='meta').tolist()",
    "is_shared": "T.empty(2, device='meta').is_shared()",
    "data_ptr": "T.empty(2, device='meta').data_ptr()",
    "is_meta": "(T.empty(2, device='meta').is_meta, T.empty(2).is_meta)",
    "t_stride": "T.empty(2, 3, device='meta').t().stride()",
    "offset": "T.empty(2, 3, device='meta')[1].storage_offset()",
    "zero_": "T.empty(2, 3, device='meta').zero_()",
    "uniform_": "T.empty(2, 3, device='meta').uniform_()",
    "fill_bad": "T.empty(2, 3, device='meta').fill_(T.ones(3))",
    "to_meta": "T.ones(2, 3).to('meta')",
    "to_meta_stride": "T.ones(2, 3).t().to('meta').stride()",
    "matmul": "T.randn(2, 3, device='meta') @ T.ones(3, 4, device='meta')",
    "eq": "T.empty(2, 3, device='meta') == T.empty(2, 3, device='meta')",
    "to_dtype": "T.empty(2, 3, device='meta').to(T.float64)",
    "clone": "T.empty(2, 3, device='meta').clone()",
    "zeros_like": "T.zeros_like(T.empty(2, 3, device='meta'))",
    "empty_like_cpu": "T.empty_like(T.empty(2, 3, device='meta'), device='cpu').shape",
    "huge": "T.empty(10**6, 10**6, device='meta').shape",
    "randint": "T.randint(0, 5, (3,), device='meta')",
    "arange": "T.arange(5, device='meta')",
    "full": "T.full((2,), 3, device='meta')",
    "view": "T.empty(2, 3, device='meta').view(3, 2).stride()",
    "reshape": "T.empty(2, 3, device='meta').reshape(-1)",
    "meta_plus_cpu": "T.empty(2, 3, device='meta') + T.ones(2, 3)",
    "cpu_plus_meta": "T.ones(2, 3) + T.empty(2, 3, device='meta')",
    "meta_plus_cpu_scalar": "T.empty(2, 3, device='meta') + T.tensor(2.0)",
    "copy_into": "T.empty(2, 3, device='meta').copy_(T.ones(3))",
    "copy_into_bad": "T.empty(2, 3, device='meta').copy_(T.ones(4))",
    "copy_out_of": "T.ones(3).copy_(T.empty(3, device='meta'))",
    "storage": "T.empty(2, 3, device='meta').untyped_storage()",
    "storage_new": "T.UntypedStorage(4, device='meta')",
    "storage_tolist": "T.empty(2, device='meta').untyped_storage().tolist()",
    "storage_item": "T.empty(2, device='meta').untyped_storage()[0]",
    "storage_facts": "(lambda s: (s.is_shared(), s.data_ptr(), s.nbytes(), s.device))("
    "T.empty(2, 3, device='meta').untyped_storage())",
    "storage_cpu": "T.empty(2, device='meta').untyped_storage().cpu()",
    "storage_clone": "T.empty(2, device='meta').untyped_storage().clone()",
    "storage_fill": "T.empty(2, device='meta').untyped_storage().fill_(1)",
    "conv2d": "T.nn.functional.conv2d(T.randn(1, 1, 4, 4, device='meta'), "
    "T.randn(2, 1, 3, 3, device='meta'))",
}


def _outcome(T, expr: str):
    try:
        return repr(eval(expr, {"T": T}))
    except Exception as e:  # noqa: BLE001 - the exception is the answer compared
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("expr", CASES.values(), ids=CASES.keys())
def test_meta_matches_torch(torch_oracle, expr):
    assert _outcome(tm, expr) == _outcome(torch_oracle, expr)


def _built_on_meta(T):
    T.manual_seed(0)
    with T.device("meta"):
        modules = (T.nn.Linear(2, 3), T.nn.BatchNorm1d(3), T.nn.Embedding(4, 2, padding_idx=0))
        inner = T.tensor([1.0]).device.type
        with T.device("cpu"):
            nested = T.ones(1).device.type
    tensors = [t for m in modules for t in (*m.parameters(), *m.buffers())]
    summary = [(t.device.type, tuple(t.shape), str(t.dtype)) for t in tensors]
    draw = T.rand(1).item()  # nothing was drawn on the meta device
    linear = modules[0].to_empty(device="cpu")
    return (
        summary,
        inner,
        nested,
        T.ones(1).device.type,
        draw,
        (linear.weight.device.type, type(linear.weight).__name__, linear.weight.requires_grad),
    )


def test_modules_built_on_meta_then_to_empty(torch_oracle):
    assert _built_on_meta(tm) == _built_on_meta(torch_oracle)


def _load_state_dicts(T):
    import warnings

    T.manual_seed(0)
    src = T.nn.Linear(2, 3)
    into_meta = T.nn.Linear(2, 3, device="meta")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        keys = into_meta.load_state_dict(src.state_dict())
    assigned = T.nn.Linear(2, 3, device="meta")
    assigned.load_state_dict(src.state_dict(), assign=True)
    try:
        T.nn.Linear(2, 3).load_state_dict(into_meta.state_dict())
        from_meta = "loaded"
    except RuntimeError as e:
        from_meta = str(e)
    return (
        repr(keys),
        into_meta.weight.device.type,
        [str(w.message) for w in caught],
        (assigned.weight.device.type, type(assigned.weight).__name__),
        T.equal(assigned.weight, src.weight),
        from_meta,
    )


def test_load_state_dict_with_meta_modules(torch_oracle):
    assert _load_state_dicts(tm) == _load_state_dicts(torch_oracle)


def test_save_and_load_meta_tensors_both_ways(torch_oracle, tmp_path):
    """A meta tensor is saved without data (torch._utils._rebuild_meta_tensor_no_storage)."""

    def sample(T):
        return {
            "m": T.empty(2, 3, device="meta", dtype=T.int64).t(),
            "p": T.nn.Parameter(T.empty(2, device="meta")),
            "x": T.ones(2),
        }

    def summary(d):
        return {k: (repr(v), v.stride()) for k, v in d.items()}

    for writer, reader in ((tm, torch_oracle), (torch_oracle, tm), (tm, tm)):
        writer.save(sample(writer), tmp_path / "meta.pt")
        assert summary(reader.load(tmp_path / "meta.pt")) == summary(sample(torch_oracle))


def test_meta_tensor_through_a_multiprocessing_pickler(torch_oracle):
    from multiprocessing.reduction import ForkingPickler

    import torch.multiprocessing  # noqa: F401 - PyTorch's reducers

    got = []
    for T in (tm, torch_oracle):
        t = T.empty(2, 3, device="meta").t().requires_grad_()
        u = ForkingPickler.loads(ForkingPickler.dumps(t))
        got.append((repr(u), u.stride()))
    assert got[0] == got[1]


def _model_moved_to_meta(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3)).to("meta")
    y = model(T.randn(4, 2, device="meta"))
    y.sum().backward()
    return (
        [(k, v.device.type) for k, v in model.state_dict().items()],
        repr(y),
        repr(model[0].weight.grad),
    )


def test_a_model_moved_to_meta_runs_forward_and_backward(torch_oracle):
    assert _model_moved_to_meta(tm) == _model_moved_to_meta(torch_oracle)


def test_autograd_through_meta(torch_oracle):
    got = []
    for T in (tm, torch_oracle):
        x = T.randn(2, 2, device="meta", requires_grad=True)
        (x * 2).sum().backward()
        got.append(repr(x.grad))
    assert got[0] == got[1]


def _rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096


def test_meta_tensors_take_no_memory():
    before = _rss_bytes()
    big = tm.empty(10**5, 10**5, device="meta")  # 40 GB on the CPU
    layer = tm.nn.Linear(20_000, 20_000, device="meta")  # its init draws nothing, writes nothing
    view = big[10:].t()
    assert _rss_bytes() - before < 64 * 2**20
    assert view.shape == (10**5, 10**5 - 10) and layer.weight.is_meta
