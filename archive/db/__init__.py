"""Database-level rules that Django's constraints cannot express."""
