"""Services: every write of the games room (see ARCHITECTURE.md)."""
