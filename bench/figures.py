"""The figures a run measures, the run that collects them, and what every stage shares.

A `Figure` is one measurement beside its baseline; a `Run` gathers them,
prints each as it comes, and keeps what the report needs (plans, context,
the stages done). `stage` runs one group of figures so that a failure is
printed and recorded as failed while the others still run.
"""

from __future__ import annotations

import argparse
import math
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_SCALE = 1_000_000
SECRET = "bench-only-secret-key-not-for-production-0123456789"


@dataclass
class Figure:
    """One measured figure and its baseline; `ratio` is value / baseline_value."""

    name: str
    value: float | None
    unit: str
    baseline: str
    baseline_value: float | None
    better: str  # "higher" or "lower"
    target: str = ""
    met: bool | None = None
    notes: str = ""
    error: str = ""
    ratio: float | None = field(default=None)
    scale: int = 0  # passages in the archive it was measured on
    earlier: bool = False  # carried over from an earlier run's results (--supplement)

    def __post_init__(self) -> None:
        # No measurement (e.g. no request answered) is "no value", never NaN.
        if self.value is not None and math.isnan(self.value):
            self.value = None
        if self.baseline_value is not None and math.isnan(self.baseline_value):
            self.baseline_value = None
        if self.ratio is None and self.value is not None and self.baseline_value:
            self.ratio = self.value / self.baseline_value


@dataclass
class Run:
    args: argparse.Namespace
    figures: list[Figure] = field(default_factory=list)
    plans: dict[str, str] = field(default_factory=dict)
    context: dict[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    done: list[str] = field(default_factory=list)
    finished: bool = False

    def add(self, figure: Figure) -> None:
        figure.scale = figure.scale or self.args.scale
        self.figures.append(figure)
        shown = "—" if figure.value is None else f"{figure.value:,.2f} {figure.unit}"
        base = "—" if figure.baseline_value is None else f"{figure.baseline_value:,.2f} {figure.unit}"
        ratio = "" if figure.ratio is None else f", ratio {figure.ratio:.2f}"
        state = {True: " [target met]", False: " [target MISSED]", None: ""}[figure.met]
        say(f"  {figure.name}: {shown} vs {base}{ratio}{state}{' ERROR ' + figure.error if figure.error else ''}")

    def fail(self, names: list[tuple[str, str, str]], error: BaseException) -> None:
        message = f"{type(error).__name__}: {error}"
        for name, unit, better in names:
            self.add(Figure(name, None, unit, "", None, better, error=message.splitlines()[0][:300]))


def say(message: str) -> None:
    stamp = time.strftime("%H:%M:%S", time.gmtime())
    print(f"[{stamp}] {message}", flush=True)


@contextmanager
def stage(run: Run, title: str, names: list[tuple[str, str, str]]) -> Iterator[None]:
    """Run one group of figures; on failure print the error, record it, and carry on."""
    say(f"{title} …")
    started = time.perf_counter()
    try:
        yield
    except Exception as error:  # a broken component must not stop the other figures
        traceback.print_exc()
        run.fail(names, error)
    say(f"{title}: {time.perf_counter() - started:.1f} s")
