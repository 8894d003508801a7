"""How much memory this process can still be given: what a batch's size is checked against.

A batch allocates all its arrays at construction (``gridsim.engine.state.BatchState.allocate``),
so their size is known before any of them exists. Asked for more than the machine can give,
numpy raises a bare ``MemoryError`` (293 GiB of ``rgb_full`` observations), or the allocation
succeeds and the kernel's first writes get the process killed by the system's or a container's
out-of-memory killer. :func:`memory_limit` is the figure a batch is checked against first.
"""

from __future__ import annotations

import os
from typing import NamedTuple

__all__ = ["CGROUP_FILES", "MemoryLimit", "format_bytes", "memory_limit"]


class MemoryLimit(NamedTuple):
    """What a process can still be given: ``available`` bytes, limited by ``source`` (for messages)."""

    available: int
    source: str


def _read_int(path: str) -> int | None:
    """The integer a one-value file holds (a cgroup's ``memory.max``); None where absent or ``max``."""
    try:
        with open(path, encoding="ascii") as f:
            text = f.read().strip()
    except (OSError, ValueError):
        return None
    return int(text) if text.isdigit() else None


def _meminfo_available() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes: what the kernel estimates it can give without swapping."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024  # given in kB
    except (OSError, ValueError, IndexError):
        pass
    return None


# A cgroup's memory limit and usage, as the process sees them (its own cgroup in a container):
# cgroup v2's, then v1's.
CGROUP_FILES = (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"))


def _cgroup_room() -> int | None:
    """A cgroup's memory limit less what it uses (:data:`CGROUP_FILES`); None without a limit."""
    for limit_file, usage_file in CGROUP_FILES:
        limit = _read_int(limit_file)
        if limit is not None and limit < 1 << 60:  # v1 reports "no limit" as a huge number
            return max(0, limit - (_read_int(usage_file) or 0))
    return None


def _address_space_room() -> int | None:
    """The address space left under ``RLIMIT_AS`` (its soft limit less the process's size); None without one."""
    try:
        import resource
    except ImportError:  # not POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        size = 0
    return max(0, soft - size)


def _physical_memory() -> int | None:
    """The machine's physical memory (where ``/proc/meminfo`` is not to be read)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def memory_limit() -> MemoryLimit | None:
    """The bytes this process can still be given: the least of what limits it (None: nothing says).

    The limits read, where the system has them: the memory the system can give without swapping
    (``MemAvailable`` of ``/proc/meminfo``; elsewhere the physical memory), the room left under
    the memory limit of the process's cgroup (a container's: ``memory.max`` less
    ``memory.current``, or cgroup v1's files), and the address space left under ``RLIMIT_AS``
    (``ulimit -v``).
    """
    system, source = _meminfo_available(), "the memory available (MemAvailable in /proc/meminfo)"
    if system is None:
        system, source = _physical_memory(), "the machine's physical memory"
    rooms = ((system, source), (_cgroup_room(), "the room left under the cgroup's memory limit"),
             (_address_space_room(), "the address space left under RLIMIT_AS"))
    return min((MemoryLimit(room, why) for room, why in rooms if room is not None), default=None)


def format_bytes(n: int | float) -> str:
    """``n`` bytes for people: ``"293.0 GiB"``, ``"12.0 KiB"``, ``"512 bytes"``."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} bytes"
