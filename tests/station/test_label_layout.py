"""The calibration preview's labels: on a crowded spot each finds a place of its own."""

from beachscore.station.label_layout import place_labels


def boxes(corners, sizes):
    return [(x, y - h, x + w, y) for (x, y), (w, h) in zip(corners, sizes)]


def overlap(a, b):
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_four_labels_on_a_crowded_spot_cover_neither_each_other_nor_the_points():
    points = [(200, 200), (230, 200), (200, 230), (230, 230)]  # samples 30 px apart, labels 90 px wide
    sizes = [(90, 14)] * 4
    placed = boxes(place_labels(points, sizes, gap=14, keep_clear=13), sizes)
    assert not any(overlap(a, b) for i, a in enumerate(placed) for b in placed[i + 1:]), placed
    discs = [(x - 13, y - 13, x + 13, y + 13) for x, y in points]
    assert not any(overlap(a, d) for a in placed for d in discs), placed


def test_a_lone_label_stands_right_of_its_point():
    assert place_labels([(50, 60)], [(40, 10)], gap=14, keep_clear=13) == [(64, 65)]


def test_a_label_near_the_picture_s_right_edge_stays_inside():
    (x, y), = place_labels([(590, 60)], [(40, 10)], gap=14, keep_clear=13, bounds=(600, 400))
    assert 0 <= x and x + 40 <= 600, x
