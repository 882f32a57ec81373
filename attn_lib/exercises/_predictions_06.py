"""Notebook 06's prediction problems, as data: see ``_prediction``."""

from __future__ import annotations

PROBLEMS = []
