"""``/health/``: can this process serve the archive? For load balancers and operators.

It answers 200 when the primary database answers and every migration is
applied, and 503 otherwise, always as JSON and never as a 500: a check that
fails is reported, not raised. A read replica that is down is reported
(``"status": "degraded"``) but keeps the answer at 200, because the router
already sends its reads to the primary; a 503 would make the load balancer take
every web process out of service for a fault that costs only capacity.

The body names checks and error classes, never connection strings, host
names or exception messages (those go to the log, with the request id).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config import routers

logger = logging.getLogger("archive.health")

# How many pending migrations the body names; the count is always complete.
_LISTED_MIGRATIONS = 20


def _failure(check: str, alias: str, error: BaseException) -> dict[str, Any]:
    logger.error("health check %s failed on %s", check, alias, exc_info=error)
    return {"ok": False, "error": type(error).__name__}


def check_database(alias: str) -> dict[str, Any]:
    """Run one trivial query on ``alias``; on PostgreSQL also say whether it is a standby."""
    started = time.perf_counter()
    try:
        connection = connections[alias]
        connection.close_if_health_check_failed()
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SELECT pg_is_in_recovery()")
                in_recovery = bool(cursor.fetchone()[0])
            else:
                cursor.execute("SELECT 1")
                cursor.fetchone()
                in_recovery = None
    except Exception as error:
        # A broken connection is closed by Django at the end of the request
        # (errors_occurred); closing it here would break an enclosing transaction.
        return _failure("database", alias, error)
    result: dict[str, Any] = {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}
    if in_recovery is not None:
        result["in_recovery"] = in_recovery
    return result


def pending_migrations(alias: str = DEFAULT_DB_ALIAS) -> list[str]:
    """Migrations known to the code but not applied to ``alias``, in the order they would run."""
    executor = MigrationExecutor(connections[alias])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]


def check_migrations() -> dict[str, Any]:
    try:
        pending = pending_migrations()
    except Exception as error:
        return _failure("migrations", DEFAULT_DB_ALIAS, error)
    return {"ok": not pending, "pending": len(pending), "names": pending[:_LISTED_MIGRATIONS]}


def check_replicas() -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    for alias in routers.replica_aliases():
        result = check_database(alias)
        if result["ok"] and result.get("in_recovery") is False:
            # Reachable but promoted or misconfigured: it would serve stale or diverging reads.
            result = {"ok": False, "error": "NotAStandby"}
        if result["ok"]:
            routers.mark_up(alias)
        else:
            routers.mark_down(alias)
        results[alias] = result
    return results


@never_cache
@require_safe
def health(request: HttpRequest) -> JsonResponse:
    checks: dict[str, Any] = {}
    try:
        checks["database"] = check_database(DEFAULT_DB_ALIAS)
        checks["migrations"] = (
            check_migrations() if checks["database"]["ok"] else {"ok": False, "error": "DatabaseUnavailable"}
        )
        checks["replicas"] = check_replicas()
    except Exception as error:  # a bug in a check must still give an answer
        checks["internal"] = _failure("internal", DEFAULT_DB_ALIAS, error)
    essential_ok = all(checks.get(name, {}).get("ok") for name in ("database", "migrations")) and (
        "internal" not in checks
    )
    replicas_ok = all(result["ok"] for result in checks.get("replicas", {}).values())
    status = "error" if not essential_ok else ("ok" if replicas_ok else "degraded")
    return JsonResponse({"status": status, "checks": checks}, status=200 if essential_ok else 503)
