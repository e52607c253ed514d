"""Unit tests of the Strand unter stages' models (no photo needed): posteriors, the robust motion,
the light's colour field, the weak colour change, touching castles, the confidence's product."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.strand_unter import castle_values, castles, colour, shells
from vision.strand_unter.blobs import weak_change
from vision.strand_unter.confidence import Decisions
from vision.strand_unter.config import REGISTRATION
from vision.strand_unter.lighting import chroma_field, sand_gains
from vision.strand_unter.robust_motion import robust_motion, tukey


def test_assignment_posterior_is_sure_when_the_cues_agree_and_a_coin_toss_when_they_do_not():
    never = np.full(2, -50.0)                          # "no castle" far less likely than any value
    values, per, joint = castle_values.assignment_posterior(np.array([[0.0, -9.0], [-9.0, -0.5]]), never, [0, 1])
    assert values == [0, 1] and joint > 0.99 and min(per) > 0.99
    values, per, joint = castle_values.assignment_posterior(np.array([[-1.0, -1.0], [-1.0, -1.0]]), never, [0, 1])
    assert joint == pytest.approx(0.5) and per == pytest.approx([0.5, 0.5])
    values, _, _ = castle_values.assignment_posterior(np.zeros((3, 2)), np.full(3, -50.0), [0, 1])
    assert values.count(None) == 1                  # a third castle of two values gets none


def test_assignment_posterior_leaves_a_shell_look_alike_out_rather_than_bump_a_castle_a_value():
    """A lamp makes a brown shell look red: it fits value 0 a little worse than the real red 0 castle
    and a shell well enough: the castle keeps 0, the look-alike is no castle (not the castle 1)."""
    loglik = np.array([[-2.0, -12.0], [-4.0, -14.0]])       # the real castle, the look-alike
    values, per, _ = castle_values.assignment_posterior(loglik, np.array([-30.0, -5.0]), [0, 1])
    assert values == [0, None] and min(per) > 0.7


@pytest.mark.parametrize("ratio,count", [(0.15, 0), (0.95, 1), (1.1, 1), (2.05, 2), (2.9, 3)])
def test_count_posterior_picks_the_count_the_area_says(ratio, count):
    p = shells.count_posterior(ratio)
    assert int(np.argmax(p)) == count and p.sum() == pytest.approx(1.0)


def test_count_posterior_doubts_a_half_seen_shell():
    """A shell-coloured part of 0.45 shells: a speck or a shell barely standing out from the sand."""
    p = shells.count_posterior(0.45)
    assert 0.3 < p[1] < 0.7


def test_a_one_shell_area_the_calibration_samples_disagree_on_makes_two_shells_a_doubt():
    """Two white samples of 71 and 98 px² (a pale shell seen over part of its area): a part of 1.9
    such shells is no sure two; samples that agree leave the count as it was."""
    assert shells.reference_var([188, 175]) == 0.0 and shells.reference_var([120]) == 0.0
    ref = shells.reference_var([71, 98])
    assert ref > 0.01
    assert np.argmax(shells.count_posterior(1.9)) == 2
    assert max(shells.count_posterior(1.9, ref_var=ref)) < 0.8
    assert np.argmax(shells.count_posterior(1.0, ref_var=ref)) == 1


def _strips(motion, n=20, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    w, h = 440.0, 380.0
    rows = []
    for k in range(n):
        if k % 3:
            y = rng.uniform(0, h)
            rows.append([1.0, 0.0, -(y - h / 2)])
        else:
            x = rng.uniform(0, w)
            rows.append([0.0, 1.0, x - w / 2])
    rows = np.array(rows)
    return rows, rows @ np.asarray(motion) + rng.normal(0, noise, n)


def test_robust_motion_ignores_strips_a_hand_disturbs():
    rows, rhs = _strips([2.0, -1.0, np.radians(0.8)])
    rhs[[1, 4]] += 6.0                                   # two strips hidden by something
    sol, keep, sigma = robust_motion(rows, rhs, REGISTRATION)
    assert np.allclose(sol[:2], [2.0, -1.0], atol=0.05) and abs(np.degrees(sol[2]) - 0.8) < 0.02
    assert not keep[1] and not keep[4] and sigma < 0.2


def test_no_motion_gains_nothing_over_standing_still():
    """Strips that only show noise: the best motion lowers their robust cost by less than the
    χ² 99.9% quantile, so the board is "not moved"; a true 1 mm push gains far more."""
    for motion, moved in (([0.0, 0.0, 0.0], False), ([1.0, 0.0, 0.0], True)):
        rows, rhs = _strips(motion, noise=0.1, seed=3)
        sol, keep, sigma = robust_motion(rows, rhs, REGISTRATION)
        gain = float(tukey(rhs / sigma).sum() - tukey((rhs - rows @ sol) / sigma).sum())
        assert (gain > REGISTRATION.moved_gain) == moved, gain


def _sand_assets(h=380, w=440, seed=0):
    rng = np.random.default_rng(seed)
    empty = np.clip(np.array([150, 190, 218], np.float32) + rng.normal(0, 3, (h, w, 3)), 0, 255).astype(np.uint8)
    grooves = np.zeros((h, w), bool)
    grooves[25:355, 30:410] = True
    idx6 = np.nonzero(grooves[::6, ::6].ravel())[0]
    yy, xx = np.mgrid[0:h:6, 0:w:6]
    return SimpleNamespace(empty=empty, ppm=1.0, sand_idx6=idx6,
                           empty_sand6=empty[::6, ::6].reshape(-1, 3)[idx6].astype(np.float32),
                           sand_xy6=(xx.ravel()[idx6].astype(np.float64), yy.ravel()[idx6].astype(np.float64)))


def test_chroma_field_undoes_a_lamp_warming_one_side():
    A = _sand_assets()
    h, w = A.empty.shape[:2]
    u = np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :]
    warm = np.stack([np.exp(-0.08 * u), np.ones_like(u), np.exp(0.08 * u)], -1)    # red up, blue down to the right
    scan = cv2.multiply(A.empty, np.broadcast_to(warm, (h, w, 3)).astype(np.float32), dtype=cv2.CV_8U)
    fld = chroma_field(scan, scan, A)
    assert fld is not None and fld.range > 0.05
    fixed = cv2.multiply(scan, fld.scale((h, w)), dtype=cv2.CV_8U).astype(np.float32)
    ref = A.empty.astype(np.float32)
    lr = np.log(fixed + 1) - np.log(ref + 1)
    chroma_err = np.abs(lr - lr.mean(axis=2, keepdims=True))[30:350, 40:400].mean()
    before = np.log(scan.astype(np.float32) + 1) - np.log(ref + 1)
    assert chroma_err < 0.3 * np.abs(before - before.mean(axis=2, keepdims=True))[30:350, 40:400].mean()


def test_chroma_field_is_none_under_even_light():
    A = _sand_assets()
    assert chroma_field(A.empty, A.empty, A) is None


def test_weak_change_sees_a_sand_like_patch_and_not_the_noise():
    A = _sand_assets(seed=1)
    basis = colour.change_basis([150, 190, 218])
    scan = A.empty.astype(np.int16)
    scan[100:160, 100:180] += np.array([-6, 0, 8], np.int16)        # a lit hand: a little redder, a little less blue
    scan = np.clip(scan, 0, 255).astype(np.uint8)
    valid = np.ones(scan.shape[:2], bool)
    weak = weak_change(scan, A.empty, basis, valid)
    assert weak[110:150, 110:170].mean() > 0.9
    assert weak[250:350, 250:400].mean() < 0.01


def test_touching_castles_of_one_player_are_split():
    core = np.zeros((60, 90), bool)
    cv2.circle(core.view(np.uint8), (25, 30), 13, 1, -1)
    cv2.circle(core.view(np.uint8), (55, 30), 16, 1, -1)
    parts = castles.split_core(core, float(core.sum()), min_core=300, max_core=900)
    assert len(parts) == 2 and sorted(int(p.sum()) for p in parts)[0] > 400
    # too small for two castles of at least 700 px: no split, no castle
    assert castles.split_core(core, float(core.sum()), min_core=700, max_core=900) == []
    again = castles.split_core(core, float(core.sum()), min_core=300, max_core=900)
    assert [int(p.sum()) for p in again] == [int(p.sum()) for p in parts]     # the same split every time


def test_confidence_is_the_product_and_names_the_weakest_first():
    d = Decisions()
    d.add("a", 0.95, ["a is unsure"])
    d.add("b", 0.5, ["b is unsure"])
    d.add("c", 1.0, [])
    conf, warnings = d.result()
    assert conf == pytest.approx(0.475) and warnings == ["b is unsure"]
    d.cap = 0.2
    assert d.result()[0] == pytest.approx(0.2)


@pytest.mark.parametrize("sigma_px", [0.6, 1.2])
def test_a_shells_colour_is_its_core_not_the_rim_the_blur_mixes_with_the_sand(sigma_px):
    """A dark shell (14 px across at the work scale) on pale sand, softened by a lens: its outer ring
    mixes with the sand, so the whole part's mean comes out far lighter than the shell, and the
    softer the photo the lighter; the core (one pixel inside the outline, the pixels the classes
    are learned from) stays near the shell's colour."""
    sand, dark = (120, 170, 200), (40, 42, 45)
    img = np.zeros((60, 60, 3), np.uint8)
    img[:] = sand
    cv2.circle(img, (30, 30), 7, dark, -1)
    img = cv2.GaussianBlur(img, (0, 0), sigma_px)
    lab_img = cv2.cvtColor(img, cv2.COLOR_BGR2Lab).astype(np.float64)
    rest = (np.abs(lab_img[..., 0] - lab_img[5, 5, 0]) > 30)          # the foreground: changed by > 30 levels
    n, labels = cv2.connectedComponents(rest.astype(np.uint8), connectivity=8)
    sel = np.flatnonzero(labels)
    lab_ = labels.reshape(-1)[sel]
    core = shells._core_mean_lab(rest, labels, sel, lab_, img, n)[1]
    whole = shells._mean_lab(lab_, img.reshape(-1, 3)[sel], n)[1]
    shell_l = cv2.cvtColor(np.uint8([[dark]]), cv2.COLOR_BGR2Lab)[0, 0, 0]
    assert whole[0] - shell_l > 8                   # the rim lightens the whole part's mean …
    assert core[0] - shell_l < 0.5 * (whole[0] - shell_l)   # … its core far less


