"""tools/zmq_wakeups.py: nbclient's waits for a kernel message are cut into short slices.

A fake channel on a fake clock stands in for zmq: no real time is measured or asserted. The
tests set the slice to one second, so the arithmetic reads plainly.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from queue import Empty

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import zmq_wakeups  # noqa: E402
from jupyter_client.channels import AsyncZMQSocketChannel  # noqa: E402


@pytest.fixture
def fake(monkeypatch):
    """A channel whose message arrives at clock time ``ready_at`` but is seen only by a wait
    that starts after it (the lost wake-up): a wait started before never sees it."""
    state = {"now": 0.0, "ready_at": 0.0, "calls": []}

    async def single(self, timeout=None):
        state["calls"].append(timeout)
        if state["now"] >= state["ready_at"]:
            return {"msg": "reply"}
        state["now"] += 3600.0 if timeout is None else timeout      # waited in vain
        raise Empty

    monkeypatch.setattr(AsyncZMQSocketChannel, "get_msg", single)
    monkeypatch.setattr(zmq_wakeups, "monotonic", lambda: state["now"])
    monkeypatch.setattr(zmq_wakeups, "SLICE", 1.0)
    zmq_wakeups.install()
    return AsyncZMQSocketChannel.__new__(AsyncZMQSocketChannel), state


def test_a_missed_message_is_seen_by_the_next_slice(fake):
    channel, state = fake
    state["ready_at"] = 2.5
    assert asyncio.run(channel.get_msg(timeout=300.0)) == {"msg": "reply"}
    # seen by the fourth one-second wait (at clock 3 s), not at the 300 s deadline
    assert state["calls"] == [1.0, 1.0, 1.0, 1.0] and state["now"] == 3.0


def test_no_message_still_raises_empty_at_the_deadline(fake):
    channel, state = fake
    state["ready_at"] = float("inf")
    with pytest.raises(Empty):
        asyncio.run(channel.get_msg(timeout=2.5))
    assert state["calls"] == [1.0, 1.0, 0.5] and state["now"] == 2.5


def test_waiting_without_a_timeout_keeps_waiting(fake):
    channel, state = fake
    state["ready_at"] = 4.2
    assert asyncio.run(channel.get_msg()) == {"msg": "reply"}
    assert state["calls"] == [1.0] * 6


def test_install_is_idempotent(fake):
    patched = AsyncZMQSocketChannel.get_msg
    zmq_wakeups.install()
    assert AsyncZMQSocketChannel.get_msg is patched


def test_the_slice_is_short_and_positive():
    # the slice bounds what a missed wake-up costs; it must be a short positive wait
    assert 0.0 < zmq_wakeups.SLICE <= 0.1
