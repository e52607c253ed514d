"""The grid reader: a token (or none) on every place of a regular grid (:mod:`vision.grid.reader`)."""

from vision.grid.reader import MODEL_VERSION, annotate, learn, read
from vision.types import GameReader

#: The grid reader (:class:`vision.types.Reader`).
READER = GameReader(game="grid", learn=learn, read=read, annotate=annotate, model_version=MODEL_VERSION)
