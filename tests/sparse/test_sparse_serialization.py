"""Sparse tensors through torch.save / torch.load (PyTorch's record: torch._utils.
_rebuild_sparse_tensor, allowed under weights_only) in both directions, and through pickle."""

import io
import pickle
import warnings

import pytest

import taimatsu as tm

torch = pytest.importorskip("torch")
warnings.filterwarnings("ignore", message="Sparse (invariant checks|CSR tensor support)")


def tensors(lib):
    s = lib.sparse_coo_tensor(
        lib.tensor([[0, 1, 1, 0], [2, 0, 2, 2]]), lib.tensor([3.0, 4, 5, -1.5]), (2, 3)
    )
    hybrid = lib.sparse_coo_tensor(lib.tensor([[0, 3]]), lib.tensor([[1.0, 2], [3, 4]]), (4, 2))
    return {"coo": s, "coalesced": s.coalesce(), "csr": s.to_sparse_csr(), "hybrid": hybrid.double(),
            "dense": lib.arange(3)}  # fmt: skip


@pytest.mark.parametrize("save_lib, load_lib", [("tm", "torch"), ("torch", "tm"), ("tm", "tm")])
def test_save_load_round_trip_matches_torch(save_lib, load_lib):
    libs = {"tm": tm, "torch": torch}
    buf = io.BytesIO()
    libs[save_lib].save(tensors(libs[save_lib]), buf)
    buf.seek(0)
    loaded = libs[load_lib].load(buf)  # weights_only (the default) must accept the record
    want = tensors(libs[load_lib])
    assert {k: repr(v) for k, v in loaded.items()} == {k: repr(v) for k, v in want.items()}
    for k in ("coo", "coalesced", "hybrid"):
        assert loaded[k].is_coalesced() == want[k].is_coalesced()


def test_pickle_round_trip():
    for name, t in tensors(tm).items():
        back = pickle.loads(pickle.dumps(t))
        assert repr(back) == repr(t), name
        if name in ("coo", "coalesced"):
            assert back.is_coalesced() == t.is_coalesced()


@pytest.mark.parametrize("layout", ["csc", "bsr", "bsc"])
def test_compressed_layouts_save_and_load_both_ways(layout):
    def make(lib):
        x = lib.tensor([[1.0, 0, 2, 0], [0, 0, 3, 4], [5, 0, 0, 0], [0, 6, 0, 7]])
        return x.to_sparse_csc() if layout == "csc" else getattr(x, f"to_sparse_{layout}")(2)

    for src, dst in ((tm, torch), (torch, tm), (tm, tm)):
        buf = io.BytesIO()
        src.save(make(src), buf)
        buf.seek(0)
        assert repr(dst.load(buf)) == repr(make(dst))
