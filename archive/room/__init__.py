"""The public reading room: read-only pages of the approved archive for readers who do not write code.

Records, the source editions, the timeline, the map and the order of battle,
all read through `archive.selectors` and `archive.statements`, so that the
room shows exactly what the API shows in the same fiction mode.
"""
