import time
from django.db import transaction
from tests.api.world import build_world
from tests.table_rows import TableRows
def test_w(db):
    t=time.perf_counter(); before=TableRows.read(); t1=time.perf_counter()
    w=build_world(); t2=time.perf_counter()
    rows=TableRows.read().added_since(before); t3=time.perf_counter()
    print(f"\nread {t1-t:.2f} build {t2-t1:.2f} added {t3-t2:.2f}", sum(len(v) for v in rows.rows.values()))
