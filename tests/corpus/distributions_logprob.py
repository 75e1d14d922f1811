"""Densities and divergences with gradients in their parameters, in float64: Normal,
Bernoulli(logits), Categorical, MultivariateNormal(scale_tril), Independent, Beta, Gamma,
Dirichlet, Laplace log_prob / entropy / cdf, and kl_divergence between pairs."""

import numpy as np

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch):
    D = torch.distributions
    rng = np.random.default_rng(67)

    def param(*shape, positive=False):
        v = rng.standard_normal(shape)
        return torch.from_numpy(np.abs(v) + 0.5 if positive else v).requires_grad_(True)

    loc, scale = param(3), param(3, positive=True)
    logits = param(3)
    cat_logits = param(2, 4)
    tril = torch.from_numpy(np.tril(rng.standard_normal((3, 3)) * 0.3) + np.eye(3)).requires_grad_(
        True
    )
    a, bb = param(3, positive=True), param(3, positive=True)
    conc = param(4, positive=True)
    x = torch.from_numpy(rng.standard_normal(3))
    u = torch.from_numpy(rng.uniform(0.1, 0.9, 3))
    terms = {
        "normal": D.Normal(loc, scale).log_prob(x).sum(),
        "normal_entropy": D.Normal(loc, scale).entropy().sum(),
        "normal_cdf": D.Normal(loc, scale).cdf(x).sum(),
        "bernoulli": D.Bernoulli(logits=logits)
        .log_prob(torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64))
        .sum(),
        "categorical": D.Categorical(logits=cat_logits).log_prob(torch.tensor([3, 0])).sum(),
        "categorical_entropy": D.Categorical(logits=cat_logits).entropy().sum(),
        "mvn": D.MultivariateNormal(loc, scale_tril=tril).log_prob(x),
        "mvn_entropy": D.MultivariateNormal(loc, scale_tril=tril).entropy(),
        "independent": D.Independent(D.Laplace(loc, scale), 1).log_prob(x),
        "beta": D.Beta(a, bb).log_prob(u).sum(),
        "gamma": D.Gamma(a, bb).log_prob(u * 3).sum(),
        "dirichlet": D.Dirichlet(conc).log_prob(
            torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)
        ),
        "kl_normal": D.kl_divergence(D.Normal(loc, scale), D.Normal(x, scale * 2)).sum(),
        "kl_categorical": D.kl_divergence(
            D.Categorical(logits=cat_logits), D.Categorical(logits=cat_logits.flip(1))
        ).sum(),
        "kl_mvn": D.kl_divergence(
            D.MultivariateNormal(loc, scale_tril=tril),
            D.MultivariateNormal(x, scale_tril=torch.eye(3, dtype=torch.float64) * 2),
        ),
        "kl_beta": D.kl_divergence(D.Beta(a, bb), D.Beta(bb, a)).sum(),
    }
    out = {}
    params = [loc, scale, logits, cat_logits, tril, a, bb, conc]
    for name, value in terms.items():
        grads = torch.autograd.grad(value, params, allow_unused=True, materialize_grads=True)
        out[name] = [value.detach(), list(grads)]
    return out
