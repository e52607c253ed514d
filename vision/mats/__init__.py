"""What the mat readers (Seashells, Sand Castles) share: the basket, ring contrast, quality checks, config."""
