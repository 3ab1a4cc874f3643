"""The two SQLite files: where they live, how they are opened, the rule that keeps their locks."""
