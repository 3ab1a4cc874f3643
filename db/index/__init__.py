"""The index (index.sqlite): its schema, and the sync that keeps it in step with the seed files."""
