"""A two-layer graph convolutional network (Kipf & Welling, 2017) on a sparse adjacency matrix.

    python examples/gcn_sparse.py                    # 300 nodes, two communities, 200 epochs
    python examples/gcn_sparse.py --nodes 1000 --p-in 0.02 --p-out 0.002

The graph is generated: a two-community stochastic block model (an edge inside a community with
probability --p-in, across with --p-out), with node features that are the community's signal
buried in Gaussian noise, so the features alone classify poorly and the neighbourhood has to help.
Only --labels nodes per community are labelled for training.

The model is H' = relu(A_hat @ H @ W) twice, where A_hat = D^-1/2 (A + I) D^-1/2 is the
normalised adjacency kept as a sparse COO tensor (torch.sparse_coo_tensor) and multiplied with
torch.sparse.mm; gradients flow through the sparse product to the dense weights.
"""

import argparse
import time

import taimatsu as torch
import taimatsu.nn.functional as F
from taimatsu import nn


def make_graph(n: int, p_in: float, p_out: float, features: int, noise: float):
    """A two-community stochastic block model: (normalised sparse adjacency, features, labels)."""
    labels = (torch.arange(n) >= n // 2).long()
    same = labels[:, None] == labels[None, :]
    prob = torch.where(same, torch.tensor(p_in), torch.tensor(p_out))
    upper = torch.triu(torch.rand(n, n) < prob, diagonal=1)
    adj = (upper | upper.t()).float() + torch.eye(n)  # undirected, with self-loops
    deg_inv_sqrt = adj.sum(1).pow(-0.5)
    rows, cols = adj.nonzero().t()
    values = deg_inv_sqrt[rows] * deg_inv_sqrt[cols]
    index = torch.stack([rows, cols])
    a_hat = torch.sparse_coo_tensor(index, values, (n, n), check_invariants=True).coalesce()
    signal = torch.zeros(n, features)
    signal[:, 0] = labels.float() * 2 - 1  # +-1 on one feature only
    x = signal + noise * torch.randn(n, features)
    return a_hat, x, labels


class GraphConv(nn.Module):
    """One GCN layer: A_hat @ (H @ W) + b, the sparse-dense product through torch.sparse.mm."""

    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, a_hat, h):
        return torch.sparse.mm(a_hat, self.linear(h)) + self.bias


class GCN(nn.Module):
    def __init__(self, in_features: int, hidden: int, classes: int, dropout: float) -> None:
        super().__init__()
        self.conv1 = GraphConv(in_features, hidden)
        self.conv2 = GraphConv(hidden, classes)
        self.dropout = dropout

    def forward(self, a_hat, x):
        h = F.relu(self.conv1(a_hat, x))
        h = F.dropout(h, self.dropout, self.training)
        return F.log_softmax(self.conv2(a_hat, h), dim=1)


def split(labels, per_class: int):
    """The first ``per_class`` nodes of each community are labelled; the rest are the test set."""
    train = torch.zeros(len(labels), dtype=torch.bool)
    for c in (0, 1):
        train[(labels == c).nonzero().flatten()[:per_class]] = True
    return train, ~train


def accuracy(logits, labels, mask) -> float:
    return (logits[mask].argmax(1) == labels[mask]).float().mean().item()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--nodes", type=int, default=300, help="number of nodes")
    parser.add_argument(
        "--p-in", type=float, default=0.05, help="edge probability inside a community"
    )
    parser.add_argument("--p-out", type=float, default=0.005, help="edge probability across")
    parser.add_argument("--features", type=int, default=16, help="node feature size")
    parser.add_argument("--noise", type=float, default=1.5, help="feature noise (std)")
    parser.add_argument("--labels", type=int, default=10, help="labelled nodes per community")
    parser.add_argument("--hidden", type=int, default=16, help="hidden units")
    parser.add_argument("--dropout", type=float, default=0.5, help="dropout probability")
    parser.add_argument("--epochs", type=int, default=200, help="training epochs")
    parser.add_argument("--lr", type=float, default=0.01, help="Adam learning rate")
    parser.add_argument("--weight-decay", type=float, default=5e-4, help="Adam weight decay")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    args = parser.parse_args()
    if args.nodes < 4 * args.labels:
        parser.error("--nodes must leave unlabelled nodes in both communities")

    torch.manual_seed(args.seed)
    a_hat, x, labels = make_graph(args.nodes, args.p_in, args.p_out, args.features, args.noise)
    train, test = split(labels, args.labels)
    print(f"graph: {args.nodes} nodes, {a_hat._nnz()} adjacency entries ({a_hat.layout})")

    model = GCN(args.features, args.hidden, 2, args.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        model.train()
        opt.zero_grad()
        out = model(a_hat, x)
        loss = F.nll_loss(out[train], labels[train])
        loss.backward()
        opt.step()
        if epoch % 50 == 0 or epoch == args.epochs:
            model.eval()
            with torch.no_grad():
                logits = model(a_hat, x)
            print(
                f"epoch {epoch}: loss {loss.item():.4f} train acc {accuracy(logits, labels, train):.3f} "
                f"test acc {accuracy(logits, labels, test):.3f}"
            )
    print(f"trained in {time.perf_counter() - start:.1f}s")

    # The features alone (no graph): what the neighbourhood adds.
    with torch.no_grad():
        direction = x[train & (labels == 1)].mean(0) - x[train & (labels == 0)].mean(0)
        guess = (x @ direction > (x[train] @ direction).mean()).long()
    print(
        f"features only (no graph): test acc {(guess[test] == labels[test]).float().mean().item():.3f}"
    )


if __name__ == "__main__":
    main()