def test_a_part_too_thin_for_a_core_keeps_the_mean_of_all_its_pixels():
    img = np.full((20, 20, 3), 200, np.uint8)
    img[10, 3:15] = (30, 30, 30)                    # a one-pixel line: no pixel has all 8 neighbours in it
    rest = img[..., 0] < 100
    n, labels = cv2.connectedComponents(rest.astype(np.uint8), connectivity=8)
    sel = np.flatnonzero(labels)
    lab_ = labels.reshape(-1)[sel]
    got = shells._core_mean_lab(rest, labels, sel, lab_, img, n)
    assert np.allclose(got, shells._mean_lab(lab_, img.reshape(-1, 3)[sel], n))


def _gain_assets(rng, sand=(150, 190, 218), extra=()):
    """Assets for :func:`lighting.sand_gains`: 11 grooves of 60 sand samples (BGR), classes sand (0),
    sea (1) and one player's colour (red, 2) learned from noisy pixels, then ``extra`` (name, BGR)
    classes: ``"stick"`` (the cloth's stick) or a player's (``"castle/..."``)."""
    sand, sea, red = np.array(sand), np.array([170, 110, 40]), np.array([40, 40, 200])
    colours = [sand, sea, red] + [np.array(c) for _, c in extra]
    models = [colour.gaussian(colour.lab(np.clip(c + rng.normal(0, 6, (1, 200, 3)), 0, 255).astype(np.uint8)).reshape(-1, 3),
                              (10.0, 2.5, 2.5)) for c in colours]
    is_player = np.zeros(256, bool)
    is_cloth = np.zeros(256, bool)
    is_player[2] = True
    is_cloth[1] = True
    for k, (name, _) in enumerate(extra, start=3):
        (is_cloth if name == "stick" else is_player)[k] = True
    n = 11 * 60
    empty = np.clip(sand + rng.normal(0, 3, (n, 3)), 0, 255)
    return SimpleNamespace(lut=colour.build_lut(models, 5, 12.0), bits=5, sea=1, is_player=is_player, is_cloth=is_cloth,
                           empty_sand=empty.astype(np.uint8),
                           groove_idx3={g: np.arange((g - 1) * 60, g * 60) for g in range(1, 12)}), sand, sea, red


