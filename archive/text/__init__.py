"""Pure-Python text handling for the archive: passages, folding, anchoring.

This package exists so that the rules for cutting source texts into citable
passages, for comparing Chinese and romanised text, and for pinning quotes to
exact offsets live in one place that can be tested without Django.
"""

from __future__ import annotations
