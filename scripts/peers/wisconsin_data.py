"""The Wisconsin relation of clq (wisconsin/generator.hpp), ported exactly for
N <= 100M, as arrays of an array module (numpy, or cupy to generate on the
GPU), and the query lists of `clq bench` (host/bench_suites.cpp).

unique1 follows Gray et al.: for N rows pick (g, p) by N, start with seed = g
and repeat seed = g * seed mod p, keeping seeds <= N; unique1 = seed - 1. The
raw seeds are g^e mod p for e = 2, 3, ...; they are computed in blocks as
g^e0 * g^i mod p with a table of g^i (all values < 2^32, so every product
fits in uint64). Checked against `clq gen --format csv` (see --check).
"""

import sys

# Gray et al.'s (generator, prime) by the largest N they serve.
PARAMETERS = [
    (1000, 279, 1009),
    (10000, 2969, 10007),
    (100000, 21395, 100003),
    (1000000, 2107, 1000003),
    (10000000, 211, 10000019),
    (100000000, 21, 100000007),
]

COLUMNS = ["unique1", "unique2", "two", "four", "ten", "twenty", "onePercent",
           "tenPercent", "twentyPercent", "fiftyPercent", "unique3", "evenOnePercent",
           "oddOnePercent", "stringu1", "stringu2", "string4"]
INT_COLUMNS = COLUMNS[:13]
STRING_WIDTH = 52

THESIS_QUERIES = [
    ("L2_projection", "SELECT unique1 + unique2 AS summation FROM tenktup1"),
    ("L7_avg", "SELECT AVG(unique1) AS average FROM tenktup1"),
    ("L8_selection", "SELECT * FROM tenktup1 WHERE unique1 > 1000 AND unique1 < 6000 AND "
                     "unique2 % 2 = 0 AND two = 0"),
    ("L11_join", "SELECT * FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique1"),
    ("L13_combined", "SELECT MAX(t1.unique1 * t1.tenpercent / 100) FROM tenktup1 t1, tenktup2 t2 "
                     "WHERE t1.unique1 = t2.unique2 AND t1.unique1 < 6000 AND t2.unique2 > 1000"),
    ("L14_max", "SELECT MAX(unique1 * tenpercent / 100) AS max_value FROM tenktup1"),
    ("L14_max_real", "SELECT MAX(unique1 / (0.173 + onepercent)) FROM tenktup1"),
]
# The thesis joins use a tenktup2 of 0.6 N rows: a Wisconsin relation of its own.
THESIS_TENKTUP2_FRACTION = 0.6


def parameters(n):
    for limit, g, p in PARAMETERS:
        if n <= limit:
            return g, p
    sys.exit("wisconsin_data: N > 100M uses clq's own primes; generate with "
             "`clq gen --format csv` instead")


def unique1(n, xp):
    """unique1 of an N-row relation as an int32 array of module xp."""
    if n == 0:
        return xp.zeros(0, dtype=xp.int32)
    g, p = parameters(n)
    block = min(1 << 20, p)
    powers = xp.ones(block, dtype=xp.uint64)  # powers[i] = g^i mod p, by doubling
    size = 1
    while size < block:
        m = min(size, block - size)
        powers[size:size + m] = powers[:m] * xp.uint64(pow(g, size, p)) % xp.uint64(p)
        size += m
    step = pow(g, block, p)
    base = g * g % p  # the first seed tested is g^2
    parts, got = [], 0
    while got < n:
        seeds = powers * xp.uint64(base) % xp.uint64(p)
        kept = seeds[seeds <= xp.uint64(n)]
        take = min(int(kept.shape[0]), n - got)
        parts.append(kept[:take])
        got += take
        base = base * step % p
    return (xp.concatenate(parts) - xp.uint64(1)).astype(xp.int32)


def int_columns(n, xp):
    """The 13 INT32 columns, name -> array of module xp."""
    u1 = unique1(n, xp)
    one = u1 % 100
    return {
        "unique1": u1, "unique2": xp.arange(n, dtype=xp.int32), "two": u1 % 2,
        "four": u1 % 4, "ten": u1 % 10, "twenty": u1 % 20, "onePercent": one,
        "tenPercent": u1 % 10, "twentyPercent": u1 % 5, "fiftyPercent": u1 % 2,
        "unique3": u1.copy(), "evenOnePercent": one * 2, "oddOnePercent": one * 2 + 1,
    }


def codes(values, np):
    """The 52-character stringu1/stringu2 values: 7 base-26 digits, then 'x'."""
    digits = np.empty((values.shape[0], STRING_WIDTH), dtype=np.uint8)
    digits[:, 7:] = ord("x")
    v = values.astype(np.int64)
    for k in range(6, -1, -1):
        digits[:, k] = (v % 26 + ord("A")).astype(np.uint8)
        v //= 26
    return digits.view(f"S{STRING_WIDTH}").ravel().astype(str)


def string4(n, np):
    cycle = np.array([c * 4 + "x" * 48 for c in "AHOV"])
    return cycle[np.arange(n) % 4]


def table(n, np):
    """All 16 columns as numpy arrays (strings as str arrays), for DuckDB."""
    columns = int_columns(n, np)
    columns["stringu1"] = codes(columns["unique1"], np)
    columns["stringu2"] = codes(columns["unique2"], np)
    columns["string4"] = string4(n, np)
    return columns


def check_against_csv(path, n):
    """Compares table(n) with a `clq gen --rows n --format csv` file."""
    import csv
    import numpy as np
    ours = table(n, np)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == COLUMNS, rows[0]
    for c, name in enumerate(COLUMNS):
        theirs = [r[c] for r in rows[1:]]
        mine = [str(x) for x in ours[name].tolist()]
        if theirs != mine:
            sys.exit(f"column {name} differs")
    print(f"{n} rows agree with {path}")


if __name__ == "__main__":
    # python3 wisconsin_data.py --check FILE.csv N
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        check_against_csv(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit("usage: wisconsin_data.py --check FILE.csv N")
