"""The grid reader: a token (or none) on every place of a regular grid (:mod:`vision.grid.reader`)."""
