"""The API as a new worker started before it warmed up: the same application, without `config.warm_up`.

The baseline of the first-request figures (`bench/stages/first_request.py`),
served by gunicorn like the API: `gunicorn bench.cold_app:application`.
"""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
