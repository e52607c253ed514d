"""beachscore: read a beach board game from one photo and score it.

Data flows one way: ``hardware`` (camera, button) → ``vision`` (photo → game state)
→ ``scoring`` (state → score, pure functions) → ``web`` / store. This package holds the
command line and the station that wires those parts together.
"""

__version__ = "0.1.0"

import os as _os

# OpenCV reads its decoder pixel limit once, when cv2 loads: set it before anything imports cv2
# (every entry point imports this package first). vision.image.decode.MAX_PIXELS is the same limit,
# checked from the header before decoding.
_os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(64_000_000))
