"""How a reading is compared with a sample's truth (``scene_*.truth.json``), as ``evaluate.py``
counts a scene fully right; shared by the sample tests and ``scripts/fit_plazing.py``."""

from collections import Counter


def plazing_piece_key(p: dict) -> tuple:
    """A Plażing piece as compared: player, kind, its cells (sorted), facing."""
    return p["player"], p["kind"], tuple(sorted(map(tuple, p["cells"]))), p.get("facing")


def plazing_exact(truth: dict, state: dict) -> bool:
    """Whether a Plażing state is the truth's: pieces with kinds, cells and facings; meeples,
    resources, neutral markers."""
    st = truth["state"]
    return (Counter(map(plazing_piece_key, st["pieces"])) == Counter(map(plazing_piece_key, state["pieces"]))
            and Counter((m["player"], tuple(m["cell"])) for m in st["meeples"])
            == Counter((m["player"], tuple(m["cell"])) for m in state["meeples"])
            and Counter((m["kind"], tuple(m["cell"])) for m in st["resources"])
            == Counter((m["kind"], tuple(m["cell"])) for m in state["resources"])
            and sorted(map(tuple, st["neutral"])) == sorted(map(tuple, state["neutral"])))


def strand_exact(truth: dict, state: dict) -> bool:
    """Whether a Strand unter state is the truth's: sea front, sandpiper, each groove's shells and
    castles (player, value)."""
    def norm(s):
        return (s["sea_front"], s["sandpiper"], [(g["number"], g["shells"], sorted((c["player"], c["value"])
                for c in g["castles"])) for g in s["grooves"]])
    return norm(truth["state"]) == norm(state)
