import time, cProfile, pstats
import pytest
from django.test import Client
from django.db.models.signals import post_init
pytestmark = pytest.mark.usefixtures("shipped")

def test_probe():
    c = Client()
    from archive.models import Source
    src = Source.objects.order_by("slug").first().slug
    paths = ["/night/", f"/sources/{src}/", "/order-of-battle/", "/map/", "/timeline/", "/"]
    for p in paths: c.get(p)
    counts = {}
    def count(sender, **kw): counts[sender.__name__] = counts.get(sender.__name__, 0) + 1
    for p in paths:
        counts.clear(); post_init.connect(count, weak=False)
        t=time.perf_counter()
        for _ in range(3): c.get(p)
        post_init.disconnect(count)
        print(p, round((time.perf_counter()-t)/3*1000), "ms", {k: v//3 for k, v in counts.items()})
    pr=cProfile.Profile(); pr.enable()
    for _ in range(3): c.get(paths[0])
    pr.disable(); st=pstats.Stats(pr); st.print_callers("trans_real.py:368"); st.sort_stats("cumulative").print_stats("archive", 40)
