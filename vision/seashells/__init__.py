"""The Seashells reader: one player's mat → shells per colour and shape (:mod:`vision.seashells.reader`)."""
