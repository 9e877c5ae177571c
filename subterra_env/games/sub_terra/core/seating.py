"""Seats counted around the table without a division.

``(seat + k) % n`` by the table's size, a value the compiler cannot know, costs an integer division (tens of
cycles); the observation alone took 13 of them a game at 4 seats, and turn order one per seat it looks at. Both
arguments are seats (0 <= seat < n, and 0 <= k <= n), so one comparison does. At B = 4096 on two threads the step +
mask + observation row, memory-bound there, ran 1.01x as fast (the median of 24 pairs of processes, 16 of them
faster: within the machine's noise; docs/benchmarks.md).
"""

from __future__ import annotations

import numba


@numba.njit(inline="always")
def seat_after(seat, k, n):
    """(seat + k) % n for a seat 0 <= seat < n and 0 <= k <= n: the seat k places after ``seat``."""
    s = seat + k
    return s - n if s >= n else s


@numba.njit(inline="always")
def seats_from(seat, other, n):
    """(other - seat) % n for seats 0 <= seat, other < n: how many places after ``seat`` ``other`` sits."""
    d = other - seat
    return d + n if d < 0 else d
