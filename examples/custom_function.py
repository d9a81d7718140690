"""A custom autograd Function: your own forward and backward.

    python examples/custom_function.py

Subclass torch.autograd.Function with two static methods:
- forward(ctx, *inputs) computes the result (autograd does not record what happens inside);
  ctx.save_for_backward(...) keeps the tensors the gradient formula needs.
- backward(ctx, grad_output) returns one gradient per forward input (None where there is none).
Call it with .apply(...); check the formula against finite differences with gradcheck.
"""

import taimatsu as torch
from taimatsu.autograd import Function, gradcheck


class Square(Function):
    """y = x ** 2, with dy/dx = 2x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x


class ClampWithStraightThroughGrad(Function):
    """Clamp in the forward pass, but let the gradient through unchanged (a straight-through
    estimator): something a plain composition of differentiable ops cannot express."""

    @staticmethod
    def forward(ctx, x, lo: float, hi: float):
        return x.clamp(lo, hi)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None  # no gradients for the float arguments


class MulConstant(Function):
    """y = x * k; uses ctx.needs_input_grad to skip work nobody asked for."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k  # non-tensor values can live on ctx directly
        return x * k

    @staticmethod
    def backward(ctx, grad_output):
        grad_x = grad_output * ctx.k if ctx.needs_input_grad[0] else None
        return grad_x, None


x = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
y = Square.apply(x)
print("Square:", y)  # grad_fn is the Function's backward node
y.sum().backward()
print("x.grad (2x):", x.grad)

x.grad = None
z = ClampWithStraightThroughGrad.apply(x, -1.0, 1.0)
print("clamped:", z)
z.sum().backward()
print("straight-through x.grad:", x.grad, "| torch.clamp would give", torch.tensor([0.0, 1.0, 0.0]))

x.grad = None
MulConstant.apply(x, 3.0).sum().backward()
print("MulConstant x.grad:", x.grad)

# Functions compose with ordinary ops, and gradcheck compares backward() with finite
# differences (in float64, where the comparison is meaningful).
xd = torch.randn(
    4, dtype=torch.float64, generator=torch.Generator().manual_seed(0), requires_grad=True
)
print("gradcheck Square:", gradcheck(Square.apply, (xd,)))
print("gradcheck MulConstant:", gradcheck(lambda t: MulConstant.apply(t.sin(), 2.5), (xd,)))


# A wrong backward is caught:
class BadSquare(Square):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x  # forgot the factor 2


try:
    gradcheck(BadSquare.apply, (xd,))
except RuntimeError as e:
    print("gradcheck caught BadSquare:", str(e).splitlines()[0])
