"""Tensor.storage(), torch.TypedStorage and the legacy FloatStorage & co., against PyTorch."""

from __future__ import annotations

import warnings

import pytest
from oracle_expr import same

import taimatsu
from taimatsu import typed_storage

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


CASES = [
    # sharing memory: views, detach, clone
    "x = T.arange(4.); y = x.view(2, 2); x.storage().data_ptr() == y.storage().data_ptr()",
    "x = T.arange(4.); x[1:].storage().data_ptr() == x.storage().data_ptr(), x[1:].storage_offset()",
    "x = T.arange(4.); x.detach().storage().data_ptr() == x.storage().data_ptr()",
    "x = T.arange(4.); x.clone().storage().data_ptr() != x.storage().data_ptr()",
    "x = T.arange(4.); s = x.storage(); s[0] = 10.; s[-1] = 7; x",
    "x = T.arange(6).view(2, 3); s = x.storage(); s[1:3] = -1; x",
    "x = T.zeros(3); x.storage().fill_(2.5); x",
    "x = T.arange(4.); x.storage() is x.storage(), x.storage() == x.storage()",
    "x = T.arange(4.); x.storage()._untyped_storage is x.untyped_storage()",
    "x = T.arange(4.); x.storage().untyped() is x[2:].untyped_storage()",
    "a = np.arange(6, dtype=np.float32); t = T.from_numpy(a); t.storage().data_ptr() == a.ctypes.data",
    "x = T.arange(12.).view(3, 4); x.T.storage().size(), x[1].storage().size(), x[:, 1].storage()",
    "e = T.tensor([1., 2.]).expand(3, 2); e.storage().size(), e.storage()",
    "x = T.arange(12.).view(3, 4); x.T.contiguous().storage().data_ptr() == x.storage().data_ptr()",
    "T.tensor(5.).storage(), T.arange(4.)[::2].storage().size(), T.arange(4.).view(T.int32).storage()",
    "w = T.ones(3, requires_grad=True); w.storage().tolist(), (w * 2).storage()",
    # printing
    "str(T.arange(4.).storage())",
    "repr(T.tensor([1, 2]).storage())",
    "repr(T.tensor([True, False]).storage())",
    "repr(T.tensor([1 + 2j]).storage())",
    "repr(T.tensor([1.5, -0.25], dtype=T.float16).storage())",
    "repr(T.tensor([1.5], dtype=T.bfloat16).storage())",
    "repr(T.tensor([3], dtype=T.uint8).storage())",
    "repr(T.tensor([]).storage())",
    "repr(T.tensor([], dtype=T.int64).storage())",
    "repr(T.tensor([0.1, 1e-20, float('nan'), float('inf')], dtype=T.float64).storage())",
    # introspection
    "s = T.arange(4.).storage(); s.size(), len(s), s.tolist(), list(s), s.dtype, s.device",
    "s = T.arange(4.).storage(); s.element_size(), s.nbytes(), s.is_shared(), s.is_cuda",
    "s = T.arange(4.).storage(); s.get_device(), s.is_pinned(), s.is_sparse",
    "s = T.arange(4.).storage(); type(s.untyped()).__name__, s.untyped().nbytes()",
    (
        "[T.tensor([1], dtype=d).storage().type() for d in (T.float32, T.float64, T.float16,"
        " T.bfloat16, T.int64, T.int32, T.int16, T.int8, T.uint8, T.bool, T.complex64,"
        " T.complex128, T.uint16)]"
    ),
    "[T.tensor([1], dtype=d).storage().pickle_storage_type() for d in (T.float64, T.uint8, T.bool)]",
    "T.tensor([1], dtype=T.uint16).storage().pickle_storage_type()",
    "s = T.tensor([1, 2, 3], dtype=T.int8).storage(); s[0], s[-1], type(s[1]).__name__",
    "s = T.tensor([True]).storage(); s[0], type(s[0]).__name__",
    "s = T.tensor([1.5 + 2j]).storage(); s[0]",
    "s = T.arange(4.).view(2, 2).t().storage(); s.tolist()",
    # indexing errors
    "T.arange(4.).storage()[4]",
    "T.arange(4.).storage()[-5]",
    "T.arange(4.).storage()['a']",
    "T.arange(4.).storage()[1.0]",
    "T.arange(4.).storage()[True]",
    "T.arange(4.).storage()[1:3]",
    "T.arange(4.).storage()[np.int64(1)]",
    "s = T.arange(4.).storage(); s[0] = 'a'",
    "s = T.arange(4.).storage(); s[4] = 1.",
    "s = T.arange(4.).storage(); s['a'] = 1.",
    "s = T.arange(4.).storage(); s[0] = s",
    "s = T.arange(4.).storage(); s[0] = T.arange(4.).untyped_storage()",
    "T.tensor([], device='meta').storage()[0]",
    # copies and casts
    "x = T.arange(4.); s = x.storage().clone(); s[0] = 9.; x, s.tolist()",
    "x = T.arange(4.); s = x.storage().cpu(); s.data_ptr() == x.data_ptr()",
    "s = T.arange(4.).storage(); [s.double().tolist(), s.long().dtype, s.int().type(), s.bool().tolist()]",
    "s = T.arange(4.).storage(); d = s.float(); d.data_ptr() != s.data_ptr()",
    "s = T.tensor([1.7, -2.2]).storage(); s.byte().tolist(), s.half().tolist(), s.complex_float().tolist()",
    "a = T.zeros(2).storage(); a.copy_(T.tensor([1., 2.]).storage()); a.tolist()",
    "a = T.zeros(2).storage(); a.copy_(T.zeros(3).storage())",
    "import copy; s = T.arange(3.).storage(); c = copy.deepcopy(s); c[0] = 5.; s.tolist(), c.tolist()",
    "s = T.arange(3.).storage(); s.type('torch.ByteStorage'), s.type(T.BoolStorage).tolist()",
    "s = T.arange(3.).storage(); s.type('torch.UntypedStorage') is s.type(T.UntypedStorage) is s.untyped()",
    "T.arange(3.).storage().type('torch.storage.UntypedStorage')",
    "T.arange(3.).storage().type(T.DoubleStorage)",
    "T.arange(3.).storage().type(T.TypedStorage)",
    "T.arange(3.).storage().type('torch.FooStorage')",
    "T.arange(3.).storage().type('torch.cuda.Foo')",
    "T.arange(3.).storage().type('foo.FloatStorage')",
    "T.arange(3.).storage().type(T.float64)",
    "T.arange(3.).storage().type(3)",
    "T.tensor([]).storage().type('torch.DoubleStorage')",
    # torch.tensor(storage) shares the memory
    "x = T.arange(4.); t = T.tensor(x.storage()); t[0] = 7.; x, t.data_ptr() == x.data_ptr()",
    "x = T.arange(4.)[2:]; T.tensor(x.storage())",
    "T.tensor(T.tensor([1, 2]).storage())",
    "T.tensor(T.tensor([1, 2]).storage(), dtype=T.int64)",
    "T.tensor(T.tensor([1, 2]).storage(), dtype=T.int32)",
    "T.tensor(T.tensor([1.]).storage(), dtype=T.bfloat16)",
    "x = T.tensor([1., 2.]); T.Tensor(x.storage()), T.Tensor(x.storage()).data_ptr() == x.data_ptr()",
    "x = T.tensor([1., 2.]); T.FloatTensor(x.storage()), x.new(x.storage()), T.Tensor(x.untyped_storage())",
    "T.LongTensor(T.tensor([1., 2.]).storage())",
    "x = T.tensor([1., 2.]); T.as_tensor(x.storage()).data_ptr() == x.data_ptr(), T.asarray(x.storage())",
    "T.as_tensor(T.tensor([1., 2.]).storage(), dtype=T.float64)",
    "T.asarray(T.tensor([1, 2]).storage())",
    # construction
    "T.TypedStorage(), T.TypedStorage(2, dtype=T.int32).size()",
    "T.TypedStorage([1, 2], dtype=T.float64)",
    "T.TypedStorage([[1, 2], [3, 4]], dtype=T.int16)",
    "T.TypedStorage((1.5,)).dtype",
    "T.TypedStorage(np.int64(3), dtype=T.int8).size()",
    "T.TypedStorage(1.5)",
    "T.TypedStorage(1, 2)",
    "T.TypedStorage(wrap_storage=T.arange(2.).untyped_storage())",
    "T.TypedStorage(wrap_storage=T.arange(2.).untyped_storage(), dtype='float')",
    "T.TypedStorage(wrap_storage=[1], dtype=T.float32)",
    "T.TypedStorage(1, wrap_storage=T.arange(2.).untyped_storage(), dtype=T.float32)",
    "T.TypedStorage(wrap_storage=T.arange(2.).untyped_storage(), dtype=T.float32, device='cpu')",
    "T.TypedStorage(wrap_storage=T.arange(2.).untyped_storage(), dtype=T.int32)",
    "T.TypedStorage(wrap_storage=T.arange(3, dtype=T.uint8).untyped_storage(), dtype=T.int16).size()",
    "T.TypedStorage(3, device='meta')",
    # from_buffer (a copy, in native byte order)
    "b = bytes([1, 0, 2, 0, 3, 0]); T.ByteStorage.from_buffer(b), T.ShortStorage.from_buffer(b, 'little')",
    "T.ShortStorage.from_buffer(bytes([1, 0, 2, 0, 3, 0]), 'big', count=2, offset=2)",
    "T.TypedStorage.from_buffer(bytes([1, 0, 2, 0]), 'little', dtype=T.int16)",
    "T.UntypedStorage.from_buffer(bytes([1, 0]), dtype=T.uint8), T.UntypedStorage.from_buffer(bytes([1, 0]), 'big', dtype=T.int16)",
    "T.TypedStorage.from_buffer(bytes(8), 'native'), T.DoubleStorage.from_buffer(bytearray(16), 'big', 1, 8)",
    "x = bytearray([1, 2]); s = T.ByteStorage.from_buffer(x); s[0] = 9; x[0], T.ByteTensor(s)",
    "T.ShortStorage.from_buffer(bytes(6))",
    "T.ShortStorage.from_buffer(bytes(3), 'little')",
    "T.UntypedStorage.from_buffer(bytes(6))",
    "T.ShortStorage.from_buffer(bytes(6), 'middle')",
    "T.ShortStorage.from_buffer(bytes(6), 'little', count=5)",
    "T.ShortStorage.from_buffer(bytes(6), 'little', count=2, offset=3)",
    "T.ShortStorage.from_buffer(bytes(6), 'little', offset=-1)",
    "T.ShortStorage.from_buffer(bytes(6), 'little', offset=6), T.ShortStorage.from_buffer(bytes(6), 'little', offset=7)",
    "T.ShortStorage.from_buffer('ab', 'little')",
    "T.FloatStorage.from_buffer(bytes(4), 'little', dtype=T.float32)",
    "T.FloatStorage.from_buffer(bytes(4), 'little', device='cpu')",
    "T.TypedStorage.from_buffer(bytes(8), 'big', device='meta')",
    "s = T.arange(3.).storage(); s.__sizeof__() - object.__sizeof__(s), s.is_pinned()",
    "T.arange(3.).storage().pin_memory()",
    "T.arange(3.).untyped_storage().pin_memory()",
    "T.UntypedStorage(2, device='meta').pin_memory()",
    # legacy classes
    "T.FloatStorage([1, 2])",
    "T.FloatStorage(3).size(), type(T.FloatStorage(3)).__name__",
    "T.FloatStorage().size(), T.LongStorage([1, 2]), T.BoolStorage([1, 0])",
    "T.DoubleStorage([1]).dtype, T.HalfStorage([1]).dtype, T.BFloat16Storage([1]).dtype",
    "T.IntStorage([1]).dtype, T.ShortStorage([1]).dtype, T.CharStorage([1]).dtype",
    "T.ByteStorage([1, 255]), T.ComplexFloatStorage([1j]).dtype, T.ComplexDoubleStorage([1j]).dtype",
    "T.FloatStorage.dtype, T.LongStorage.dtype, T.ByteStorage.dtype",
    "T.LongStorage(wrap_storage=T.arange(2).untyped_storage())",
    "T.FloatStorage(1.5)",
    "T.FloatStorage(1, 2)",
    "T.FloatStorage(2, dtype=T.float32)",
    "T.FloatStorage(2, device='cpu')",
    "T.FloatStorage([1], wrap_storage=T.arange(2.).untyped_storage())",
    "T.FloatStorage(wrap_storage=[1])",
    "T.FloatStorage(wrap_storage=T.UntypedStorage(4, device='meta'))",
    "T.storage._LegacyStorage() if hasattr(T.storage, '_LegacyStorage') else None",
    "T.cuda.LongStorage.dtype, T.cuda.FloatStorage.__name__",
    "T.cuda.FloatStorage(1.5)",
    "T.cuda.FloatStorage(wrap_storage=T.arange(2.).untyped_storage())",
    "isinstance(T.arange(2.).storage(), T.cuda.FloatStorage), issubclass(T.cuda.FloatStorage, T.TypedStorage)",
    # isinstance relations
    "s = T.arange(2.).storage(); isinstance(s, T.TypedStorage), isinstance(s, T.FloatStorage)",
    "s = T.arange(2.).storage(); isinstance(s, T.DoubleStorage), isinstance(s, T.UntypedStorage)",
    "s = T.arange(2).storage(); isinstance(s, T.LongStorage), isinstance(s, T.IntStorage)",
    "isinstance(T.FloatStorage(2), T.FloatStorage), isinstance(T.arange(2.), T.FloatStorage)",
    "isinstance(T.tensor([], device='meta').storage(), T.FloatStorage)",
    "issubclass(T.FloatStorage, T.TypedStorage), issubclass(T.TypedStorage, T.FloatStorage)",
    "isinstance(T.arange(2.).untyped_storage(), T.TypedStorage)",
    # is_storage, storage_type, is_set_to
    "T.is_storage(T.arange(2.).storage()), T.is_storage(T.arange(2.).untyped_storage())",
    "T.is_storage(T.arange(2.)), T.is_storage([1]), T.is_storage(T.FloatStorage)",
    "[T.tensor([1], dtype=d).storage_type().__name__ for d in (T.float32, T.int64, T.bool)]",
    "T.tensor([1], dtype=T.uint16).storage_type(), T.empty(2, device='meta').storage_type()",
    "x = T.arange(4.); x.is_set_to(x), x.is_set_to(x.view(2, 2)), x.is_set_to(x.detach())",
    "x = T.arange(4.); x.is_set_to(x[:]), x[1:].is_set_to(x[1:]), x.is_set_to(x.clone())",
    "e = T.tensor([]); e.is_set_to(T.tensor([])), e.is_set_to(e.view(0))",
    "y = T.arange(4.).view(2, 2); y.t().is_set_to(y.t()), y.t().is_set_to(y)",
    "x = T.arange(4.); x.view(T.int32).is_set_to(x), x.view(T.int16)[:4].is_set_to(x)",
    "x = T.arange(4.); x.to(T.int32).view(T.float32).is_set_to(x)",
    "T.arange(4.).is_set_to(1)",
    # torch.save / torch.load / pickle
    (
        "import io; x = T.arange(4.); b = io.BytesIO(); T.save({'s': x.storage(), 'x': x[1:]}, b);"
        " b.seek(0); d = T.load(b); d['s'], d['x'], isinstance(d['s'], T.FloatStorage),"
        " isinstance(d['s'], T.TypedStorage), d['s'].data_ptr() == d['x'].untyped_storage().data_ptr()"
    ),
    (
        "import io; b = io.BytesIO(); T.save(T.tensor([1, 2], dtype=T.int16).storage(), b);"
        " b.seek(0); s = T.load(b, weights_only=True); s, s.type(), s.size(), s.dtype"
    ),
    (
        "import io; b = io.BytesIO(); x = T.arange(3); T.save(x[1:].storage(), b,"
        " _use_new_zipfile_serialization=False); b.seek(0); s = T.load(b); s.tolist(), s[0]"
    ),
    "import io; T.save(T.tensor([1], dtype=T.uint16).storage(), io.BytesIO())",
    (
        "import pickle; s = T.arange(3.).storage(); p = pickle.loads(pickle.dumps(s)); p[0] = 5.;"
        " p, s.tolist(), p.data_ptr() != s.data_ptr()"
    ),
    (
        "import io; b = io.BytesIO(); T.save(T.arange(2.).storage(), b); b.seek(0);"
        " s = T.load(b); t = T.tensor(s); t[0] = 3.; s.tolist(), T.is_storage(s)"
    ),
    # Tensor.set_
    "x = T.arange(4.); y = T.tensor([]); y.set_(x.storage()), y.data_ptr() == x.data_ptr(), y._version",
    "x = T.arange(4.); y = T.tensor([]); y.set_(x.storage()); y.is_set_to(x)",
    "T.tensor([]).set_(T.arange(4.).storage(), 1, (2,))",
    "T.tensor([]).set_(T.arange(4.).untyped_storage(), 1, (2, 1), (1, 1))",
    "x = T.arange(4.); y = T.zeros(2); y.set_(x[1:]), y.storage_offset(), y.is_set_to(x[1:])",
    "T.zeros(2).set_().shape, T.zeros(2).set_(T.arange(4.), 1, (2,))",
    "T.zeros(2).set_(source=T.arange(4.), storage_offset=1, size=(2,))",
    "T.zeros(2).set_(T.arange(4.).storage(), storage_offset=1, size=(3,))",
    "T.zeros(2, dtype=T.int64).set_(T.arange(4.).storage())",
    "T.zeros(2, dtype=T.float16).set_(T.tensor([1], dtype=T.int32).storage())",
    "T.zeros(2, requires_grad=True).set_(T.arange(4.).storage())",
    "T.zeros(2).set_(T.arange(4.).storage(), 3, (2,))",
    "T.zeros(2).set_(T.arange(4.).storage(), 0, (2,), (3,))",
    "T.zeros(2).set_(1)",
    "T.zeros(2).set_(T.arange(4))",
    "T.zeros(2).set_(T.UntypedStorage(8, device='meta'))",
    "x = T.arange(4.); y = T.zeros(2); v = y.view(2); y.set_(x.storage()); y[0] = 5.; x, v, y",
    "x = T.arange(4.); b = T.zeros(4); w = b[1:]; w.set_(x.storage()); w.mul_(2); b, x, w",
    (
        "x = T.arange(4.)\nwith T.no_grad():\n    z = T.zeros(2, requires_grad=True);"
        " z.set_(x.storage())\nz, z.requires_grad, z.is_leaf"
    ),
    "T.UntypedStorage(-4)",
    "T.FloatStorage(-1)",
    "T.tensor([], device='meta').storage().tolist(), T.arange(2.).storage().filename",
    # meta
    "repr(T.empty(3, device='meta').storage())",
    "s = T.empty(3, device='meta').storage(); s.size(), s.nbytes(), s.data_ptr()",
]


