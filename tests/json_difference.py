"""Where two JSON documents first differ, for a failure a reader can act on."""

from __future__ import annotations


def first_difference(a: object, b: object, at: str = "", *, ordered: bool = True) -> str | None:
    """The path of the first field where `a` and `b` differ (keys, their order if `ordered`, values), or None."""
    if type(a) is not type(b):
        return f"{at}: {a!r:.160} != {b!r:.160}"
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) ^ set(b)):
            return f"{at}.{key}: present on one side only"
        if ordered and list(a) != list(b):
            return f"{at}: keys in another order, {list(a)} != {list(b)}"
        for key in a:
            found = first_difference(a[key], b[key], f"{at}.{key}", ordered=ordered)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{at}: {len(a)} items != {len(b)} items"
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{at}[{index}]", ordered=ordered)
            if found:
                return found
        return None
    return None if a == b else f"{at}: {a!r:.160} != {b!r:.160}"
