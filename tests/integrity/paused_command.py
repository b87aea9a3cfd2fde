"""A management command that stops at a known point inside its transaction, for the fault tests.

``python -m tests.integrity.paused_command MODULE:FUNCTION COMMAND [ARGS...]`` wraps
``MODULE.FUNCTION`` so that, the first time it returns, the process prints
``PAUSED`` and waits (at most a minute) to be killed, with everything written
so far in the open transaction; then it runs ``COMMAND``.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from typing import Any


def main(argv: list[str]) -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.core.management import call_command

    target, command, *args = argv
    module_name, function_name = target.split(":")
    module = importlib.import_module(module_name)
    real = getattr(module, function_name)

    def paused(*inner: Any, **kwargs: Any) -> Any:
        result = real(*inner, **kwargs)
        print("PAUSED", flush=True)
        time.sleep(60)
        return result

    setattr(module, function_name, paused)
    call_command(command, *args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
