"""The Seashells reader: one player's mat → shells per colour and shape (:mod:`vision.seashells.reader`)."""

from vision.seashells.column_light import column_doubts
from vision.seashells.reader import DECODE_REDUCE, MODEL_VERSION, annotate, learn, read
from vision.types import GameReader

#: The Seashells reader (:class:`vision.types.Reader`).
READER = GameReader(game="seashells", learn=learn, read=read, annotate=annotate, decode_reduce=DECODE_REDUCE,
                    model_version=MODEL_VERSION, judges_glare=True, column_doubts=column_doubts)
