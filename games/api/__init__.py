"""The REST API of the games room (DRF + drf-spectacular)."""
