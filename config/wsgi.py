"""WSGI entry point, used by gunicorn."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

from config.warm_up import build_snapshots, warm_up  # noqa: E402  (after the apps are loaded)

warm_up()
build_snapshots()
