"""Evaluation metrics from the ImageNet example: top-1 / top-5 accuracy with topk, and a
confusion matrix accumulated with index_put_(accumulate=True)."""

import numpy as np


def accuracy(torch, output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def run(torch):
    rng = np.random.default_rng(40)
    output = torch.from_numpy(rng.standard_normal((50, 10)).astype(np.float32))
    target = torch.from_numpy(rng.integers(0, 10, 50))
    top1, top5 = accuracy(torch, output, target, topk=(1, 5))
    confusion = torch.zeros(10, 10, dtype=torch.int64)
    confusion.index_put_(
        (target, output.argmax(1)), torch.ones(50, dtype=torch.int64), accumulate=True
    )
    return {"top1": top1, "top5": top5, "confusion": confusion}
