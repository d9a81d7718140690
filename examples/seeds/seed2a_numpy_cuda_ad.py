"""Seed 2, part a (Habr article, Japanese translation): PyTorch = NumPy + CUDA + AD.

The same tiny network written in NumPy, then in PyTorch, then two "dynamic graph" examples.
"""

import io
import sys
from datetime import date

import numpy as np

import taimatsu as torch
import taimatsu.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


# The article's first NumPy network. It never defines the inputs; small random ones here.
def MyNetworkForward(weights, bias, x):
    h1 = weights @ x + bias
    a1 = np.tanh(h1)
    return a1


weights = np.random.randn(3, 4)
bias = np.random.randn(3)
x = np.random.randn(4)
y_hat = np.random.randn(3)
y = MyNetworkForward(weights, bias, x)
loss = np.mean((y - y_hat) ** 2)
print(f"numpy loss: {loss:.4f}")

# The article's wish list (numpy arrays with .cuda() and loss.magically_calculate_backward_pass())
# is pseudo-code that cannot run; PyTorch makes it real:


def MyNetworkForward(weights, bias, x):  # the article redefines it for torch
    h1 = weights @ x + bias
    a1 = torch.tanh(h1)
    return a1


weights = torch.randn(3, 4, requires_grad=True)
bias = torch.randn(3, requires_grad=True)
x = torch.randn(4)
y_hat = torch.randn(3)
params = weights, bias  # keep the leaves: after .cuda() the names point at copies
if torch.cuda.is_available():
    weights = weights.cuda()
    bias = bias.cuda()
    x = x.cuda()
    y_hat = y_hat.cuda()
y = MyNetworkForward(weights, bias, x)
loss = torch.mean((y - y_hat) ** 2)
loss.backward()
print(loss.detach().cpu())  # the same line on a CPU or a GPU run
print(params[0].grad)
print(params[1].grad)


# Dynamic graphs: plain Python decides the computation. The article picks the activation by the
# day of the month; here both branches run, so the output does not depend on today's date.
# The odd-day branch `F.linear(x)` forgets the weight argument, an error in every PyTorch version.
def activation(x, day=None):
    day = date.today().day if day is None else day
    if day % 2 == 0:
        x = F.relu(x)
    else:
        x = F.linear(x)
    return x


x = torch.tensor([-1.0, 0.5, 2.0])
print(activation(x, day=2))
try:
    activation(x, day=3)
except TypeError as e:
    print(type(e).__name__ + ": " + str(e))

# A layer that adds a number the user types. stdin is replaced so the script needs no keyboard.
sys.stdin = io.StringIO("3\n")
x += int(input())
sys.stdin = sys.__stdin__
print(x)
