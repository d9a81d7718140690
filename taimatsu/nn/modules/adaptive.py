"""``AdaptiveLogSoftmaxWithLoss``: an efficient softmax over many classes (Grave et al., 2016).

The frequent classes (below ``cutoffs[0]``) and one entry per tail cluster share a head
``Linear``; each cluster's classes get a low-rank projection. A target's log-probability is its
head log-probability (its own class, or its cluster's entry) plus, for tail classes, its
log-probability inside the cluster. Construction order (head, then each cluster's two Linears)
matches PyTorch's, so seeded default initialisations agree.
"""

from __future__ import annotations

from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None) -> None:  # fmt: skip
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
                "where each value is between 1 and n_classes-1"
            )
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = [*cutoffs, n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **kw),
                    Linear(hidden, size, bias=False, **kw),
                )
            )

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def _check(self, input, target) -> None:
        if target.dim() == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input.dim() != 2:
                raise RuntimeError(
                    f"1D target tensor expects 2D input tensors, but found inputs with size {input.size()}"
                )
        elif target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError(
                    f"0D target tensor expects 1D input tensors, but found inputs with size {input.size()}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def forward(self, input_, target_) -> _ASMoutput:
        self._check(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        in_range = (target >= 0) & (target < self.n_classes)
        if not bool(in_range.all()):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        # The head entry each row reads: its own class, or its cluster's entry.
        head_index = target.clone()
        output = input.new_zeros(target.size(0))
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().flatten()
            if rows.numel() == 0:
                continue
            head_index = head_index.masked_fill(mask, self.shortlist_size + i)
            cluster_logprob = F.log_softmax(self.tail[i](input.index_select(0, rows)), dim=1)
            local = cluster_logprob.gather(1, (target[mask] - low).unsqueeze(1)).squeeze(1)
            output = output.index_copy(0, rows, local)
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        from ...ops.shape.copies import cat

        return cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class, (N, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row (only rows whose head argmax is a cluster need the tails)."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        in_tail = output >= self.shortlist_size
        if not bool(in_tail.any()):
            return output
        if bool(in_tail.all()):
            return self._full_log_prob(input, head_output).argmax(dim=1)
        best = self._full_log_prob(input[in_tail], head_output[in_tail]).argmax(dim=1)
        output[in_tail] = best
        return output
