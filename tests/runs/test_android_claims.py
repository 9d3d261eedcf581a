"""Parallel workers on the android surface: one device each, claimed across processes, never shared."""

from __future__ import annotations

import multiprocessing
import uuid

import pytest

from venuskit.envs.android.devices import serials_for_workers
from venuskit.runs.android import SerialClaim


def _claim_in_child(serials: list[str], conn) -> None:
    try:
        claim = SerialClaim(serials)
        conn.send(claim.serial)
    except ValueError as e:
        conn.send(f"error: {e}")


def test_each_worker_claims_its_own_device_across_processes() -> None:
    serials = [f"test-{uuid.uuid4().hex[:8]}-{i}" for i in range(2)]
    first = SerialClaim(serials)
    assert first.serial == serials[0]
    parent, child = multiprocessing.Pipe()
    proc = multiprocessing.get_context("fork").Process(target=_claim_in_child, args=(serials, child))
    proc.start()
    assert parent.recv() == serials[1]  # another process gets the other device
    proc.join(10)
    with pytest.raises(ValueError, match="in use by another worker"):
        SerialClaim(serials[:1])
    first.release()
    again = SerialClaim(serials[:1])  # released: free again
    assert again.serial == serials[0]
    again.release()


def test_workers_need_a_device_each() -> None:
    assert serials_for_workers(["a", "b", "a"], 2) == ["a", "b"]
    with pytest.raises(ValueError, match="3 workers need 3 devices"):
        serials_for_workers(["a", "b"], 3)
    with pytest.raises(ValueError, match="pass --serial"):
        SerialClaim([])
