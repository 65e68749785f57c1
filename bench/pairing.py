"""Pairing benchmark: ``.venv/bin/python bench/pairing.py [--sizes 100,1000,10000]``.

For each field size and for two and four players a table, simulates 5 rounds (seeded
results fed back as opponents, points and seats), then times the pairing of round 6.
Prints the CPU time (``time.process_time``, one core; wall time is shown too but depends
on what else the machine runs) of round 6, the slowest of the six pairings, and the repeat meetings
(over all six rounds and in round 6). Every round after round 1 has plenty of unmet
opponents available at these sizes, so any repeat would be an avoidable one: the goal is
0. Seat balance is reported as the largest spread (max - min) of any player's seat counts.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.pairing import PairingRequest, Player, pair  # noqa: E402

ROUNDS = 5


def simulate(n: int, size: int, seed: int = 1) -> dict[str, float | int]:
    """Run 5 seeded rounds plus the timed 6th; return the figures."""
    rng = random.Random(seed)
    ids = [f"p{i}" for i in range(n)]
    rating = {p: rng.gauss(1500, 200) for p in ids}
    points = dict.fromkeys(ids, 0.0)
    opponents: dict[str, list[str]] = {p: [] for p in ids}
    byes = dict.fromkeys(ids, 0)
    seats = {p: [0] * size for p in ids}
    repeats_total = 0
    repeats_last = 0
    slowest = 0.0
    last = 0.0
    last_wall = 0.0
    score = [1.0, 0.0] if size == 2 else [3.0, 2.0, 1.0, 0.0]
    for rnd in range(ROUNDS + 1):
        req = PairingRequest(
            table_sizes=(size,),
            seed=rnd,
            players=tuple(
                Player(
                    id=p,
                    points=points[p],
                    rating=round(rating[p]),
                    opponents=tuple(opponents[p]),
                    byes=byes[p],
                    seats=tuple(seats[p]),
                )
                for p in ids
            ),
        )
        w0, c0 = time.perf_counter(), time.process_time()
        result = pair(req)
        took = time.process_time() - c0
        slowest = max(slowest, took)
        last = took
        last_wall = time.perf_counter() - w0
        repeats = 0
        for table in result.tables:
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    repeats += opponents[a].count(b)
        repeats_total += repeats
        repeats_last = repeats
        for p in result.byes:
            byes[p] += 1
            points[p] += score[0] if size == 2 else score[1]
        for table in result.tables:
            for k, p in enumerate(table):
                seats[p][k] += 1
                opponents[p].extend(q for q in table if q != p)
            # Stronger players tend to finish higher: rating plus noise, draws at 2 a table.
            if size == 2 and rng.random() < 0.1:
                for p in table:
                    points[p] += 0.5
                continue
            finish = sorted(table, key=lambda p: -(rating[p] + rng.gauss(0, 250)))
            for place, p in enumerate(finish):
                points[p] += score[place]
    spread = max(max(s) - min(s) for s in seats.values())
    return {
        "round6": last,
        "round6_wall": last_wall,
        "slowest": slowest,
        "repeats": repeats_total,
        "repeats6": repeats_last,
        "seat_spread": spread,
    }


def main() -> None:
    """Print one line per (field size, table size)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    print(
        f"{'players':>8} {'table':>5} {'r6 cpu s':>10} {'r6 wall s':>10} {'slowest':>10} "
        f"{'repeats':>8} {'in r6':>6} {'seat spread':>11}"
    )
    for n in (int(x) for x in args.sizes.split(",")):
        for size in (2, 4):
            r = simulate(n, size)
            print(
                f"{n:>8} {size:>5} {r['round6']:>10.3f} {r['round6_wall']:>10.3f} "
                f"{r['slowest']:>10.3f} "
                f"{r['repeats']:>8} {r['repeats6']:>6} {r['seat_spread']:>11}",
                flush=True,
            )


if __name__ == "__main__":
    main()
