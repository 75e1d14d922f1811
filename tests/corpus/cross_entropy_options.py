"""Classification losses with their options, as used for imbalanced or noisy data:
class weights, ignore_index on padding, label smoothing, probability targets, reduction
none / sum, NLLLoss on log_softmax, BCE with pos_weight."""

import numpy as np

TOL = dict(rtol=1e-12, atol=1e-12)


def run(torch):
    F = torch.nn.functional
    rng = np.random.default_rng(63)
    logits = torch.from_numpy(rng.standard_normal((7, 4))).requires_grad_(True)
    target = torch.tensor([0, 3, -100, 1, 1, 2, -100])
    weight = torch.tensor([1.0, 2.0, 0.5, 3.0], dtype=torch.float64)
    probs = torch.softmax(torch.from_numpy(rng.standard_normal((7, 4))), dim=1)
    losses = {
        "weighted": F.cross_entropy(logits, target, weight=weight),
        "smoothed": F.cross_entropy(logits, target, label_smoothing=0.1),
        "both": F.cross_entropy(logits, target, weight=weight, label_smoothing=0.2),
        "none": F.cross_entropy(logits, target, reduction="none"),
        "sum": F.cross_entropy(logits, target.clamp(min=0), reduction="sum", ignore_index=1),
        "soft": F.cross_entropy(logits, probs),
        "soft_smoothed": F.cross_entropy(logits, probs, label_smoothing=0.3, weight=weight),
        "nll": torch.nn.NLLLoss(weight=weight)(F.log_softmax(logits, dim=1), target.clamp(min=0)),
        "bce_pos": torch.nn.BCEWithLogitsLoss(
            pos_weight=torch.tensor([3.0, 1.0, 0.5, 1.0], dtype=torch.float64)
        )(logits, (probs > 0.25).double()),
    }
    out = {}
    for name, loss in losses.items():
        (grad,) = torch.autograd.grad(loss.sum(), logits)
        out[name] = [loss.detach(), grad]
    seq_logits = torch.from_numpy(rng.standard_normal((2, 5, 3))).requires_grad_(True)  # N, C, L
    seq_target = torch.tensor([[0, 1, 2], [4, 4, -100]])
    seq = F.cross_entropy(seq_logits, seq_target)
    out["seq"] = [seq.detach(), torch.autograd.grad(seq, seq_logits)[0]]
    return out
