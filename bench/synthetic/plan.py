"""How the passages are shared among sources, and the kind of each source.

Every kind comes at least once, so that even a small archive has fiction,
primary and secondary sources; large runs draw source sizes log-uniformly.
"""

from __future__ import annotations

import random

from archive.models import SourceKind

from .vocabulary import KIND_WEIGHTS

DEFAULT_SOURCE_SIZES = (300, 3000)



def plan_sizes(rng: random.Random, total: int, sizes: tuple[int, int]) -> list[int]:
    """Passages per source: at least one source of each kind; large runs draw sizes in `sizes`."""
    kinds = len(SourceKind.values)
    low, high = sizes
    if total < kinds:
        raise ValueError(f"A synthetic archive needs at least {kinds} passages, one source of each kind.")
    if total <= kinds * (low + high) // 2:
        # Small archives: one source of each kind, sizes jittered around the mean.
        weights = [rng.uniform(0.7, 1.3) for _ in range(kinds)]
        plan = [max(1, int(total * w / sum(weights))) for w in weights]
        plan[-1] += total - sum(plan)
        if plan[-1] < 1:
            raise ValueError("could not split the passages among the sources")
        return plan
    plan = []
    remaining = total
    while remaining > 0:
        # Log-uniform: many sources of a few hundred passages, some of thousands.
        size = round(low * (high / low) ** rng.random())
        if remaining - size < low:
            size = remaining
        plan.append(size)
        remaining -= size
    return plan


def plan_kinds(rng: random.Random, count: int) -> list[str]:
    """The kind of each source: every kind once (shuffled), then by weight."""
    first = list(SourceKind.values)
    rng.shuffle(first)
    kinds = [str(k) for k in KIND_WEIGHTS]
    weights = list(KIND_WEIGHTS.values())
    rest = rng.choices(kinds, weights=weights, k=max(0, count - len(first)))
    return (first + rest)[:count]