@pytest.mark.parametrize("code", CASES)
def test_matches_pytorch(code):
    same(code, torch, taimatsu)


def _first_warning(module, code):
    """The (message, line) of the deprecation warnings ``code`` raises in a fresh state."""
    reset = (
        torch.storage._reset_warn_typed_storage_removal
        if module is torch
        else typed_storage._reset_warn_typed_storage_removal
    )
    reset()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        exec(compile(code, "<user>", "exec"), {"T": module})  # noqa: S102 - the user's program
    return [(str(w.message), w.category, w.filename, w.lineno) for w in seen]


@pytest.mark.parametrize(
    "code",
    [
        "x = T.arange(4.)\ns = x.storage()\ns[0] = 1.\nprint(s)",
        "x = T.arange(4.)\ns = x.untyped_storage()\nt = T.FloatStorage(2)",
        "s = T.TypedStorage(2)\nn = s.size()",
        "d = T.FloatStorage.dtype",
        "x = T.arange(4.)\ns = x.untyped_storage()\nt = T.TypedStorage(wrap_storage=s, dtype=T.float32)",
    ],
)
def test_deprecation_warning_once_at_user_line(code):
    want = _first_warning(torch, code)
    assert len(want) == 1
    assert _first_warning(taimatsu, code) == want


def test_loading_tensors_does_not_warn():
    code = (
        "import io\nb = io.BytesIO()\nT.save({'x': T.arange(3.)}, b)\nb.seek(0)\nd = T.load(b)\n"
        "b.seek(0)\nd = T.load(b, weights_only=True)\nu = T.arange(2.).untyped_storage()"
    )
    assert _first_warning(torch, code) == [] == _first_warning(taimatsu, code)


