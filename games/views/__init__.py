"""The game pages (HTML). The REST API lives in games.api."""
