#!/usr/bin/env python3
"""How long this machine takes to hand out memory never touched before, in ms per MiB.

Start-up is mostly first touches: the frame buffers, the shadow map, the allocator's pages
and the drivers' heaps are fresh memory the kernel must find, zero and map one page at a time.
On a virtual machine the cost also depends on whether the host has backed those pages yet, so
it changes from hour to hour on the same machine (0.36 to 0.73 ms per MiB in 4 KiB pages, 0.12
to 1.9 in huge pages, here on 2026-12-07). `scripts/bench.sh` prints it beside the start-up
figure: a first frame that adds N MiB spends about N times this in the kernel, whatever Sinew
does with the memory.

Prints one line: `fresh_memory <ms per MiB, 4 KiB pages> <ms per MiB, 2 MiB huge pages> <ms
per MiB, a write of memory already touched>`, each the best of three 64 MiB mappings. The
huge-page figure is what an allocator that asks for transparent huge pages (mimalloc) pays.
"""
import mmap
import time

SIZE = 64 << 20
PAGE = 4096


def first_touch(huge: bool) -> tuple[float, float]:
    """ms per MiB to touch a fresh mapping, then to write all of it again."""
    m = mmap.mmap(-1, SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        if huge and hasattr(mmap, "MADV_HUGEPAGE"):
            m.madvise(mmap.MADV_HUGEPAGE)
        t = time.perf_counter()
        for i in range(0, SIZE, PAGE):
            m[i] = 1
        fresh = time.perf_counter() - t
        block = b"\x02" * SIZE
        t = time.perf_counter()
        m[:] = block
        again = time.perf_counter() - t
        return fresh * 1e3 / (SIZE >> 20), again * 1e3 / (SIZE >> 20)
    finally:
        m.close()


def main() -> None:
    small = [first_touch(False) for _ in range(3)]
    huge = [first_touch(True) for _ in range(3)]
    print(f"fresh_memory {min(s[0] for s in small):.3f} {min(h[0] for h in huge):.3f} "
          f"{min(s[1] for s in small + huge):.3f}")


if __name__ == "__main__":
    main()
