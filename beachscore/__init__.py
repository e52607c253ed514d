"""beachscore: read a beach board game from one photo and score it.

Data flows one way: ``hardware`` (camera, button) → ``vision`` (photo → game state)
→ ``scoring`` (state → score, pure functions) → ``web`` / store. This package holds the
command line and the station that wires those parts together.
"""

__version__ = "0.1.0"
