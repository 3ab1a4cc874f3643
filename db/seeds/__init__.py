"""Seed files: finding, reading and parsing them into entries, names and headlines, and rendering
their text."""
