"""The README's first command (a new user's first minute) prints every player's beach points."""

import os
import re
import shlex

from beachscore.cli import main

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def first_command() -> list[list[str]]:
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        block = re.search(r"```bash\n(.*?)```", f.read(), re.S).group(1)
    line = next(ln for ln in block.splitlines() if ln.startswith("python3 -m venv"))
    return [shlex.split(part) for part in line.split(" && ")]


def test_first_command_prints_totals(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    steps = [argv for argv in first_command() if argv[0] == ".venv/bin/beachscore"]
    assert [argv[1] for argv in steps] == ["calibrate", "scan"]
    for argv in steps:
        args = [str(tmp_path / "cal") if a == ".cal/strand-unter" else
                str(tmp_path / a) if a.endswith(".annotated.png") else a for a in argv[1:]]
        assert main(args) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    players = [ln for ln in out.splitlines() if re.match(r"\s+\w+: ", ln) and "castle points" in ln]
    assert len(players) >= 2 and all(re.search(r"→ -?\d+ beach points$", ln) for ln in players), out
    assert "unknown" not in out and "Ranking (by beach points)" in out
    assert (tmp_path / "scene_05.annotated.png").is_file()
