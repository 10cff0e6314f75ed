"""torch.utils.data: datasets, samplers and the DataLoader (single process), with PyTorch's
rules for batching, shuffling (drawn from gradviz's RNG), dropping the last batch and
collating samples into tensors."""
from .dataloader import DataLoader, default_collate, default_convert  # noqa: F401
from .dataset import (ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset,  # noqa: F401
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
                      SubsetRandomSampler, WeightedRandomSampler)

get_worker_info = lambda: None  # noqa: E731 - always the main process here
