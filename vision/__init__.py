"""Vision: photo (BGR uint8) → game state. Never scores; see ``scoring`` for that."""