def test_a_groove_full_of_castles_does_not_set_the_light():
    """Sea front 2: the cloth covers grooves 2-11 and groove 1 is two-thirds castles. The table strip's
    gains leave only a third of the open samples at the empty board's colour, yet the castles' own
    pixels tell nothing of the light on the sand: the strip's gains are kept (before, groove 1's
    median ratio, castles and all, brightened the sand 10-20 % and no castle was seen)."""
    rng = np.random.default_rng(4)
    A, sand, sea, red = _gain_assets(rng)
    light = np.array([1.06, 1.05, 1.05])                          # the scan is 5 % brighter
    raw = A.empty_sand.astype(np.float64) * light
    raw[60:] = sea + rng.normal(0, 4, (600, 3))                  # the cloth
    raw[:40] = red * light + rng.normal(0, 4, (40, 3))           # castles in groove 1
    raw = np.clip(raw, 0, 255).astype(np.uint8)
    strip = 1.0 / light
    got = sand_gains(raw[None], strip, A, sand_raw=raw)
    assert got == pytest.approx(strip, rel=1e-6)


def test_the_cloths_stick_does_not_set_the_light():
    """The cloth lies far forward (grooves 2-11) and its stick, tan, covers two-thirds of groove 1's
    samples. The table strip's gains are right, and the stick's class is the cloth's: its samples
    tell nothing of the light, the strip's gains are kept (before, groove 1's median ratio, stick and
    all, made the sand 30-60 % brighter than the empty board: 20323 set-up 0 scene 1)."""
    rng = np.random.default_rng(5)
    tan = (90, 140, 170)
    A, sand, sea, red = _gain_assets(rng, extra=[("stick", tan)])
    light = np.array([1.06, 1.05, 1.05])
    raw = A.empty_sand.astype(np.float64) * light
    raw[60:] = sea + rng.normal(0, 4, (600, 3))                  # the cloth
    raw[:40] = np.array(tan) * light + rng.normal(0, 3, (40, 3))  # its stick across groove 1
    raw = np.clip(raw, 0, 255).astype(np.uint8)
    strip = 1.0 / light
    got = sand_gains(raw[None], strip, A, sand_raw=raw)
    assert got == pytest.approx(strip, rel=1e-6)


