#!/usr/bin/env python3
"""Any command of several builds side by side: each build runs the same arguments in turn,
run after run, so that the machine's load falls on all alike (`batch_ab.py` does this for
two builds' `batch` of a CSV). Wall clock by `time.perf_counter`, CPU (user + system) by
`getrusage`; prints each build's median and quartiles.

    python3 scripts/runs_ab.py DATA_DIR RUNS "ARG|ARG|..." BIN [BIN...]

The arguments follow `--data-dir DATA_DIR`, separated by `|` (so that a name with spaces is
one argument): `"screen|Vladimir Putin"`, `"batch|one.csv|--column|query|--json"`. A run
that fails stops the script.
"""
import resource
import statistics
import subprocess
import sys
import time


def run(binary, data, args):
    """Wall and CPU seconds of one run of `binary`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [binary, "--data-dir", data, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 3):
        sys.exit(f"{binary} failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    data, runs, args, binaries = sys.argv[1], int(sys.argv[2]), sys.argv[3].split("|"), sys.argv[4:]
    times = {b: ([], []) for b in binaries}
    for _ in range(runs):
        for binary in binaries:
            wall, cpu = run(binary, data, args)
            times[binary][0].append(wall)
            times[binary][1].append(cpu)
    for binary in binaries:
        wall, cpu = (sorted(t) for t in times[binary])
        print(
            f"{binary}: wall median {statistics.median(wall) * 1000:.1f} ms "
            f"(p25 {wall[len(wall) // 4] * 1000:.1f}, p75 {wall[3 * len(wall) // 4] * 1000:.1f}); "
            f"CPU median {statistics.median(cpu) * 1000:.0f} ms ({runs} runs)"
        )


if __name__ == "__main__":
    main()
