"""A progress line per epoch for the examples: tqdm when it is installed, else print."""


class Progress:
    """One update per epoch: a tqdm bar over the epochs with the latest numbers, or (without
    tqdm) a printed line every `every` epochs and at the last one."""

    def __init__(self, total, desc, quiet, every=1):
        self.bar = None
        self.quiet, self.total, self.every = quiet, total, max(1, every)
        if quiet:
            return
        try:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="epoch", mininterval=0.5)
        except ImportError:
            pass

    def update(self, epoch, **info):
        text = "  ".join(f"{k} {v}" for k, v in info.items())
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(1)
        elif not self.quiet and (epoch % self.every == 0 or epoch == self.total):
            print(f"epoch {epoch:4d}/{self.total}  {text}", flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