def test_clipped_sand_is_not_taken_for_a_pale_piece():
    """A pale sand photographed 9 % brighter than at calibration clips in green and red; the strip's
    gains (right) correct it below the empty board in those channels, into a pale player colour,
    and without its samples groove 3's dark shells (no class) would set the light. A clipped
    channel only bounds the light from below: the sand is labelled at the empty board's value
    there, grooves 1-2 stay bare sand and the strip's gains are kept."""
    rng = np.random.default_rng(6)
    pale = (196, 228, 229)                                       # the corrected clipped sand's colour
    A, sand, sea, red = _gain_assets(rng, sand=(196, 244, 246), extra=[("castle/yellow", pale)])
    light = np.array([1.09, 1.09, 1.09])
    raw = A.empty_sand.astype(np.float64) * light
    raw[180:] = sea + rng.normal(0, 4, (480, 3))                 # the cloth over grooves 4-11
    raw[120:180] = np.array([60, 70, 90]) * light + rng.normal(0, 3, (60, 3))   # dark shells fill groove 3
    raw = np.clip(raw, 0, 255).astype(np.uint8)
    assert (raw[:120, 1:] == 255).mean() > 0.9
    strip = 1.0 / light
    lit = np.clip(raw[:120] * strip, 0, 255).astype(np.uint8)[None]
    assert (A.is_player[colour.classify(lit, A.lut, A.bits)[0]]).mean() > 0.5   # (the scenario: pale-piece labels)
    got = sand_gains(raw[None], strip, A, sand_raw=raw)
    assert got == pytest.approx(strip, rel=1e-6)
