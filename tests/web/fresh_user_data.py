"""Readings shared by the fresh-user tests (browser and test client)."""

#: A Sand Castles reading (../shared/contracts/sand-castles.md): the middle castle complete, the bottom
#: one flooded.
SAND_STATE = {"game": "sand-castles", "walls_left": 4, "lanes": {
    "top": {"length": 8, "wave": 3, "wall": False, "castle_pieces": 2, "flooded": False},
    "middle": {"length": 8, "wave": 5, "wall": True, "castle_pieces": 3, "flooded": False},
    "bottom": {"length": 8, "wave": 8, "wall": False, "castle_pieces": 0, "flooded": True}}}
