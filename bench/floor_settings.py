"""The API's settings with the URLs of `bench.floor_urls`: the stack's own cost, measured apart.

Served by gunicorn like the API (`bench/stages/floor.py`), so that the
figures beside the baseline show how much of a small document's time is
Django's middleware and DRF's dispatch, before any view reads anything.
"""

from config.settings import *  # noqa: F403  # every setting of the API, the URL configuration aside

ROOT_URLCONF = "bench.floor_urls"
