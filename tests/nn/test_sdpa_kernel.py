"""torch.nn.attention.sdpa_kernel / SDPBackend against PyTorch: the switches it sets, which
kernel scaled_dot_product_attention takes under it (grad_fn, values, gradients), the errors."""

import io
import warnings
from contextlib import redirect_stdout

import taimatsu as tm


def _program(T):
    F, att = T.nn.functional, T.nn.attention
    T.manual_seed(0)
    q = T.randn(2, 2, 4, 8, requires_grad=True)

    def run(label, **kw):
        try:
            out = F.scaled_dot_product_attention(q, q, q, **kw)
            out.sum().backward()
            print(
                label,
                type(out.grad_fn).__name__,
                round(out.sum().item(), 4),
                round(q.grad.sum().item(), 4),
            )
        except RuntimeError as e:
            print(label, "RuntimeError", e)
        q.grad = None

    run("default", is_causal=True)
    choices = [
        att.SDPBackend.MATH, [att.SDPBackend.FLASH_ATTENTION], [att.SDPBackend.EFFICIENT_ATTENTION], [],
        [att.SDPBackend.MATH, att.SDPBackend.FLASH_ATTENTION], att.SDPBackend.CUDNN_ATTENTION,
    ]  # fmt: skip
    for b in choices:
        with att.sdpa_kernel(b):
            cuda = T.backends.cuda
            print(b, cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(),
                  cuda.mem_efficient_sdp_enabled(), cuda.cudnn_sdp_enabled())  # fmt: skip
            run("causal", is_causal=True)
            run("masked", attn_mask=T.tensor([[True, False, True, True]] * 4))
    print(T.backends.cuda.flash_sdp_enabled(), T.backends.cuda.math_sdp_enabled())
    for bad in ["math", 0]:
        try:
            with att.sdpa_kernel(bad):
                pass
        except AssertionError as e:
            print("AssertionError", e)
    with att.sdpa_kernel([att.SDPBackend.MATH, 1]):  # not checked member by member
        pass
    S = att.SDPBackend
    print(
        repr(S.MATH), str(S.FLASH_ATTENTION), S.MATH.value, S(2), S.ERROR.value, S.OVERRIDEABLE.name
    )
    with att.sdpa_kernel(att.SDPBackend.FLASH_ATTENTION):
        for label, args in [
            ("dropout", {"dropout_p": 0.5}),
            ("3-d", {"query": q[0], "key": q[0], "value": q[0]}),
            ("fewer heads", {"key": q[:, :1], "value": q[:, :1]}),
            ("mask requires grad", {"attn_mask": T.zeros(4, 4, requires_grad=True)}),
        ]:
            kw = {"query": q, "key": q, "value": q} | args
            try:
                print(label, F.scaled_dot_product_attention(**kw).shape)
            except RuntimeError as e:
                print(label, "RuntimeError", e)


def _output(lib) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns once per process why flash was not used
        _program(lib)
    return buf.getvalue()


def test_sdpa_kernel_matches_pytorch(torch_oracle):
    assert _output(tm) == _output(torch_oracle)
