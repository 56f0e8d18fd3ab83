"""Evaluation: baseline players, arenas, ratings."""
