"""core/seating.py: seats counted around the table without a division agree with ``%`` at every table size."""

from __future__ import annotations

from subterra_env.games.sub_terra.core.seating import seat_after, seats_from


def test_seat_after_and_seats_from_agree_with_modulo_at_every_table() -> None:
    for n in range(1, 7):
        for seat in range(n):
            assert [seat_after(seat, k, n) for k in range(n + 1)] == [(seat + k) % n for k in range(n + 1)]
            assert [seats_from(seat, other, n) for other in range(n)] == [(other - seat) % n for other in range(n)]
    assert seat_after(3, 2, 4) == 1 and seat_after(0, 4, 4) == 0  # past the last seat, round to the first
    assert seats_from(3, 1, 4) == 2 and seats_from(1, 3, 4) == 2 and seats_from(2, 2, 5) == 0
