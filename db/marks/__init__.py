"""The reader's own data (marks.sqlite): marks, notes, tags, their history, backups, repair,
transfer."""
