"""The Sand Castles reader: per lane the wave, the wall, the castle pieces, flooding (:mod:`vision.sand_castles.reader`)."""
