"""The `con` fixture of the Python tests: a connection to each device under
test ($CLQ_TEST_DEVICES, a clq device selector, else every device), with
`fp64` telling whether the device computes REAL."""

import os

import pytest

import clq


def _selectors():
    chosen = os.environ.get("CLQ_TEST_DEVICES")
    if chosen:
        return [chosen]
    return [d["selector"] for d in clq.devices()]


@pytest.fixture(scope="module", params=_selectors())
def con(request):
    connection = clq.connect(request.param)
    connection.fp64 = any(d["fp64"] for d in clq.devices() if d["name"] == connection.device)
    return connection
