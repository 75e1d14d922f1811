"""L-BFGS (torch.optim.LBFGS's algorithm: two-loop recursion over a bounded history, a
fixed step or a strong-Wolfe line search with cubic interpolation).

The search works on one flat NumPy vector of all parameters, in their dtype; the state
keeps its vectors as 1-d tensors, as PyTorch's does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _versions as _ver
from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor
from ._host import host_array, write_back
from .optimizer import Optimizer


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, g1), (x2, f2, g2), clipped to bounds
    (the interval's midpoint when the cubic has no minimum)."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = np.sqrt(d2_square)
    if x1 <= x2:
        pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(pos, lo), hi)


def _strong_wolfe(obj, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Find a step t along d meeting the strong Wolfe conditions: bracket, then zoom.
    Returns (f, g, t, evaluations)."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    it = 0
    while it < max_ls:  # bracketing phase
        if abs(gtd_new) <= -c2 * gtd and not (
            f_new > (f + c1 * t * gtd) or (it > 1 and f_new >= f_prev)
        ):
            br, br_f, br_g, br_gtd = [t], [f_new], [g_new], [gtd_new]
            done = True
            break
        if f_new > (f + c1 * t * gtd) or (it > 1 and f_new >= f_prev) or gtd_new >= 0:
            br, br_f = [t_prev, t], [f_prev, f_new]
            br_g, br_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        # extrapolate: a cubic step within [t + 0.01 (t - t_prev), 10 t]
        lo, hi = t + 0.01 * (t - t_prev), t * 10
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, (lo, hi))
        f_prev, g_prev, gtd_prev = f_new, g_new, gtd_new
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    if it == max_ls:
        br, br_f, br_g, br_gtd = [0, t], [f, f_new], [g, g_new], [gtd, gtd_new]

    insuf_progress = False
    low, high = (0, 1) if br_f[0] <= br_f[-1] else (1, 0)
    while not done and it < max_ls:  # zoom phase
        if abs(br[1] - br[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(br[0], br_f[0], br_gtd[0], br[1], br_f[1], br_gtd[1])
        # keep the new point at least 10% of the bracket away from its ends
        top, bottom = max(br), min(br)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insuf_progress or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > (f + c1 * t * gtd) or f_new >= br_f[low]:
            br[high], br_f[high], br_g[high], br_gtd[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if br_f[0] <= br_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br[high] - br[low]) >= 0:
                br[high], br_f[high], br_g[high], br_gtd[high] = (
                    br[low],
                    br_f[low],
                    br_g[low],
                    br_gtd[low],
                )
            br[low], br_f[low], br_g[low], br_gtd[low] = t, f_new, g_new, gtd_new
    return br_f[low], br_g[low], br[low], evals


def _vec(a):
    return Tensor._make(np.ascontiguousarray(a), -1, False)


class LBFGS(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-07,
        tolerance_change: float = 1e-09,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        parts = []
        for p in self._params:
            g = p._grad
            n = p._data.size
            parts.append(np.zeros(n, p._data.dtype) if g is None else host_array(g).reshape(n))
        return np.concatenate(parts)

    def _add(self, step, update):
        """params += step * update (update: the flat vector)."""
        off = 0
        for p in self._params:
            a = host_array(p)
            n = a.size
            a += (step * update[off : off + n]).reshape(a.shape).astype(a.dtype, copy=False)
            write_back(p, a)
            _ver.bump(p._data)
            off += n

    def _get(self):
        return [host_array(p).copy() for p in self._params]

    def _set(self, values):
        for p, v in zip(self._params, values):
            a = host_array(p)
            a[...] = v
            write_back(p, a)
            _ver.bump(p._data)

    def _directional_evaluate(self, closure, x, t, d):
        self._add(t, d)
        loss = float(closure())
        g = self._flat_grad()
        self._set(x)
        return loss, g

    def step(self, closure: Callable[[], Any]):  # type: ignore[override]
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        def evaluate():
            with enable_grad():
                return closure()

        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tol_grad:
            return orig_loss

        def arr(k):
            v = state.get(k)
            return None if v is None else v._data

        d, t = arr("d"), state.get("t")
        old_dirs = [v._data for v in state.get("old_dirs", [])]
        old_stps = [v._data for v in state.get("old_stps", [])]
        ro = list(state.get("ro", []))
        h_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = arr("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1
            else:
                # update the curvature pairs (skipped when y.s is not positive enough)
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                # two-loop recursion: d = -H g
                al = [None] * len(old_dirs)
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = q - al[i] * old_dirs[i]
                d = r = q * h_diag
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r += (al[i] - be_i) * old_stps[i]
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tol_change:  # not a descent direction
                break

            ls_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x0 = self._get()

                def obj(x, t, d):
                    return self._directional_evaluate(evaluate, x, t, d)

                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    obj, x0, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add(t, d)
                opt_cond = np.abs(flat_grad).max() <= tol_grad
            else:
                self._add(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tol_grad
                    ls_evals = 1
            current_evals += ls_evals
            state["func_evals"] += ls_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break  # no progress

        state["d"] = _vec(d)
        state["t"] = float(t)
        state["old_dirs"] = [_vec(v) for v in old_dirs]
        state["old_stps"] = [_vec(v) for v in old_stps]
        state["ro"] = ro
        state["H_diag"] = h_diag
        state["prev_flat_grad"] = _vec(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss

    def load_state_dict(self, state_dict):
        """The vectors are flat over all parameters: restored as they are, not shaped as
        the first parameter."""
        sd = dict(state_dict)
        state = {k: dict(v) for k, v in sd["state"].items()}
        sd["state"] = {}
        super().load_state_dict(sd)
        for v in state.values():
            for k, x in v.items():
                if isinstance(x, Tensor):
                    v[k] = _vec(host_array(x).copy())
                elif isinstance(x, list):
                    v[k] = [_vec(host_array(e).copy()) if isinstance(e, Tensor) else e for e in x]
            self.state[self._params[0]] = v
