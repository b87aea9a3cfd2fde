"""The archive: historical records, each statement traced to a passage of its source."""
