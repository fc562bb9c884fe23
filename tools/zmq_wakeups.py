"""Work around a lost wake-up in ``zmq.asyncio`` when notebooks are executed by nbclient.

nbclient waits for each kernel reply with ``await channel.get_msg(timeout=cell_timeout)``.
Every few runs of the book a reply that has already arrived is not noticed until that
timeout ends (``zmq.asyncio`` misses the edge of the socket's file descriptor; pyzmq issue
2173 describes the same symptom): the execution does not fail, it stalls for the whole cell
timeout, seen after the ``ipywidgets.interact`` cells (nbclient issue 312). :func:`install`
makes jupyter_client's asynchronous channels wait in slices of at most ``SLICE`` seconds, so a
missed wake-up costs that much. Missed wake-ups are frequent when the cores are shared (the
build's Sphinx runs beside the notebooks): with one-second slices a clean ``make book`` lost
several seconds to them, hence 50 ms (each slice costs one poll of the socket). Nothing else
changes: a message that really does not come still raises ``queue.Empty`` at the same
deadline.

``tools/execute_book.py`` installs it before jupyter-cache forks its workers; the student
bundle test (``tests/student``) runs this file's source in the bundle's own Python.
"""

from __future__ import annotations

from queue import Empty
from time import monotonic

SLICE = 0.05  # seconds: the longest a missed wake-up can delay a message


def install() -> None:
    """Patch ``AsyncZMQSocketChannel.get_msg`` (once) to poll in slices of ``SLICE`` seconds."""
    from jupyter_client.channels import AsyncZMQSocketChannel

    if getattr(AsyncZMQSocketChannel.get_msg, "_sliced", False):
        return
    single = AsyncZMQSocketChannel.get_msg

    async def get_msg(self, timeout=None):
        deadline = None if timeout is None else monotonic() + timeout
        while True:
            left = SLICE if deadline is None else max(0.0, min(SLICE, deadline - monotonic()))
            try:
                return await single(self, timeout=left)
            except Empty:
                if deadline is not None and monotonic() >= deadline:
                    raise

    get_msg._sliced = True
    AsyncZMQSocketChannel.get_msg = get_msg


if __name__ == "__main__":  # run as a script (the student bundle test): install, then nothing
    install()
