"""Row-by-row agreement of two answers, as the Python tests check them:
integers (and text) identical, REAL within 1e-9 relative."""

import math


def assert_same_rows(expected, actual, ordered):
    if not ordered:
        key = lambda row: tuple((v is None, str(type(v)), v) for v in row)  # noqa: E731
        expected, actual = sorted(expected, key=key), sorted(actual, key=key)
    assert len(expected) == len(actual), (expected[:5], actual[:5])
    for e_row, a_row in zip(expected, actual):
        assert len(e_row) == len(a_row), (e_row, a_row)
        for e, a in zip(e_row, a_row):
            if isinstance(e, float) or isinstance(a, float):
                assert math.isclose(e, a, rel_tol=1e-9, abs_tol=1e-9), (e_row, a_row)
            else:
                assert e == a, (e_row, a_row)
