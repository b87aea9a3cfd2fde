"""`python -m bench.synthetic --passages N --seed S`: Django set up as `manage.py` does, then the command."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from bench.synthetic.command import main  # noqa: E402  (the apps must be loaded first)

sys.exit(main())
