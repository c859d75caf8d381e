#!/usr/bin/env python3
"""Two builds' `batch` of the development set side by side (issue 27), finer than
`bench_release.sh`: wall clock by `time.perf_counter`, CPU (user + system) by `getrusage`,
the two builds alternating run by run so that the machine's load falls on both alike.

    python3 scripts/batch_ab.py OLD_BIN NEW_BIN RUNS DATA_DIR [CSV]

DATA_DIR is a data folder holding the eight lists (`BIN --data-dir DATA_DIR lists import
../shared/data/lists`), shared by both builds: use builds of one schema version. CSV (the
development set when not given) is any file with a `query` column, and `dob` / `country`
columns to weigh. Prints the medians and quartiles of each. A run that fails stops the
script.
"""
import pathlib
import statistics
import sys

import runs_ab  # the same folder: one run of a build, timed

DEV = pathlib.Path(__file__).resolve().parent.parent / "../shared/eval/dev.csv"


def run(binary, data, queries):
    """Wall and CPU seconds of one batch run of `binary` on `data`."""
    return runs_ab.run(binary, data, ["batch", str(queries), "--column", "query", "--json"])


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    old, new, runs, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    queries = pathlib.Path(sys.argv[5]) if len(sys.argv) == 6 else DEV
    if not queries.is_file():
        sys.exit(f"no queries at {queries}")
    rows = sum(1 for _ in queries.open(encoding="utf-8")) - 1
    times = {old: ([], []), new: ([], [])}
    for _ in range(runs):
        for binary in (old, new):
            wall, cpu = run(binary, data, queries)
            times[binary][0].append(wall)
            times[binary][1].append(cpu)
    for name, binary in (("old", old), ("new", new)):
        wall, cpu = (sorted(t) for t in times[binary])
        median = statistics.median(wall)
        print(
            f"{name}: wall median {median * 1000:.0f} ms (p25 {wall[len(wall) // 4] * 1000:.0f}, "
            f"p75 {wall[3 * len(wall) // 4] * 1000:.0f}), {rows / median:.0f} names/s; "
            f"CPU median {statistics.median(cpu) * 1000:.0f} ms ({runs} runs, {binary})"
        )


if __name__ == "__main__":
    main()
