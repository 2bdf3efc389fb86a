"""torch helpers of the GPU path (imported only once torch is in use)."""

import torch


def torch_stream(stream, device):
    """A torch stream object for a raw handle (int) or a stream-like object."""
    if isinstance(stream, torch.cuda.Stream):
        return stream
    handle = stream if isinstance(stream, int) else getattr(stream, "cuda_stream", None)
    if handle is None:
        handle = getattr(stream, "ptr", None)
    if handle is None and hasattr(stream, "__cuda_stream__"):
        handle = stream.__cuda_stream__()[1]
    if not isinstance(handle, int):
        raise TypeError(f"`stream` must be a raw stream handle (int) or a stream object, got {type(stream).__name__}")
    device = torch.device(device)
    cur = torch.cuda.current_stream(device)
    if cur.cuda_stream == handle:
        return cur
    default = torch.cuda.default_stream(device)
    if default.cuda_stream == handle:
        return default
    return torch.cuda.ExternalStream(handle, device=device)


def alloc_workspace(ordinal, stream, nbytes):
    """The kernel's workspace for one (device, stream): zeroed device memory
    from torch's caching allocator, allocated and zeroed on that stream
    (called once per stream by the native module, never during capture)."""
    dev = torch.device("cuda", ordinal)
    with torch.cuda.device(dev):
        with torch.cuda.stream(torch_stream(stream, dev)):
            return torch.zeros(nbytes, dtype=torch.uint8, device=dev)
