"""The read-only REST API."""
