"""The mistakes every PyTorch user makes once, and the errors that explain them: each is
caught and returned as (exception type, message with the library's name replaced)."""


def run(torch):
    nn, F = torch.nn, torch.nn.functional

    def err(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the point is which exception
            # nbgrad's messages name torch where they point to a torch-only tool
            return [type(e).__name__, str(e).replace(torch.__name__, "lib").replace("torch", "lib")]
        return None

    def backward_twice():
        x = torch.ones(2, requires_grad=True)
        y = (x.exp() * 2).sum()
        y.backward()
        y.backward()

    def inplace_leaf():
        w = torch.ones(3, requires_grad=True)
        w += 1

    def inplace_saved():
        a = torch.ones(3, requires_grad=True)
        b = a.sigmoid()
        c = b * 2
        b.mul_(2)
        c.sum().backward()

    def nonscalar_backward():
        x = torch.ones(2, 2, requires_grad=True)
        (x * 2).backward()

    def numpy_of_grad_tensor():
        torch.ones(2, requires_grad=True).numpy()

    def linear_shape():
        nn.Linear(4, 3)(torch.ones(5, 6))

    def matmul_shape():
        torch.ones(2, 3) @ torch.ones(4, 5)

    def view_shape():
        torch.arange(6).view(4, -1)

    def ce_float_target():
        F.cross_entropy(torch.ones(3, 4), torch.tensor([0.0, 1.0, 2.0]))

    def ce_target_range():
        F.cross_entropy(torch.ones(3, 4), torch.tensor([0, 1, 4]))

    def item_of_many():
        torch.ones(3).item()

    def index_out_of_range():
        torch.ones(3)[5]

    def load_wrong_shape():
        nn.Linear(3, 2).load_state_dict(nn.Linear(4, 2).state_dict())

    def optimizer_non_leaf():
        w = torch.ones(2, requires_grad=True)
        torch.optim.SGD([w * 2], lr=0.1)

    def grad_unused():
        x = torch.ones(2, requires_grad=True)
        y = torch.ones(2, requires_grad=True)
        torch.autograd.grad((x * 2).sum(), [x, y])

    def no_grad_backward():
        x = torch.ones(2, requires_grad=True)
        with torch.no_grad():
            y = (x * 2).sum()
        y.backward()

    def cat_dims():
        torch.cat([torch.ones(2, 3), torch.ones(2, 4)])

    def embedding_float_index():
        nn.Embedding(5, 2)(torch.tensor([1.0, 2.0]))

    def conv_channels():
        nn.Conv2d(3, 4, 3)(torch.ones(1, 1, 5, 5))

    cases = {
        "backward_twice": backward_twice,
        "inplace_leaf": inplace_leaf,
        "inplace_saved": inplace_saved,
        "nonscalar_backward": nonscalar_backward,
        "numpy_of_grad_tensor": numpy_of_grad_tensor,
        "linear_shape": linear_shape,
        "matmul_shape": matmul_shape,
        "view_shape": view_shape,
        "ce_float_target": ce_float_target,
        "ce_target_range": ce_target_range,
        "item_of_many": item_of_many,
        "index_out_of_range": index_out_of_range,
        "load_wrong_shape": load_wrong_shape,
        "optimizer_non_leaf": optimizer_non_leaf,
        "grad_unused": grad_unused,
        "no_grad_backward": no_grad_backward,
        "cat_dims": cat_dims,
        "embedding_float_index": embedding_float_index,
        "conv_channels": conv_channels,
    }
    return {name: err(fn) for name, fn in cases.items()}
