"""The Sand Castles reader: per lane the wave, the wall, the castle pieces, flooding (:mod:`vision.sand_castles.reader`)."""

from vision.sand_castles.reader import DECODE_REDUCE, annotate, learn, read, read_area
from vision.types import GameReader

#: The Sand Castles reader (:class:`vision.types.Reader`).
READER = GameReader(game="sand-castles", learn=learn, read=read, annotate=annotate, decode_reduce=DECODE_REDUCE,
                    reads_within=read_area)
