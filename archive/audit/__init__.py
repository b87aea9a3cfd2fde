"""The archive checks itself: `python manage.py audit` and the curators' audit page.

Each check (`checks.py`) is one small function over the published records
that yields findings; `runner.run_audit` runs them all and sets aside what a
curator's note stored in the data explains. An unexplained error-level
finding fails the command (and CI, on the shipped collection).
"""

from .findings import Finding, Level
from .runner import Report, run_audit

__all__ = ["Finding", "Level", "Report", "run_audit"]
