"""Seed 1 (Japanese blog): a Tensor is not just a container -- requires_grad, grad_fn, backward."""

import taimatsu as torch
import taimatsu.nn.functional as F
from taimatsu import nn

torch.manual_seed(0)

# Operations on a tensor that requires grad record the graph; print shows each grad_fn.
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
print(y)
print(z)
print(out)

# d(out)/dx = 6 * (x + 2) / 4 = 4.5 for every element.
out.backward()
print(x.grad)

# print() only mentions requires_grad when it is True (the default is False).
x = torch.ones(2, 2)
print(x)
x = torch.ones(2, 2, requires_grad=True)
print(x)

# Parameters of a model require grad. The article's own net is not shown; its first weight
# (values within +-0.18, so about 30 inputs) fits a binary classifier on 30 features, e.g. the
# breast-cancer data set. A 64x30 weight has more than 1000 elements, so print summarises it.
net = nn.Sequential(nn.Linear(30, 64), nn.ReLU(), nn.Linear(64, 1))
for i in net.parameters():
    print(i)
    break

# grad_fn is the operation that produced the tensor: the last one in the expression.
x = torch.ones(2, 2, requires_grad=True)
x2 = torch.ones(2, 2)
z = x * x2
print(z)
z = x * x2 + x
print(z)


# The network from the official "Neural Networks" tutorial that the article quotes.
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 6 * 6, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(x.size(0), -1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
input = torch.randn(1, 1, 32, 32)
output = net(input)
target = torch.randn(10)  # a dummy target, for example
target = target.view(1, -1)  # make it the same shape as output
criterion = nn.MSELoss()
loss = criterion(output, target)
# PyTorch 2.x names the node MseLossBackward0 (the article, from 2019, shows MseLossBackward).
print(loss)

# Follow loss backwards through grad_fn / next_functions: the chain the tutorial describes.
# Print node names, never the node objects themselves (their repr holds a memory address).
node = loss.grad_fn
while node is not None:
    print(node.name())
    parents = [f for f, _ in node.next_functions if f is not None]
    # Follow the data path; the other parents are AccumulateGrad nodes of weights and biases.
    data_path = [f for f in parents if f.name() != "torch::autograd::AccumulateGrad"]
    node = data_path[0] if data_path else None
