"""`horizon serve`: a read-only web view of the hives (needs the web extra)."""
