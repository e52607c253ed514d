"""What to tell the user when the light makes two classes look alike: the game's words and the cure.

Input: a game and two of its calibration classes. Output: one sentence naming the pair as the
players say it (``shell tokens and bare sand look alike in this light``) and what helps.
"""

from __future__ import annotations

#: What helps when two classes look alike: the light's strength, its colour, and glare.
REMEDY = ("more or whiter light (a daylight-white lamp) helps, and so does moving a lamp so "
          "its reflection is off the board; then calibrate again")

#: What helps when a lamp's reflection blows out part of the board.
GLARE_REMEDY = ("moving the lamp (or the board) so its reflection is off the board helps, and so does shading "
                "the lamp or lowering the camera's exposure; then calibrate again")

#: Plażing's token and piece words (calibration label → what players call it).
_PLAZING = {"resource/shell": "shell tokens", "resource/amber": "amber tokens", "resource/pebble": "pebble tokens",
            "neutral": "neutral markers", "trash": "trash tokens", "surprise": "surprise tokens", "sand": "bare sand"}
_STRAND = {"sand": "bare sand", "sea": "the sea cloth", "sandpiper": "the sandpiper", "stick": "the sea's stick"}
_SEASHELLS = {"shell": "shells on the towel", "empty": "empty towel cells"}
_SAND_CASTLES = {"wave": "waves", "wall": "walls", "space": "empty lane spaces", "castle_piece": "castle pieces",
                 "slot": "empty castle slots"}


def class_words(game: str, label: str) -> str:
    """A class as players say it.

    >>> class_words("plazing", "meeple/red"), class_words("strand-unter", "shell/white")
    ('red meeples', 'white shells')
    >>> class_words("plazing", "piece/blue"), class_words("strand-unter", "castle/green")
    ('blue pieces', 'green castles')
    """
    parts = label.split("/")
    if game == "plazing":
        if parts[0] in ("piece", "meeple") and len(parts) >= 2:
            return f"{parts[1]} {parts[0]}s"
        return _PLAZING.get(label, label)
    if game == "strand-unter":
        if parts[0] in ("shell", "castle") and len(parts) >= 2:
            return f"{parts[1]} {parts[0]}s"
        return _STRAND.get(label, label)
    if game == "seashells":
        return _SEASHELLS.get(label, label)
    if game == "sand-castles":
        return _SAND_CASTLES.get(label, label)
    return label


def pair_advice(game: str, a: str, b: str) -> str:
    """The sentence for a pair the light makes look alike.

    >>> pair_advice("plazing", "resource/shell", "sand").split(":")[0]
    'shell tokens and bare sand look alike in this light'
    """
    return f"{class_words(game, a)} and {class_words(game, b)} look alike in this light: {REMEDY}"


def column_advice(game: str, column: str, empty_samples: int, bare_cell_mm=None) -> str:
    """The sentence for a colour column whose shells and bare towel look alike on the calibration shot
    (:mod:`vision.seashells.column_light`); ``empty_samples``: the column's cells labelled empty. The
    reader learns the bare towel from the empty samples, so a column without one is told to get one
    (at ``bare_cell_mm``, the column's free cell that looks most plainly bare, when given).

    >>> column_advice("seashells", "pink", 0, [162, 34]).split(":")[0]
    'pink shells and the bare pink towel look alike in this light, and no empty pink cell is labelled'
    """
    said = f"{column} shells and the bare {column} towel look alike in this light"
    if empty_samples:
        return f"{said}: {REMEDY}"
    where = "" if bare_cell_mm is None else f" (the one at {bare_cell_mm[0]:g},{bare_cell_mm[1]:g} mm, for instance)"
    return (f"{said}, and no empty {column} cell is labelled: label one or two empty {column} cells as "
            f"empty{where} and calibrate again; more or whiter light helps too")


def glare_advice(game: str, cells: list[str]) -> str:
    """The sentence for places of pale pieces the calibration shot shows blown out by a lamp's reflection.

    >>> glare_advice("seashells", ["scallop/white"]).split(":")[0]
    "a lamp's reflection blows out the towel at scallop/white"
    """
    where = {"seashells": "the towel"}.get(game, "the board")
    return (f"a lamp's reflection blows out {where} at {', '.join(cells)}: a pale piece there may be lost in it, "
            f"so readings are doubted there; {GLARE_REMEDY}")


#: What a label's last part means, by its kind (``castle/red/2``: a castle of value 2).
PART_WORDS = {"castle": "value", "screen": "facing", "fossil": ""}
#: Classes a reader learns by itself, nobody labels them: what they are, said to a player.
FOUND_BY_ITSELF = {"stick": "the stick under the sea cloth's edge: learned so that nothing there counts as a piece"}


def words_of(game: str, label: str) -> str:
    """A class or label as players say it: ``castle/red`` → ``red castles``, ``castle/red/2`` → ``red
    castle, value 2``, ``sand_dollar`` → ``sand dollar``.

    >>> words_of("strand-unter", "castle/red/2"), words_of("plazing", "screen/blue/N"), words_of("seashells", "sand_dollar")
    ('red castle, value 2', 'blue screen, facing N', 'sand dollar')
    """
    parts = label.split("/")
    if len(parts) >= 3:
        part = PART_WORDS.get(parts[0], "")
        return f"{parts[1]} {parts[0].replace('_', ' ')}, {part + ' ' if part else ''}{'/'.join(parts[2:])}"
    said = class_words(game, label)
    if said == label and len(parts) == 2:
        return f"{parts[1]} {parts[0].replace('_', ' ')}"
    return said.replace("_", " ")
