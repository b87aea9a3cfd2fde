"""`manage.py audit`: list what the archive's own checks find; exit 1 on an unexplained error."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from archive.audit import run_audit
from archive.audit.checks import CHECKS


class Command(BaseCommand):
    help = "Check the published archive (approved records) and list the findings; exit 1 on an error-level finding."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument(
            "--check", action="append", dest="codes", choices=[c.code for c in CHECKS], help="run only this check"
        )
        parser.add_argument("--explained", action="store_true", help="also list the findings curators' notes explain")

    def handle(self, *args: Any, **options: Any) -> None:
        report = run_audit(codes=options["codes"])
        if options["format"] == "json":
            payload = {
                "summary": report.counts() | {"explained": len(report.explained)},
                # Every check that ran, found something or not, so that a new check shows in CI's output.
                "checks": [
                    {
                        "code": c.code,
                        "level": str(c.level),
                        "summary": c.summary,
                        "findings": sum(1 for f in report.open if f.code == c.code),
                        "explained": sum(1 for f in report.explained if f.code == c.code),
                    }
                    for c in CHECKS
                    if not options["codes"] or c.code in options["codes"]
                ],
                "findings": [f.as_dict() for f in report.findings],
            }
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=1))
        else:
            shown = report.findings if options["explained"] else report.open
            for finding in shown:
                where = ", ".join(f"{p.source.slug} §{p.seq}" for p in finding.passages)
                record = f"{finding.model} {finding.slug}" if finding.record is not None else "-"
                line = f"{finding.level.upper():7} {finding.code:28} {record}: {finding.message}"
                if finding.field:
                    line += f"\n        {finding.field}: «{finding.quote}»" if finding.quote else f" ({finding.field})"
                if where:
                    line += f" [{where}]"
                if finding.explained_by:
                    line += f"\n        explained: {finding.explained_by}"
                self.stdout.write(line)
            self.stdout.write(f"audit: {report.summary()}")
        if report.has_errors:
            raise CommandError("the audit found error-level findings", returncode=1)
