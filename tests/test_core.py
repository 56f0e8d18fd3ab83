"""Core helpers: codecs, frames, square names."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from crossenvs.core import codec, frames
from crossenvs.core.geometry import parse_square, square_name


def test_move_codec_round_trips_and_is_dense():
    ids = [codec.move_index(sq, d, k, 7) for sq, d, k in itertools.product(range(64), range(8), range(1, 8))]
    assert sorted(ids) == list(range(64 * 8 * 7))
    for index in (0, 1, 55, 3583):
        assert codec.move_index(*codec.move_of(index, 7), 7) == index


def test_square_codec_round_trips():
    for index in range(30):
        assert codec.square_index(*codec.square_of(index, 6), 6) == index


def test_directions_are_the_eight_king_steps():
    assert {tuple(d) for d in codec.DIRECTIONS} == {(r, c) for r in (-1, 0, 1) for c in (-1, 0, 1)} - {(0, 0)}


@pytest.mark.parametrize("frame", [frames.IDENTITY, frames.TRANSPOSE, frames.ROTATE_180])
def test_frames_are_involutions_matching_their_views(frame):
    board = np.arange(25).reshape(5, 5)
    view = frames.board_in_frame(board, frame)
    for r, c in itertools.product(range(5), range(5)):
        br, bc = frames.frame_to_board(r, c, frame, 5, 5)
        assert view[r, c] == board[br, bc]
        assert frames.frame_to_board(br, bc, frame, 5, 5) == (r, c)


def test_square_names():
    assert square_name(0, 0) == "a1" and square_name(9, 9) == "j10"
    assert parse_square("J10", 10, 10) == (9, 9)
    with pytest.raises(ValueError, match="off the 8x8 board"):
        parse_square("a9", 8, 8)