def test_always_warn_warns_each_use():
    taimatsu.storage._set_always_warn_typed_storage_removal(True)
    try:
        seen = _first_warning(taimatsu, "x = T.arange(2.)\ns = x.storage()\nn = s.size()")
    finally:
        taimatsu.storage._set_always_warn_typed_storage_removal(False)
    assert [w[3] for w in seen] == [2, 3]
    with pytest.raises(AssertionError, match="always_warn must be bool, got int"):
        taimatsu.storage._set_always_warn_typed_storage_removal(1)


def test_torch_storage_module_names():
    assert taimatsu.storage.TypedStorage is taimatsu.TypedStorage
    assert taimatsu.storage._LegacyStorage is typed_storage._LegacyStorage
    assert repr(taimatsu.FloatStorage) == "<class 'taimatsu.FloatStorage'>"


def test_storage_type_is_the_legacy_class():
    assert taimatsu.arange(2.0).storage_type() is taimatsu.FloatStorage
    assert taimatsu.tensor([1], dtype=taimatsu.int8).storage_type() is taimatsu.CharStorage


@pytest.mark.parametrize("loaded", [False, True])
def test_forking_pickler_shares_typed_storages(loaded):
    """A TypedStorage sent to another process (as multiprocessing queues pickle it) shares its
    memory with the sender's, as in PyTorch; so does a storage that torch.load returned."""
    import io
    import pickle
    from multiprocessing.reduction import ForkingPickler

    def roundtrip(module):
        s = module.arange(3.0).storage()
        if loaded:
            buffer = io.BytesIO()
            module.save(s, buffer)
            buffer.seek(0)
            s = module.load(buffer)
        p = pickle.loads(ForkingPickler.dumps(s))
        p[0] = 7.0
        return type(p).__name__, p.dtype, s.tolist(), p.tolist(), s.is_shared(), p.is_shared()

    want, got = roundtrip(torch), roundtrip(taimatsu)
    assert repr(got) == repr(want)
