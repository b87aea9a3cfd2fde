"""Run the registered checks and set aside the findings that curators' notes explain."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from archive.models import CuratorNote

from . import text_checks  # noqa: F401  (registers the checks that read the text)
from .checks import CHECKS
from .findings import LEVELS, Finding, Level


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)

    @property
    def open(self) -> list[Finding]:
        """The findings no curator's note explains."""
        return [f for f in self.findings if not f.explained_by]

    @property
    def explained(self) -> list[Finding]:
        return [f for f in self.findings if f.explained_by]

    def counts(self) -> dict[str, int]:
        """Open findings by level, every level present."""
        counted = Counter(f.level for f in self.open)
        return {str(level): counted.get(level, 0) for level in LEVELS}

    @property
    def has_errors(self) -> bool:
        return any(f.level == Level.ERROR for f in self.open)

    def summary(self) -> str:
        counts = self.counts()
        return (
            f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info; "
            f"{len(self.explained)} explained by curators' notes"
        )


def run_audit(*, codes: Iterable[str] | None = None) -> Report:
    """Run the checks (all, or those whose code is in `codes`) over the published archive."""
    wanted = set(codes) if codes else None
    notes = {(n.model, n.record, n.code): n.note for n in CuratorNote.objects.all()}
    report = Report()
    for registered in CHECKS:
        if wanted is not None and registered.code not in wanted:
            continue
        for finding in registered.run():
            if finding.record is not None and not finding.explained_by:
                finding.explained_by = notes.get((finding.model, finding.slug, finding.code), "")
            report.findings.append(finding)
    order = {level: n for n, level in enumerate(LEVELS)}
    report.findings.sort(key=lambda f: (bool(f.explained_by), order[f.level], f.code, f.model, f.slug))
    return report
