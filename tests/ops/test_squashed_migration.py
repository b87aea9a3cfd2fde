"""The squashed migration makes the schema that the 23 migrations it replaces make, and stands in for them.

Two new SQLite files in subprocesses of their own: one migrated as a new database is (the squashed
migration), one through the replaced migrations one by one, as a database made before the squash
was. Their tables (columns, foreign keys, constraints), indexes, triggers and review groups are
the same, the order of columns aside; and the second, read by today's code, has nothing pending.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.engine_independent  # SQLite files of its own, in subprocesses

# Migrates through the replaced migrations (the squash set aside), then prints what today's code finds pending.
THROUGH_THE_REPLACED = """
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from archive import health
executor = MigrationExecutor(connection)
loader = executor.loader = MigrationLoader(connection, replace_migrations=False)
executor.migrate([node for node in loader.graph.leaf_nodes() if not loader.disk_migrations[node].replaces])
print(json.dumps(health.pending_migrations()))
"""

# What the schema holds: each table's columns (sorted), foreign keys and SQL words (constraints included),
# each index and trigger, and the permissions of the review groups.
SCHEMA = """
import re
from django.db import connection
found = {}
with connection.cursor() as cursor:
    cursor.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
    for kind, name, sql in cursor.fetchall():
        words = sorted(re.sub(r"[(),]", " ", sql or "").split())
        if kind == "table":
            cursor.execute(f'PRAGMA table_info("{name}")')
            columns = sorted(row[1:] for row in cursor.fetchall())
            cursor.execute(f'PRAGMA foreign_key_list("{name}")')
            keys = sorted(row[2:] for row in cursor.fetchall())
            found[f"table {name}"] = [columns, keys, words]
        else:
            found[f"{kind} {name}"] = words
    cursor.execute("SELECT g.name, p.codename FROM auth_group_permissions gp JOIN auth_group g ON g.id = gp.group_id "
                   "JOIN auth_permission p ON p.id = gp.permission_id ORDER BY 1, 2")
    found["review groups"] = cursor.fetchall()
print(json.dumps(found, default=list))
"""


def _django(code: str, database: Path) -> str:
    env = {**os.environ, "DEBUG": "1", "SECRET_KEY": "test-secret", "DATABASE_URL": f"sqlite:///{database}",
           "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run([sys.executable, "-c", f"import django, json\ndjango.setup()\n{code}"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


def test_the_squashed_migration_makes_the_schema_of_the_migrations_it_replaces(tmp_path: Path) -> None:
    squashed, replaced = tmp_path / "squashed.sqlite3", tmp_path / "replaced.sqlite3"
    _django("from django.core.management import call_command\ncall_command('migrate', verbosity=0)\nprint('ok')",
            squashed)
    assert json.loads(_django(THROUGH_THE_REPLACED, replaced)) == []
    made, made_before = json.loads(_django(SCHEMA, squashed)), json.loads(_django(SCHEMA, replaced))
    assert made.keys() == made_before.keys()
    assert [name for name in made if made[name] != made_before[name]] == []
    assert made["review groups"]  # the groups hold their permissions
    assert any(name.startswith("trigger ") for name in made)
